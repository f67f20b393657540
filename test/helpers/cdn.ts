/**
 * A CDN stand-in for the player tests: real HLS made by ffmpeg from its test pattern (H.264, one-second
 * segments), served over HTTP on loopback with CORS (hls.js fetches it from the watch page's origin), and
 * every path asked for recorded. `/vod/out.m3u8` is a finished recording; `/live/index.m3u8` is a live
 * stream: a playlist without an end whose window moves on one segment a second from the first time it
 * is asked for, as a provider's live HLS does (the same seconds of test pattern, round and round).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface HlsCdn {
  url: string;
  /** The recording's playlist (`seconds` long). */
  vodUrl: string;
  /** The live stream's playlist. */
  liveUrl: string;
  /** Every path asked for, in order. */
  requests: string[];
  /** While true, every answer is 503 (an outage at the CDN). */
  down: boolean;
  close(): Promise<void>;
}

interface Segment {
  duration: number;
  name: string;
}

/** Segments of an ffmpeg playlist, in order. */
function segmentsOf(playlist: string): Segment[] {
  const lines = playlist.split('\n').map((line) => line.trim());
  return lines.flatMap((line, index) => (line.startsWith('#EXTINF:') ? [{ duration: Number.parseFloat(line.slice(8)), name: lines[index + 1] }] : []));
}

/** Encodes `seconds` of ffmpeg's test pattern into one-second HLS segments in `dir`. */
async function encode(dir: string, seconds: number): Promise<Segment[]> {
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=320x240:rate=25`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '25',
    '-hls_time',
    '1',
    '-hls_playlist_type',
    'vod',
    join(dir, 'out.m3u8'),
  ]);
  return segmentsOf(readFileSync(join(dir, 'out.m3u8'), 'utf8'));
}

/**
 * The live playlist at `elapsed` ms after it was first asked for: the last six segments ready by then and
 * no end. The segments go round (a discontinuity where the recording starts again), so it never runs out.
 */
function livePlaylist(segments: Segment[], elapsed: number): string {
  const ready = 3 + Math.floor(elapsed / 1000);
  const first = Math.max(0, ready - 6);
  const entries: string[] = [];
  for (let index = first; index < ready; index += 1) {
    const segment = segments[index % segments.length];
    if (index > 0 && index % segments.length === 0) entries.push('#EXT-X-DISCONTINUITY');
    entries.push(`#EXTINF:${segment.duration.toFixed(6)},`, segment.name);
  }
  // Discontinuities that left the window before its first segment.
  const passed = first > 0 ? Math.floor((first - 1) / segments.length) : 0;
  const target = Math.ceil(Math.max(...segments.map((segment) => segment.duration)));
  return [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${target}`,
    `#EXT-X-MEDIA-SEQUENCE:${first}`,
    `#EXT-X-DISCONTINUITY-SEQUENCE:${passed}`,
    ...entries,
    '',
  ].join('\n');
}

/** Starts the CDN: a `vodSeconds` recording (default 10) and, when asked, a `liveSeconds` live stream. */
export async function startHlsCdn(options: { vodSeconds?: number; liveSeconds?: number } = {}): Promise<HlsCdn> {
  const root = mkdtempSync(join(tmpdir(), 'stagegraph-cdn-'));
  for (const dir of ['vod', 'live']) mkdirSync(join(root, dir));
  const [, live] = await Promise.all([
    encode(join(root, 'vod'), options.vodSeconds ?? 10),
    options.liveSeconds ? encode(join(root, 'live'), options.liveSeconds) : [],
  ]);
  const requests: string[] = [];
  const cdn = { requests, down: false } as HlsCdn;
  let liveSince: number | null = null;
  // A request that fails (a file that cannot be read) ends its connection, as a broken CDN would.
  const server: Server = createServer((request, response) => void serve(request, response).catch(() => response.destroy()));
  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    requests.push(path);
    const headers = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
    if (cdn.down) {
      response.writeHead(503, headers).end();
      return;
    }
    if (path === '/live/index.m3u8' && live.length > 0) {
      liveSince ??= Date.now();
      response.writeHead(200, { ...headers, 'content-type': 'application/vnd.apple.mpegurl' }).end(livePlaylist(live, Date.now() - liveSince));
      return;
    }
    const match = /^\/(vod|live)\/([\w.-]+\.(m3u8|ts))$/.exec(path);
    let body: Buffer;
    try {
      if (!match) throw new Error('not a file of ours');
      body = await readFile(join(root, match[1], match[2]));
    } catch {
      response.writeHead(404, headers).end();
      return;
    }
    response
      .writeHead(200, { ...headers, 'content-type': match[3] === 'm3u8' ? 'application/vnd.apple.mpegurl' : 'video/mp2t', 'content-length': body.length })
      .end(body);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(cdn, {
    url,
    vodUrl: `${url}/vod/out.m3u8`,
    liveUrl: `${url}/live/index.m3u8`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  });
  return cdn;
}
