/**
 * Renditions and rewind while live on real parts (docs/show.md): the reference provider with
 * PROVIDER_RENDITIONS=source,480p,240p transcodes ffmpeg's 320x240 test pattern into a ladder under one
 * master playlist at the stream's playback URL, each rendition's segments of its own frame size (ffprobe),
 * every file reached through the pass holder's signed URL; the recording keeps the top rendition. With
 * PROVIDER_DVR_SECONDS the live playlist keeps the window, `channelStatus.dvrSeconds` says how far back one
 * may go, and the watch page (hls.js in Chromium, its levels the ladder) seeks back 30 s once the show has
 * run longer, then "Go to live" returns to the edge; the webhooks (LIVE, then ENDED by idle) follow the ladder. Bad settings stop the provider's start naming them.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { unsignedPath } from '../../shared/playbackSigning';
import { launchBrowser } from '../helpers/browser';
import { graphql, rest } from '../helpers/http';
import {
  exitOf,
  pushTestPattern,
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopChild,
  stopReferenceProviders,
} from '../helpers/referenceProvider';
import { axeViolations } from '../helpers/watchChannel';
import { openWatchPage, untilAdvancing, untilView, videoTime } from '../helpers/watchPage';
import { createTestSite, grantEntitlement, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { until } from '../helpers/wait';
import { entryArgs } from '../helpers/serverProcess';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;

const probe = promisify(execFile);
const DVR_SECONDS = 120;

let stack: Stack;
let site: TestSite;
let browser: Browser;
let contractId: string;
const pages: Page[] = [];

beforeAll(async () => {
  const ports = await referenceProviderPorts({
    PROVIDER_SIGNED_PLAYBACK: 'true',
    PROVIDER_RENDITIONS: '240p,source,480p',
    PROVIDER_DVR_SECONDS: String(DVR_SECONDS),
    PROVIDER_IDLE_AFTER_MS: '3000',
  });
  [stack, browser] = await Promise.all([
    startTestStack({ env: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${ports.httpPort}`, STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/back.png' } }),
    launchBrowser(),
  ]);
  site = await createTestSite(stack, 'Ladder site');
  const registered = await registerReferenceProvider(ports, { service: stack.url, siteId: site.siteId, developerKey: site.developerKey });
  if (registered.code !== 0) throw new Error(`register failed: ${registered.stderr}`);
  contractId = JSON.parse(registered.stdout.trim()).contractId;
  await serveReferenceProvider(ports);
}, 180_000);
afterAll(async () => {
  await Promise.all(pages.map((page) => page.close()));
  await browser?.close();
  await stopReferenceProviders();
  await stopAll();
}, 60_000);

/** The frame size of the first video stream at `url` (a segment), as ffprobe reads it. */
async function frameSize(url: string): Promise<string> {
  const { stdout } = await probe('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0:s=x', url]);
  // MPEG-TS lists the stream under its program too: the first line is the stream's.
  return stdout.trim().split('\n')[0];
}

/** The URIs a playlist names (variants of a master, segments of a media playlist), resolved against it. */
async function namedIn(url: string): Promise<string[]> {
  const answer = await fetch(url);
  expect(answer.status).toBe(200);
  const text = await answer.text();
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => new URL(line, url).toString());
}

const statusQuery = (channelId: string) =>
  graphql(stack, `query { channelStatus(channelId: "${channelId}") { state live startedAt dvrSeconds } }`, {}, { 'x-service-client-id': site.siteId }).then(
    (answer) => answer.body.data.channelStatus as { state: string; live: boolean; startedAt: number | null; dvrSeconds: number },
  );

