/**
 * The latency bench's burnt-in clock (bench/latencyClock.ts): ffmpeg draws it with the filter the bench's
 * encoder runs, x264 compresses it as it does on the way to the watch page, and the reader gets back each
 * frame's own time, low bits and high ones; a picture without the strip, or with a bit flipped, reads as
 * nothing rather than a wrong time.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { clockCellCentres, clockFilter, decodeClock, readGreyFrame } from '../../bench/latencyClock';
import { liveEncoderArgs } from '../../scripts/testPattern';

const run = promisify(execFile);
const WIDTH = 320;
const FRAME_BYTES = WIDTH * 240;

/** The clock of `frames` frames at 25 fps starting `offsetMs` in, through x264 and back to grey pictures. */
async function framesThroughH264(offsetMs: number, frames: number): Promise<Buffer> {
  const h264 = await run(
    'ffmpeg',
    [
      ...['-loglevel', 'error', '-nostdin', '-f', 'lavfi', '-i', `testsrc=size=${WIDTH}x240:rate=25`],
      // A millisecond time base, so that the shifted times are exact.
      ...['-vf', `settb=1/1000,setpts=PTS+${offsetMs},${clockFilter()}`, '-frames:v', String(frames)],
      ...liveEncoderArgs(),
      ...['-f', 'h264', 'pipe:1'],
    ],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  const decoded = execFile('ffmpeg', ['-loglevel', 'error', '-f', 'h264', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  const chunks: Buffer[] = [];
  decoded.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  decoded.stdin!.end(h264.stdout);
  await new Promise((resolve, reject) => decoded.once('exit', (code) => (code === 0 ? resolve(code) : reject(new Error(`ffmpeg exited ${code}`)))));
  return Buffer.concat(chunks);
}

const timesOf = (pictures: Buffer) =>
  Array.from({ length: pictures.length / FRAME_BYTES }, (_, index) => readGreyFrame(pictures.subarray(index * FRAME_BYTES, (index + 1) * FRAME_BYTES), WIDTH));

it('reads back the time of each frame ffmpeg drew and x264 compressed, from the first frame and an hour in', async () => {
  expect(timesOf(await framesThroughH264(0, 6))).toEqual([0, 40, 80, 120, 160, 200]);
  expect(timesOf(await framesThroughH264(3_723_457, 3))).toEqual([3_723_457, 3_723_497, 3_723_537]);
}, 30_000);

it('reads nothing from a picture without the strip or with a bit misread', () => {
  const cells = clockCellCentres().length;
  expect(decodeClock(new Array<number>(cells).fill(0))).toBeNull();
  // 5 ms: the marker, bits 0 and 2, even parity.
  const five = [255, 255, 0, 255, ...new Array<number>(cells - 4).fill(0)];
  expect(decodeClock(five)).toBe(5);
  expect(decodeClock(five.map((value, index) => (index === 3 ? 0 : value)))).toBeNull();
  expect(decodeClock(five.slice(1))).toBeNull();
});
