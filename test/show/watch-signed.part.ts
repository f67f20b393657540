/**
 * The watch page keeps a signed stream playing (docs/design.md "Paid video stays paid"): with a TTL of 30 s, the
 * page asks the check again before each token expires and hands hls.js the new token in place, so the
 * video time keeps advancing across at least two renewals, past the first token's expiry, without a
 * reload. Real parts: ffmpeg over RTMP to the reference provider (signed playback), headless Chromium.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { rest } from '../helpers/http';
import { launchBrowser } from '../helpers/browser';
import {
  pushTestPattern,
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopChild,
  stopReferenceProviders,
} from '../helpers/referenceProvider';
import { createTestSite, grantEntitlement, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { until } from '../helpers/wait';
import { openWatchPage, untilAdvancing, untilView, videoTime } from '../helpers/watchPage';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;

let stack: Stack;
let site: TestSite;
let browser: Browser;
let contractId: string;
const pages: Page[] = [];

beforeAll(async () => {
  const ports = await referenceProviderPorts({ PROVIDER_SIGNED_PLAYBACK: 'true' });
  [stack, browser] = await Promise.all([
    startTestStack({
      env: {
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${ports.httpPort}`,
        STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/back.png',
        PLAYBACK_TOKEN_TTL_SECONDS: '30',
      },
    }),
    launchBrowser(),
  ]);
  site = await createTestSite(stack, 'Signed watch site');
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

it('renews the signed URL before it expires and keeps playing across two renewals', async () => {
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'signed-watch',
      type: 'channel',
      data: { name: 'Signed watch', gate: { active: true, kind: 'subscription', gate: { subscriptions: ['pass'] } } },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  const stream = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: page.body._id, contractId } });
  expect(stream.status).toBe(201);
  const holder = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, holder.accountId, 'pass');
  const encoder = pushTestPattern(stream.body.ingestUrl, stream.body.streamKey);

  const { page: watch, requested } = await openWatchPage(
    browser,
    pages,
    { base: stack.url, siteId: site.siteId, channelId: page.body._id },
    { token: holder.token },
  );
  await untilView(watch, 'live', 'LIVE');
  await untilAdvancing(watch);
  const firstSigned = requested.find((url) => url.includes('/hls/t/'));
  expect(firstSigned).toBeDefined();
  const firstExpiry = Number(/\/t\/(\d+)\./.exec(firstSigned!)![1]) * 1000;

  // Two renewals, and past the first token's expiry: the page still plays, never reloaded.
  await until(
    () => watch.evaluate(() => window.stagegraphWatch.player.renewals as number),
    (renewals) => renewals >= 2,
    'two renewals of the signed URL',
    90_000,
  );
  await until(
    async () => Date.now(),
    (now) => now > firstExpiry + 2000,
    'the first token expired',
    60_000,
  );
  await untilAdvancing(watch);
  expect(await watch.evaluate(() => window.stagegraphWatch.player.reloads)).toBe(0);
  const tokens = new Set(requested.filter((url) => url.includes('/hls/t/')).map((url) => /\/t\/([^/]+)\//.exec(url)![1]));
  expect(tokens.size).toBeGreaterThanOrEqual(3);
  expect(await videoTime(watch)).toBeGreaterThan(20);
  await stopChild(encoder);
}, 240_000);
