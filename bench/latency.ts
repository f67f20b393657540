/**
 * Glass-to-glass latency (`npm run bench -- latency`): how long a frame takes from the encoder to the watch
 * page. ffmpeg (Debian's) burns a clock into each frame (bench/latencyClock.ts: its time in ms since the
 * encoder's first frame) and pushes it over RTMP to the reference provider (nginx's RTMP module writes the
 * live HLS); the watch page (`/embed/v1/watch` in Debian's Chromium) plays it with hls.js. The encoder's
 * start is pinned to the wall clock by a second output of the same filter graph, the clock strip in raw
 * grey on a pipe to this process: with `-re` no frame leaves before its time, so the earliest (arrival −
 * its ms) is the start. The page is sampled once playback settles: the frame on screen is drawn to a
 * canvas in a video-frame callback, its clock read, and delay = when it is displayed − (start + its ms).
 * One stagegraph instance, one browser; the provider runs once per fragment length (HLS_FRAGMENT_SECONDS).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Hls from 'hls.js';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumLaunchOptions } from '../scripts/demo';
import { spawnTracked, stopChild } from '../scripts/services';
import { liveEncoderArgs, TEST_PATTERN_FPS, testPatternInputs } from '../scripts/testPattern';
import { callJson, createSite, freePort, percentile, root, startInstance, untilPlaybackServes, type Instance } from './harness';
import { clockCellCentres, clockFilter, CLOCK_STRIP, decodeClock, readGreyFrame } from './latencyClock';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this module only.
declare const document: any;

/**
 * What x264 adds before a frame leaves the encoder with `-tune zerolatency` (no lookahead, no B-frames): the
 * frame interval at most. Not measured: the floor below adds it as the encoder's share.
 */
const ENCODER_DELAY_MS = 1000 / TEST_PATTERN_FPS;

/**
 * hls.js's live settings as the watch page runs them: embed/watchPlayer.ts sets none of them, so they are
 * the defaults of the hls.js version the page bundles (this one).
 */
const HLS_LIVE = {
  liveSyncDurationCount: Hls.DefaultConfig.liveSyncDurationCount,
  liveMaxLatencyDurationCount: Hls.DefaultConfig.liveMaxLatencyDurationCount,
  maxLiveSyncPlaybackRate: Hls.DefaultConfig.maxLiveSyncPlaybackRate,
  lowLatencyMode: Hls.DefaultConfig.lowLatencyMode,
};

/** The delays one viewer's page showed (ms). */
export interface ViewerDelays {
  /** Frames read, and those whose clock could not be read (dropped). */
  samples: number;
  misread: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  minMs: number;
}

export interface LatencyFigures {
  /** HLS_FRAGMENT_SECONDS the provider ran with. */
  fragmentSeconds: number;
  /** The live playlist as served while sampling: EXT-X-TARGETDURATION, its fragments and the seconds they add up to. */
  playlist: { targetDurationSeconds: number; fragments: number; seconds: number };
  hlsJs: typeof HLS_LIVE;
  /**
   * A viewer whose page was open when the show went live: hls.js starts at the playlist's first fragment
   * while it holds fewer than liveSyncDurationCount, and with no catching up (maxLiveSyncPlaybackRate 1)
   * it stays that close.
   */
  atGoLive: ViewerDelays;
  /**
   * Viewers who opened the page once the playlist held more than hls.js keeps behind its end (where most
   * viewers are), `joins` of them one after another, their samples pooled.
   */
  joinedLater: ViewerDelays;
  joins: number;
  /** Fragment length × liveSyncDurationCount + the encoder's frame (ENCODER_DELAY_MS): where hls.js aims to play. */
  floorMs: number;
  /** From starting ffmpeg to its frame 0 as pinned (a few hundred ms of ffmpeg's start; far more would mean a wrong pin). */
  encoderStartAfterSpawnMs: number;
}

const run = promisify(execFile);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const wallNow = () => performance.timeOrigin + performance.now();

/** Polls `probe` every 100 ms until it holds, or throws naming `what` after `timeoutMs`. */
async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await probe()); await pause(100)) {
    if (Date.now() > deadline) throw new Error(`latency bench: ${what} did not happen within ${timeoutMs / 1000} s`);
  }
}

/**
 * ffmpeg pushing a 320×240 test pattern with the clock (and a tone) in real time to `ingest`, and the
 * clock strip of each frame in raw grey on its stdout; `start()` is the wall-clock time of its frame 0,
 * `spawnedAt` when the process was started (their gap: ffmpeg's own start, a check on the pin).
 */