it('transcodes the ladder under one signed master, rewinds the live show in the watch page and records the top rendition', async () => {
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'ladder',
      type: 'channel',
      data: { name: 'Ladder', gate: { active: true, kind: 'subscription', gate: { subscriptions: ['pass'] } }, content: { offline: { kind: 'recording' } } },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  const channelId = page.body._id as string;
  const stream = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channelId, contractId } });
  expect(stream.status).toBe(201);
  expect(await statusQuery(channelId)).toMatchObject({ live: false, dvrSeconds: 0 });
  const holder = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, holder.accountId, 'pass');
  const encoder = pushTestPattern(stream.body.ingestUrl, stream.body.streamKey);
  expect((await rest(stack, 'POST', `/stream/v1/${stream.body._id}/start`, { headers: site.admin })).status).toBe(200);

  // The holder's signed URL is the master: the ladder top first, each rendition's playlist and segments under the token.
  const headers = { 'x-service-client-id': site.siteId, authorization: `Bearer ${holder.token}`, 'x-service-device-id': 'tv' };
  const signedUrl = await until(
    async () => (await rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers })).body.canIPlayResponse.contentCheck.video.video,
    (video) => video?.type === 'live' && typeof video.url === 'string',
    'the check offers the live video',
  ).then((video) => video.url as string);
  const variants = await until(
    () => namedIn(signedUrl),
    (named) => named.length === 3,
    'the master names three renditions',
  );
  expect(variants.map((url) => unsignedPath(new URL(url).pathname)?.path.replace(/^.*_/, ''))).toEqual(['source.m3u8', '480p.m3u8', '240p.m3u8']);
  const sizes = [];
  for (const variant of variants) {
    const segments = await until(
      () => namedIn(variant),
      (named) => named.length > 0,
      'a rendition with segments',
    );
    sizes.push(await frameSize(segments[0]));
    // Without the token no rendition plays: the stream is signed only.
    expect((await fetch(`${new URL(variant).origin}${unsignedPath(new URL(variant).pathname)!.path}`)).status).toBe(403);
  }
  expect(sizes).toEqual(['320x240', '854x480', '426x240']);

  // The watch page: hls.js finds the ladder's levels and plays on.
  const { page: watch } = await openWatchPage(browser, pages, { base: stack.url, siteId: site.siteId, channelId }, { token: holder.token });
  await untilView(watch, 'live', 'LIVE');
  await untilAdvancing(watch);
  const levels: { height: number }[] = await watch.evaluate(() => window.stagegraphWatch.player.levels);
  expect(levels.map((level) => level.height).sort((a, b) => a - b)).toEqual([0, 240, 480]);

  // Once the show has run past 30 s, seeking 30 s back plays earlier frames, and "Go to live" returns to the edge.
  const status = await until(
    () => statusQuery(channelId),
    (now) => now.dvrSeconds >= 35,
    'the show live for 35 s',
    90_000,
  );
  expect(status.dvrSeconds).toBeLessThanOrEqual(DVR_SECONDS);
  // The page's own window (what the browser may seek) holds those seconds too.
  const edgeNow = () =>
    watch.evaluate(() => {
      const video = document.getElementById('player');
      return {
        ...window.stagegraphWatch.liveEdge,
        live: !document.getElementById('sg-watch-live').hidden,
        seekable: [video.seekable.start(0), video.seekable.end(0)],
        time: video.currentTime,
      };
    });
  // The page's window ends at hls.js's live sync point, a few fragments behind the playlist's end, and the playlist
  // grows only as fast as the ladder is encoded (slower than real time on a loaded machine): waited for as long.
  await until(edgeNow, (edge) => edge.windowSeconds >= 32, 'the page may seek 32 s back', 90_000);
  const before = await videoTime(watch);
  await watch.$eval('#sg-watch-seek', (seek: any) => {
    seek.value = String(Number(seek.value) - 30);
    seek.dispatchEvent(new Event('input'));
  });
  await untilAdvancing(watch, before - 31);
  expect(await videoTime(watch)).toBeLessThan(before - 20);
  await until(edgeNow, (edge) => edge.behindSeconds >= 25 && edge.windowSeconds >= 30 && edge.live, 'the viewer 30 s behind, offered "Live"');
  expect(await axeViolations(watch)).toEqual([]);
  const [goLive] = await watch.$$('aria/Go to live');
  await goLive.click();
  await until(edgeNow, (edge) => edge.behindSeconds <= 6 && !edge.live, 'back at the live edge');

  // The recording keeps the top rendition.
  expect((await rest(stack, 'POST', `/stream/v1/${stream.body._id}/stop`, { headers: site.admin })).status).toBe(200);
  await stopChild(encoder);
  const vodUrl = await until(
    async () => (await rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers })).body.canIPlayResponse.contentCheck.video.video,
    (video) => video?.type === 'vod' && typeof video.url === 'string',
    'the check offers the recording',
    60_000,
  ).then((video) => video.url as string);
  // The webhooks follow the top rendition: its playlist stops, so `idle` ends the show (and the window with it).
  expect(
    await until(
      () => statusQuery(channelId),
      (now) => now.state === 'ENDED',
      'the show ended by idle',
    ),
  ).toMatchObject({ live: false, dvrSeconds: 0 });
  const recorded = await namedIn(vodUrl);
  expect(recorded.length).toBeGreaterThanOrEqual(30);
  expect(await frameSize(recorded[0])).toBe('320x240');
}, 300_000);

it('refuses to start with a bad ladder or rewind window, naming the setting', async () => {
  const bad: Record<string, string>[] = [
    { PROVIDER_RENDITIONS: 'source,999p' },
    { PROVIDER_RENDITIONS: '480p,480p' },
    { PROVIDER_RENDITIONS: '' },
    { PROVIDER_DVR_SECONDS: '21601' },
  ];
  const answers = await Promise.all(
    bad.map(async (setting) => {
      const ports = await referenceProviderPorts(setting);
      const child = spawn(process.execPath, entryArgs('provider/index.ts'), {
        env: { ...process.env, ...ports.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return { code: await exitOf(child), stderr: stderr.trim() };
    }),
  );
  expect(answers).toEqual([
    { code: 1, stderr: expect.stringMatching(/^PROVIDER_RENDITIONS names an unknown rendition "999p"/) },
    { code: 1, stderr: 'PROVIDER_RENDITIONS names "480p" twice' },
    { code: 1, stderr: expect.stringMatching(/^PROVIDER_RENDITIONS must name at least one rendition .*, got ""$/) },
    { code: 1, stderr: 'PROVIDER_DVR_SECONDS must be an integer between 0 and 21600, got "21601"' },
  ]);
}, 60_000);
