/**
 * A pass that lapses loses playback within one TTL (docs/design.md "Paid video stays paid"): a viewer holding
 * the pass of a gated channel gets a signed live URL (PLAYBACK_TOKEN_TTL_SECONDS at its minimum, 30 s), which
 * nginx at the reference provider plays; the site takes the pass away; asking the check again (what the
 * watch page does to renew its URL) refuses and names no URL of the stream, and the URL the viewer still
 * holds stops playing (403, playlist and segment) once its token expires — no later than one TTL after
 * the pass went. A viewer banned from the site (a chat ban without end) loses playback the same way. A viewer
 * who keeps the pass gets a fresh URL that plays all along.
 * Real parts: ffmpeg over RTMP to the reference provider's nginx, the stack, the community's removal.
 */
import type { Stack } from '../../stack';
import { rest } from '../helpers/http';
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

const TTL_SECONDS = 30;

let stack: Stack;
let site: TestSite;
let contractId: string;

beforeAll(async () => {
  const ports = await referenceProviderPorts({ PROVIDER_SIGNED_PLAYBACK: 'true' });
  stack = await startTestStack({
    env: {
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${ports.httpPort}`,
      STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/back.png',
      PLAYBACK_TOKEN_TTL_SECONDS: String(TTL_SECONDS),
    },
  });
  site = await createTestSite(stack, 'Lapsing pass site');
  const registered = await registerReferenceProvider(ports, { service: stack.url, siteId: site.siteId, developerKey: site.developerKey });
  if (registered.code !== 0) throw new Error(`register failed: ${registered.stderr}`);
  contractId = JSON.parse(registered.stdout.trim()).contractId;
  await serveReferenceProvider(ports);
}, 180_000);
afterAll(async () => {
  await stopReferenceProviders();
  await stopAll();
}, 60_000);

type Viewer = { accountId: string; token: string };
const headersOf = (viewer: Viewer) => ({
  'x-service-client-id': site.siteId,
  authorization: `Bearer ${viewer.token}`,
  'x-service-device-id': viewer.accountId,
});
const check = async (channelId: string, viewer: Viewer) =>
  (await rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: headersOf(viewer) })).body as { canIPlayResponse: Record<string, any> };

/** The signed live URL the viewer's check gives once the stream is live. */
const liveUrlOf = (channelId: string, viewer: Viewer) =>
  until(
    async () => (await check(channelId, viewer)).canIPlayResponse.contentCheck.video?.video,
    (video) => video?.type === 'live' && typeof video.url === 'string' && video.url.includes('/hls/t/'),
    'the check offers the signed live video',
  ).then((video) => video.url as string);

/** The playlist's status and, when it plays, the status of the newest segment it names (and that segment's URL). */
async function plays(url: string): Promise<{ playlist: number; segment: number | null; segmentUrl?: string }> {
  const playlist = await fetch(url);
  if (playlist.status !== 200) return { playlist: playlist.status, segment: null };
  const segment = (await playlist.text())
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .at(-1);
  if (!segment) return { playlist: 200, segment: null };
  const segmentUrl = new URL(segment, url).toString();
  return { playlist: 200, segment: (await fetch(segmentUrl)).status, segmentUrl };
}

const expiryOf = (url: string) => Number(/\/t\/(\d+)\./.exec(url)![1]) * 1000;

it('refuses the renewal of a viewer whose pass was taken away or who was banned, and their URLs stop playing within one TTL', async () => {
  const channel = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'lapsing-pass',
      type: 'channel',
      data: { name: 'Lapsing pass', gate: { active: true, kind: 'subscription', gate: { subscriptions: ['pass'] } } },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  const channelId = channel.body._id as string;
  const stream = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channelId, contractId } });
  expect(stream.status).toBe(201);
  const playbackName = new URL(stream.body.playbackUrl as string).pathname.split('/').at(-1)!.replace('.m3u8', '');
  const [lapsing, banned, keeping] = [await site.signIn([]), await site.signIn([]), await site.signIn([])];
  for (const viewer of [lapsing, banned, keeping]) await grantEntitlement(stack, site.siteId, viewer.accountId, 'pass');
  const encoder = pushTestPattern(stream.body.ingestUrl as string, stream.body.streamKey as string);

  const held = await liveUrlOf(channelId, lapsing);
  const heldByBanned = await liveUrlOf(channelId, banned);
  const playing = await until(
    () => plays(held),
    (got) => got.playlist === 200 && got.segment === 200,
    'the signed URL plays, playlist and segment',
  );
  expect(await plays(heldByBanned)).toMatchObject({ playlist: 200, segment: 200 });

  // The site takes the pass away (the admin's removal; a refund or a cancellation ends it the same way),
  // and bans the other viewer (a chat ban without end shuts the account out of the site).
  const { body: me } = await rest(stack, 'POST', '/graphql', { headers: headersOf(lapsing), body: { query: /* GraphQL */ `{ me { subscriptions { id } } }` } });
  const [subscription] = me.data.me.subscriptions as { id: string }[];
  const removed = await rest(
    stack,
    'PATCH',
    `/community/v1/update-entitlement/?accountId=${lapsing.accountId}&action=remove&id=${subscription.id}&grantRefund=false`,
    { headers: site.admin },
  );
  expect(removed.status).toBe(200);
  const ban = await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId: banned.accountId, reason: 'restreaming the show' } });
  expect(ban.status).toBe(201);
  const lapsedAt = Date.now();

  // The renewal asks the check again: refused, and nothing in its answer plays the stream.
  for (const [viewer, type] of [
    [lapsing, 'entitlement_required'],
    [banned, 'banned'],
  ] as const) {
    const renewal = await until(
      () => check(channelId, viewer),
      (answer) => answer.canIPlayResponse.contentCheck.access === 'none',
      'the check refuses the viewer whose pass went, and the banned one',
    );
    expect(renewal.canIPlayResponse.error.type).toBe(type);
    expect(renewal.canIPlayResponse.contentCheck.video?.video?.url ?? null).toBeNull();
    expect(JSON.stringify(renewal)).not.toContain(playbackName);
    expect(JSON.stringify(renewal)).not.toContain('/hls/');
  }

  // The URL already handed out is a bearer token until it expires: nginx refuses it from then on.
  const expiresAt = Math.max(expiryOf(held), expiryOf(heldByBanned));
  expect(expiresAt).toBeLessThanOrEqual(lapsedAt + TTL_SECONDS * 1000 + 1000); // expiry in whole seconds
  const refused = await until(
    // Read after the answer: the provider checked the token before this instant.
    async () => ({ held: await plays(held), banned: await plays(heldByBanned), at: Date.now() }),
    (got) => got.held.playlist === 403 && got.banned.playlist === 403,
    'the held URLs stop playing',
    (TTL_SECONDS + 15) * 1000,
  );
  expect(refused.at).toBeGreaterThanOrEqual(expiresAt);
  expect(refused.at).toBeLessThanOrEqual(lapsedAt + (TTL_SECONDS + 5) * 1000);
  // Its segments too: the newest one it played, and the newest one the stream has now, with the held tokens.
  const fresh = await liveUrlOf(channelId, keeping);
  const newest = (await plays(fresh)).segmentUrl!.split('/').at(-1)!;
  for (const segmentUrl of [playing.segmentUrl!, new URL(newest, held).toString(), new URL(newest, heldByBanned).toString()])
    expect((await fetch(segmentUrl)).status).toBe(403);

  // The viewer who kept the pass renews and plays on, past the first token's expiry.
  expect(expiryOf(fresh)).toBeGreaterThan(Date.now());
  expect(await plays(fresh)).toMatchObject({ playlist: 200, segment: 200 });
  await stopChild(encoder);
}, 180_000);