function clockEncoder(ingest: string): { process: ChildProcess; start: () => number; spawnedAt: number } {
  const spawnedAt = wallNow();
  const graph = `[0:v]${clockFilter()},split=2[pushed][pin];[pin]crop=${CLOCK_STRIP.width}:${CLOCK_STRIP.height}:0:0,format=gray[strip]`;
  const encoder = spawnTracked(
    'ffmpeg',
    [
      ...['-loglevel', 'error', '-nostdin', ...testPatternInputs(), '-filter_complex', graph],
      ...['-map', '[pushed]', '-map', '1:a', ...liveEncoderArgs(), '-f', 'flv', ingest],
      ...['-map', '[strip]', '-f', 'rawvideo', 'pipe:1'],
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const frameBytes = CLOCK_STRIP.width * CLOCK_STRIP.height;
  let pending = Buffer.alloc(0);
  let start = Infinity;
  encoder.stdout!.on('data', (chunk: Buffer) => {
    const arrived = wallNow();
    pending = Buffer.concat([pending, chunk]);
    for (; pending.length >= frameBytes; pending = pending.subarray(frameBytes)) {
      const ms = readGreyFrame(pending.subarray(0, frameBytes), CLOCK_STRIP.width);
      if (ms !== null) start = Math.min(start, arrived - ms);
    }
  });
  return { process: encoder, start: () => start, spawnedAt };
}

/** The frame on screen: the brightness of each clock box and the time it is displayed (wall clock, ms). */
function frameOnScreen(page: Page): Promise<{ shownAt: number; brightness: number[] }> {
  return page.evaluate(
    (cells: { x: number; y: number }[]) =>
      new Promise<{ shownAt: number; brightness: number[] }>((resolve, reject) => {
        const video = document.getElementById('player');
        setTimeout(() => reject(new Error('latency bench: no video frame presented within 5 s')), 5000);
        // In the callback the frame drawn is the one being presented, and the time is when it is expected on screen.
        video.requestVideoFrameCallback((_now: number, frame: { expectedDisplayTime: number }) => {
          const canvas = document.createElement('canvas');
          canvas.width = video.videoWidth;
          canvas.height = video.videoHeight;
          const context = canvas.getContext('2d', { willReadFrequently: true });
          context.drawImage(video, 0, 0);
          const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
          const brightness = cells.map(({ x, y }) => {
            const at = (y * canvas.width + x) * 4;
            return (data[at] + data[at + 1] + data[at + 2]) / 3;
          });
          resolve({ shownAt: performance.timeOrigin + frame.expectedDisplayTime, brightness });
        });
      }),
    clockCellCentres(),
  );
}

/** EXT-X-TARGETDURATION, the fragments and their seconds of the live playlist at `url`. */
async function playlistOf(url: string): Promise<LatencyFigures['playlist']> {
  const text = await (await fetch(url)).text();
  const durations = [...text.matchAll(/#EXTINF:([\d.]+)/g)].map((match) => Number(match[1]));
  return {
    targetDurationSeconds: Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(text)?.[1] ?? NaN),
    fragments: durations.length,
    seconds: Math.round(durations.reduce((sum, value) => sum + value, 0) * 10) / 10,
  };
}

interface Bench {
  instance: Instance;
  admin: Record<string, string>;
  siteId: string;
  browser: Browser;
  /** The provider's ports and state folder, kept across its runs (it registers once). */
  providerEnv: Record<string, string>;
  contractId: string;
}

const round = (value: number) => Math.round(value);

/** The watch page of `channelId` in a new tab, and a reader of its video's time. */
async function openWatchPage(bench: Bench, channelId: string) {
  const page = await bench.browser.newPage();
  await page.goto(`${bench.instance.url}/embed/v1/watch?${new URLSearchParams({ siteId: bench.siteId, channelId }).toString()}`);
  return page;
}

/** Waits for the page's live video to play, then to play on for two fragments' time (it has settled). */
async function untilSettled(page: Page, fragmentSeconds: number): Promise<void> {
  const videoTime = () => page.evaluate(() => document.getElementById('player').currentTime as number);
  await waitFor(async () => (await videoTime()) > 0, 'the live video playing on the watch page');
  const started = await videoTime();
  await waitFor(async () => (await videoTime()) > started + 2 * fragmentSeconds, 'the live video playing on');
}

/** `samples` frames of `page` once it has settled, a fifth of a second apart: their delays behind the encoder (ms). */
async function sampleDelays(page: Page, encoderStart: () => number, samples: number, fragmentSeconds: number) {
  await untilSettled(page, fragmentSeconds);
  const delays: number[] = [];
  let misread = 0;
  for (let taken = 0; taken < samples; taken += 1) {
    const { shownAt, brightness } = await frameOnScreen(page);
    const ms = decodeClock(brightness);
    if (ms === null) misread += 1;
    else delays.push(shownAt - (encoderStart() + ms));
    await pause(200);
  }
  return { delays, misread };
}

function summarise({ delays, misread }: { delays: number[]; misread: number }): ViewerDelays {
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    misread,
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    maxMs: round(sorted.at(-1) ?? NaN),
    minMs: round(sorted[0] ?? NaN),
  };
}

/**
 * One run of the provider at `fragmentSeconds`: a channel's page is opened, the clock encoder goes live and
 * the page is sampled `samples` times; then, once the playlist is long enough, `joins` pages open one after
 * another, each sampled `samples / joins` times.
 */
async function measureRun(bench: Bench, fragmentSeconds: number, samples: number, joins: number): Promise<LatencyFigures> {
  const provider = spawnTracked(process.execPath, ['--import', 'tsx', join(root, 'provider', 'index.ts')], {
    cwd: root,
    env: { ...process.env, ...bench.providerEnv, HLS_FRAGMENT_SECONDS: String(fragmentSeconds) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let encoder: ChildProcess | undefined;
  try {
    await untilPlaybackServes(provider, `http://127.0.0.1:${bench.providerEnv.PROVIDER_PLAYBACK_PORT}/`);
    const slug = `latency-${fragmentSeconds}s`;
    const channel = (await callJson(bench.instance, 'POST', '/pages/v3', bench.admin, {
      slug,
      type: 'channel',
      data: { name: slug },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    })) as { _id: string };
    const stream = (await callJson(bench.instance, 'POST', '/stream/v1/', bench.admin, { pageId: channel._id, contractId: bench.contractId })) as {
      ingestUrl: string;
      streamKey: string;
      playbackUrl: string;
    };
    // One page at a time: Chromium suspends a muted video in a tab in the background, which then falls behind.
    const atGoLive = await openWatchPage(bench, channel._id);
    const clock = clockEncoder(`${stream.ingestUrl}/${stream.streamKey}`);
    encoder = clock.process;
    const early = await sampleDelays(atGoLive, clock.start, samples, fragmentSeconds);
    await atGoLive.close();
    await waitFor(
      async () => (await playlistOf(stream.playbackUrl)).fragments > HLS_LIVE.liveSyncDurationCount + 1,
      'the live playlist holding more fragments than hls.js keeps behind its end',
    );
    // Where a joining viewer lands depends on how old the playlist's last fragment is when it loads: several joins.
    const later = { delays: [] as number[], misread: 0 };
    for (let join = 0; join < joins; join += 1) {
      const joined = await openWatchPage(bench, channel._id);
      const read = await sampleDelays(joined, clock.start, Math.ceil(samples / joins), fragmentSeconds);
      await joined.close();
      later.delays.push(...read.delays);
      later.misread += read.misread;
    }
    const playlist = await playlistOf(stream.playbackUrl);
    return {
      fragmentSeconds,
      playlist,
      hlsJs: HLS_LIVE,
      atGoLive: summarise(early),
      joinedLater: summarise(later),
      joins,
      floorMs: round(fragmentSeconds * 1000 * HLS_LIVE.liveSyncDurationCount + ENCODER_DELAY_MS),
      encoderStartAfterSpawnMs: round(clock.start() - clock.spawnedAt),
    };
  } finally {
    if (encoder) await stopChild(encoder);
    await stopChild(provider); // it stops its nginx
  }
}

/**
 * The runs, one per fragment length (BENCH_LATENCY_FRAGMENTS, default `1,2`): BENCH_LATENCY_SAMPLES frames
 * (default 40, a fifth of a second apart) of the page open at go-live, and as many of the pages that join
 * later (BENCH_LATENCY_JOINS of them, default 4, one after another), pooled.
 */
export async function measureLatency(
  fragments = (process.env.BENCH_LATENCY_FRAGMENTS ?? '1,2').split(',').map(Number),
  samples = Number(process.env.BENCH_LATENCY_SAMPLES ?? 40),
  joins = Number(process.env.BENCH_LATENCY_JOINS ?? 4),
): Promise<LatencyFigures[]> {
  const instance = await startInstance({ env: { OUTBOUND_ALLOW_PRIVATE: 'true', STREAM_FALLBACK_IMAGE_URL: 'https://images.bench.test/fallback.png' } });
  const stateDir = mkdtempSync(join(tmpdir(), 'stagegraph-bench-latency-'));
  const browser = await puppeteer.launch(chromiumLaunchOptions(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'));
  try {
    const site = createSite(instance);
    const providerEnv = {
      PROVIDER_STATE_DIR: stateDir,
      PROVIDER_PORT: String(await freePort()),
      PROVIDER_PLAYBACK_PORT: String(await freePort()),
      RTMP_PORT: String(await freePort()),
      PROVIDER_PUBLIC_HOST: '127.0.0.1',
      PROVIDER_LISTEN_HOST: '127.0.0.1',
      RTMP_LISTEN_HOST: '127.0.0.1',
      // The show ends as the encoder leaves: the next run's channel starts from nothing.
      PROVIDER_RECONNECT_WINDOW_MS: '0',
      LOG_LEVEL: 'warn',
    };
    const registered = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'provider', 'index.ts'),
        'register',
        '--service',
        instance.url,
        '--site',
        site.siteId,
        '--developer-key',
        site.developerKey,
      ],
      { cwd: root, env: { ...process.env, ...providerEnv } },
    );
    const bench: Bench = {
      instance,
      admin: { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey },
      siteId: site.siteId,
      browser,
      providerEnv,
      contractId: (JSON.parse(registered.stdout.trim()) as { contractId: string }).contractId,
    };
    const runs: LatencyFigures[] = [];
    for (const fragmentSeconds of fragments) runs.push(await measureRun(bench, fragmentSeconds, samples, joins));
    return runs;
  } finally {
    await browser.close();
    await instance.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** `npm run bench -- latency`: the runs side by side, with the load average, kept under `figures.latency`. */
export async function latencySection(figures: Record<string, unknown>): Promise<void> {
  const runs = await measureLatency();
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  figures.latency = { runs, encoderDelayMs: ENCODER_DELAY_MS, loadAverage: load };
  console.log(
    `\nglass-to-glass latency: ffmpeg's frame (clock burnt in) → the reference provider (RTMP in, live HLS out) → the watch page (hls.js in headless Chromium); ` +
      `hls.js ${Hls.version}: liveSyncDurationCount ${HLS_LIVE.liveSyncDurationCount}, liveMaxLatencyDurationCount ${HLS_LIVE.liveMaxLatencyDurationCount}, ` +
      `maxLiveSyncPlaybackRate ${HLS_LIVE.maxLiveSyncPlaybackRate}`,
  );
  console.table(
    runs.flatMap((run) =>
      (['joinedLater', 'atGoLive'] as const).map((viewer) => ({
        HLS_FRAGMENT_SECONDS: run.fragmentSeconds,
        'playlist (target s / fragments / s)': `${run.playlist.targetDurationSeconds} / ${run.playlist.fragments} / ${run.playlist.seconds}`,
        viewer: viewer === 'atGoLive' ? 'page open at go-live' : `joined a running show (${run.joins} joins)`,
        'samples (misread)': `${run[viewer].samples} (${run[viewer].misread})`,
        'p50 ms': run[viewer].p50Ms,
        'p95 ms': run[viewer].p95Ms,
        'max ms': run[viewer].maxMs,
        'min ms': run[viewer].minMs,
        'floor ms': run.floorMs,
        'p50 / floor': (run[viewer].p50Ms / run.floorMs).toFixed(2),
        'p95 / floor': (run[viewer].p95Ms / run.floorMs).toFixed(2),
      })),
    ),
  );
  console.log(
    `floor: fragment × liveSyncDurationCount (where hls.js aims to play behind the playlist's end) + the encoder's frame (${ENCODER_DELAY_MS} ms, x264 zerolatency)`,
  );
  console.log(`encoder's frame 0 as pinned, after starting ffmpeg: ${runs.map((run) => `${run.encoderStartAfterSpawnMs} ms`).join(', ')}`);
  console.log(`load average at the end: ${load}`);
}
