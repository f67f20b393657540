/**
 * The reference provider's reconnect window (seed 000: an encoder must be allowed at least 5 minutes to
 * reconnect; meanwhile the transcoder's output falls back to the stream's `fallbackImageUrl`): real nginx with
 * its RTMP module, real ffmpeg encoders, the image served by a real server, the webhooks taken by a fake service.
 * Which picture the live HLS plays is read off its newest fragment with ffprobe: the test pattern is 320×240,
 * the fallback image 160×120.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { providerWithStream, startFakeStreamService, type FakeStreamService } from '../helpers/fakeStreamService';
import { pushTestPattern, stopChild, stopReferenceProviders } from '../helpers/referenceProvider';
import { eventually, until } from '../helpers/wait';

const run = promisify(execFile);

let service: FakeStreamService;
let images: Server;
let imageUrl: string;
let imageRequests = 0;

beforeAll(async () => {
  // A 160×120 PNG, made by ffmpeg as any image editor would.
  const { stdout } = await run(
    'ffmpeg',
    ['-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=160x120', '-frames:v', '1', '-c:v', 'png', '-f', 'image2pipe', '-'],
    {
      encoding: 'buffer',
      maxBuffer: 1024 * 1024,
    },
  );
  images = createServer((_request, response) => {
    imageRequests += 1;
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': stdout.length }).end(stdout);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/back-soon.png`;
  service = await startFakeStreamService();
});
afterAll(async () => {
  await stopReferenceProviders();
  await service.close();
  images.closeAllConnections();
  await new Promise((resolve) => images.close(resolve));
});

/** The width of the picture in the newest fragment the live manifest lists (null while there is none). */
async function newestWidth(playbackUrl: string): Promise<number | null> {
  const response = await fetch(playbackUrl);
  if (!response.ok) return null;
  const fragments = (await response.text()).split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  if (fragments.length === 0) return null;
  try {
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=width',
      '-of',
      'default=noprint_wrappers=1:nokey=1',
      new URL(fragments[fragments.length - 1], playbackUrl).href,
    ]);
    return Number.parseInt(stdout, 10);
  } catch {
    return null; // cleaned up between the manifest and the probe: the next look reads a newer one
  }
}

it('while the encoder is away the live HLS plays the fallback image; an encoder back within the window takes over, with no idle between', async () => {
  const { created, types } = await providerWithStream(service, { PROVIDER_RECONNECT_WINDOW_MS: '300000' }, imageUrl);
  let encoder = pushTestPattern(created.ingestUrl, created.streamKey);
  await eventually(() => types().includes('active'), 'active delivered');
  await until(
    () => newestWidth(created.playbackUrl),
    (width) => width === 320,
    "the encoder's picture live",
  );
  await stopChild(encoder, 'SIGKILL');
  await eventually(() => types().includes('disconnected'), 'disconnected delivered');
  await until(
    () => newestWidth(created.playbackUrl),
    (width) => width === 160,
    'the fallback image live at the same playback URL',
  );
  expect(imageRequests).toBe(1);

  encoder = pushTestPattern(created.ingestUrl, created.streamKey);
  await eventually(() => types().filter((type) => type === 'active').length === 2, 'active again');
  await until(
    () => newestWidth(created.playbackUrl),
    (width) => width === 320,
    "the encoder's picture back",
  );
  await stopChild(encoder, 'SIGKILL');
  await eventually(() => types().length === 6, 'disconnected again');
  expect(types()).toEqual(['connected', 'active', 'disconnected', 'connected', 'active', 'disconnected']);
}, 120_000);

it('once the window passes without the encoder, the picture stops and idle follows', async () => {
  const windowMs = 3000;
  const { created, of, types } = await providerWithStream(
    service,
    { PROVIDER_RECONNECT_WINDOW_MS: String(windowMs), PROVIDER_IDLE_AFTER_MS: '1000' },
    imageUrl,
  );
  const encoder = pushTestPattern(created.ingestUrl, created.streamKey);
  await eventually(() => types().includes('active'), 'active delivered');
  await stopChild(encoder, 'SIGKILL');
  await eventually(() => types().includes('idle'), 'idle delivered', 60_000);

  expect(types()).toEqual(['connected', 'active', 'disconnected', 'idle']);
  const timeOf = (type: string) => of().find((entry) => entry.body.type === type)!.body.time!;
  // The provider's own clock: idle only once the window passed (and the manifest then stood still).
  expect(timeOf('idle') - timeOf('disconnected')).toBeGreaterThanOrEqual(windowMs);
}, 120_000);
