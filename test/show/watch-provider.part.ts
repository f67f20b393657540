/**
 * The watch page with real frames end to end: ffmpeg pushes a test pattern over RTMP to the reference
 * provider (nginx with its RTMP module writes live HLS), whose webhooks drive the channel's show; the
 * page in headless Chromium plays the live stream with hls.js and its time advances; the encoder leaving
 * ends the show; the recording the provider delivers plays after it.
 */
import { rest } from '../helpers/http';
import { until } from '../helpers/wait';
import {
  pushTestPattern,
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopChild,
  stopReferenceProviders,
} from '../helpers/referenceProvider';
import { messageOf, sourceOf, untilAdvancing, untilView, watchTestbed } from '../helpers/watchPage';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;

const bed = watchTestbed('Provider watch site');
let contractId: string;

beforeAll(async () => {
  const ports = await referenceProviderPorts();
  const registered = await registerReferenceProvider(ports, { service: bed.stack.url, siteId: bed.site.siteId, developerKey: bed.site.developerKey });
  if (registered.code !== 0) throw new Error(`register failed: ${registered.stderr}`);
  contractId = JSON.parse(registered.stdout.trim()).contractId;
  await serveReferenceProvider(ports);
}, 120_000);
afterAll(stopReferenceProviders, 60_000);

it('plays the live show ffmpeg pushes through the reference provider, then says it ended and plays its recording', async () => {
  const page = await rest(bed.stack, 'POST', '/pages/v3', {
    headers: bed.site.admin,
    body: {
      slug: 'rtmp-show',
      type: 'channel',
      data: { name: 'RTMP show', content: { offline: { kind: 'recording' } } },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  const created = await rest(bed.stack, 'POST', '/stream/v1/', {
    headers: bed.site.admin,
    body: { pageId: page.body._id, contractId, fallbackImageUrl: 'https://img.example.test/back-soon.png' },
  });
  expect(created.status).toBe(201);
  const { page: watch } = await bed.open(page.body._id);
  await untilView(watch, 'offline', 'OFFLINE');

  const encoder = pushTestPattern(created.body.ingestUrl, created.body.streamKey);
  await untilView(watch, 'live', 'LIVE');
  expect(await sourceOf(watch)).toBe('live');
  await untilAdvancing(watch);
  expect(await watch.evaluate(() => window.stagegraphWatch.player.engine)).toBe('hls.js');

  // Recording a few seconds, then the encoder leaves: the show ends, and its recording plays.
  expect((await rest(bed.stack, 'POST', `/stream/v1/${created.body._id}/start`, { headers: bed.site.admin })).status).toBe(200);
  await untilAdvancing(watch);
  await untilAdvancing(watch);
  expect((await rest(bed.stack, 'POST', `/stream/v1/${created.body._id}/stop`, { headers: bed.site.admin })).status).toBe(200);
  await stopChild(encoder);
  await untilView(watch, 'ended', 'ENDED');
  await until(
    () => sourceOf(watch),
    (source) => source === 'vod',
    'the recording in the player',
    90_000,
  );
  expect(await messageOf(watch)).toBeNull();
  await untilAdvancing(watch, 0);
}, 240_000);
