/**
 * Signed playback, the service's side (docs/design.md "Paid video stays paid"): the contract's key comes with
 * `register`'s answer when the provider asks for it (shown once, rotatable with PUT), and the content
 * check and the listings then give a gated channel's or a paid video's URL signed for that stream or
 * recording, until PLAYBACK_TOKEN_TTL_SECONDS or a preview's end; open channels, free videos, a developer
 * key and a provider that takes no signing keep plain URLs. A gated show going live pushes each signed-in
 * viewer that named its device its own signed URL when its check lets it play (graphql-ws and graphql-sse,
 * the clients people use), and no URL to anyone else. Driven by a fake provider; the token is checked with
 * shared/playbackSigning.ts as a provider checks it.
 */
import type { Client } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import type { Stack } from '../../stack';
import { unsignedPath, verifyPlaybackToken, type PlaybackKey } from '../../shared/playbackSigning';
import { graphql, rest } from '../helpers/http';
import { showChannel, STATUS_SUBSCRIPTION } from '../helpers/show';
import { createTestSite, grantEntitlement, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { connectedClient } from '../helpers/viewer';
import { until } from '../helpers/wait';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

const TTL = 120;
let stack: Stack;
let site: TestSite;
let provider: FakeStreamProvider;
let signed: { id: string; authorization: string; playbackSigning: { scheme: string; keyId: string; key: string } };
let plain: { id: string; authorization: string };
let holder: { accountId: string; token: string };

let names = 0;
const register = (extra: Record<string, unknown> = {}) =>
  rest(stack, 'POST', '/streamprovider/v1/register', {
    headers: site.admin,
    body: { name: `Signing provider ${(names += 1)}`, urls: provider.urls(), accountCredentials: {}, useAccount: false, ...extra },
  });

beforeAll(async () => {
  stack = await startTestStack({ env: { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png', PLAYBACK_TOKEN_TTL_SECONDS: String(TTL) } });
  site = await createTestSite(stack, 'Signed site');
  provider = await startFakeStreamProvider();
  const registered = await register({ playbackSigning: { scheme: 'path-hmac-sha256' } });
  expect(registered.status).toBe(201);
  signed = registered.body;
  const without = await register();
  expect(without.status).toBe(201);
  plain = without.body;
  holder = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, holder.accountId, 'pass');
});
const clients: Client[] = [];
afterAll(async () => {
  await provider.close();
  await stopAllWithClients(clients);
});

const GATE = { gate: { active: true, kind: 'subscription', gate: { subscriptions: ['pass'] } } };
const holderHeaders = () => ({ 'x-service-client-id': site.siteId, authorization: `Bearer ${holder.token}` });

async function liveChannel(contract: { id: string; authorization: string }, data: Record<string, unknown>) {
  const show = await showChannel(stack, site, contract, data);
  await show.hook('connected', 10);
  await show.hook('active', 20);
  return show;
}

async function checkedUrl(channelId: string, headers: Record<string, string>): Promise<string | null> {
  const reply = await rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { ...headers, 'x-service-device-id': 'tv' } });
  expect(reply.status).toBe(200);
  return reply.body.canIPlayResponse.contentCheck.video.video?.url ?? null;
}

/** The URL's token verified as a provider verifies it: for `plainUrl`'s path, under `key`; its expiry (Unix s). */
function tokenOf(url: string, plainUrl: string, key: PlaybackKey): number {
  const parsed = unsignedPath(new URL(url).pathname);
  expect(parsed).not.toBeNull();
  expect(`${new URL(url).origin}${parsed!.path}`).toBe(plainUrl);
  expect(verifyPlaybackToken(parsed!.token, new URL(plainUrl).pathname, [key], Date.now())).toBe(true);
  return Number(parsed!.token.split('.')[0]);
}

it('shows the key once in register’s answer, refuses an unknown scheme, and keeps plain contracts plain', async () => {
  expect(signed.playbackSigning).toEqual({ scheme: 'path-hmac-sha256', keyId: expect.any(String), key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  expect(plain).toMatchObject({ playbackSigning: null });
  const bad = await register({ playbackSigning: { scheme: 'md5-please' } });
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({ success: false, message: expect.stringContaining('playbackSigning.scheme') });
  // An update without playbackSigning shows no key, and says the contract signs.
  const touched = await rest(stack, 'PUT', `/streamprovider/v1/${signed.id}`, { headers: { Authorization: `Bearer ${signed.authorization}` }, body: {} });
  expect(touched.body).toMatchObject({ signedPlayback: true, playbackSigning: null });
  const plainContract = await rest(stack, 'PUT', `/streamprovider/v1/${plain.id}`, { headers: { Authorization: `Bearer ${plain.authorization}` }, body: {} });
  expect(plainContract.body).toMatchObject({ signedPlayback: false, playbackSigning: null });
});

it('signs a gated channel’s live URL for the viewer it lets play, for one TTL, bound to that stream', async () => {
  const show = await liveChannel(signed, GATE);
  const before = Math.floor(Date.now() / 1000);
  const url = await checkedUrl(show.channelId, holderHeaders());
  expect(url).not.toBe(show.stream.playbackUrl);
  const expires = tokenOf(url!, show.stream.playbackUrl, signed.playbackSigning);
  expect(expires).toBeGreaterThanOrEqual(before + TTL);
  expect(expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + TTL);
  // Another stream's path does not take it.
  const other = await liveChannel(signed, GATE);
  const token = unsignedPath(new URL(url!).pathname)!.token;
  expect(verifyPlaybackToken(token, new URL(other.stream.playbackUrl).pathname, [signed.playbackSigning], Date.now())).toBe(false);

  // GraphQL gives the same, signed.
  const viaGraphql = await graphql(
    stack,
    /* GraphQL */ `query Check($pageId: ID!) { contentCheck(pageId: $pageId, deviceId: "tv") { canIPlayResponse { contentCheck { video { video { url } } } } } }`,
    { pageId: show.channelId },
    holderHeaders(),
  );
  tokenOf(viaGraphql.body.data.contentCheck.canIPlayResponse.contentCheck.video.video.url, show.stream.playbackUrl, signed.playbackSigning);
});

it('ends a preview’s token with the preview', async () => {
  const show = await liveChannel(signed, { gate: { ...GATE.gate, preview_seconds: 45 } });
  const url = await checkedUrl(show.channelId, { 'x-service-client-id': site.siteId });
  const expires = tokenOf(url!, show.stream.playbackUrl, signed.playbackSigning);
  expect(expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 45);
  expect(expires).toBeGreaterThan(Math.floor(Date.now() / 1000) + 30);
});

it('keeps open channels, free videos and a provider without signing plain; signs a paid video in the check and the listing', async () => {
  const open = await liveChannel(signed, {});
  expect(await checkedUrl(open.channelId, { 'x-service-client-id': site.siteId })).toBe(open.stream.playbackUrl);
  const unsignedProvider = await liveChannel(plain, GATE);
  expect(await checkedUrl(unsignedProvider.channelId, holderHeaders())).toBe(unsignedProvider.stream.playbackUrl);

  // A recording of an open channel, then made paid.
  const started = await rest(stack, 'POST', `/stream/v1/${open.stream._id}/start`, { headers: site.admin });
  await rest(stack, 'POST', `/stream/v1/${open.stream._id}/stop`, { headers: site.admin });
  const vodUrl = 'https://cdn.fake.test/vod/v-1/index.m3u8';
  const vod = {
    durationSeconds: 5,
    liveBroadcastId: started.body.liveBroadcastId,
    vodId: `signed-${Date.now()}`,
    streamId: open.stream.providerStreamId,
    url: vodUrl,
  };
  const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${signed.authorization}` }, body: vod });
  const listingUrl = async (headers: Record<string, string>) =>
    (await rest(stack, 'GET', `/video/v3/?channelId=${open.channelId}`, { headers: { ...headers, 'x-service-device-id': 'tv' } })).body.results[0].url;
  expect(await listingUrl({ 'x-service-client-id': site.siteId })).toBe(vodUrl);
  await rest(stack, 'PUT', `/video/v3/${delivered.body.videoId}`, { headers: site.admin, body: { subscriptions: ['pass'] } });
  tokenOf(await listingUrl(holderHeaders()), vodUrl, signed.playbackSigning);
  expect(await listingUrl({ 'x-service-client-id': site.siteId })).toBeNull();
  expect(await listingUrl(site.admin)).toBe(vodUrl);

  const replay = await showChannel(stack, site, signed, { content: { offline: { kind: 'video', video: { _id: delivered.body.videoId } } } });
  tokenOf((await checkedUrl(replay.channelId, holderHeaders()))!, vodUrl, signed.playbackSigning);
});

it('rotates the key with PUT: the answer shows the new key once, and URLs are signed with it from then on', async () => {
  const show = await liveChannel(signed, GATE);
  tokenOf((await checkedUrl(show.channelId, holderHeaders()))!, show.stream.playbackUrl, signed.playbackSigning);
  const rotated = await rest(stack, 'PUT', `/streamprovider/v1/${signed.id}`, {
    headers: { Authorization: `Bearer ${signed.authorization}` },
    body: { playbackSigning: { scheme: 'path-hmac-sha256' } },
  });
  expect(rotated.status).toBe(200);
  expect(rotated.body).toMatchObject({ signedPlayback: true, playbackSigning: { scheme: 'path-hmac-sha256', keyId: expect.any(String) } });
  expect(rotated.body.playbackSigning.keyId).not.toBe(signed.playbackSigning.keyId);
  const url = (await checkedUrl(show.channelId, holderHeaders()))!;
  tokenOf(url, show.stream.playbackUrl, rotated.body.playbackSigning);
  expect(verifyPlaybackToken(unsignedPath(new URL(url).pathname)!.token, new URL(show.stream.playbackUrl).pathname, [signed.playbackSigning], Date.now())).toBe(
    false,
  );
  signed = { ...signed, playbackSigning: rotated.body.playbackSigning };
});

describe('a gated show going live', () => {
  type Viewer = { accountId: string; token: string } | null;
  const connection = (viewer: Viewer, deviceId: string | null) => ({
    'x-service-client-id': site.siteId,
    ...(viewer ? { authorization: `Bearer ${viewer.token}` } : {}),
    ...(deviceId ? { 'x-service-device-id': deviceId } : {}),
  });

  /** The channelStatus events of a graphql-ws subscription with these connectionParams. */
  async function subscribed(channelId: string, params: Record<string, string>) {
    const events: { state: string; live: boolean; playbackUrl: string | null }[] = [];
    const client = await connectedClient(stack, params, clients);
    client.subscribe(
      { query: STATUS_SUBSCRIPTION, variables: { channelId } },
      { next: (result) => void events.push((result.data as any).channelStatus), error: () => undefined, complete: () => undefined },
    );
    await until(
      () => events.length,
      (count) => count > 0,
      'the first status',
    );
    return events;
  }

  const liveEvent = (events: { state: string; live: boolean; playbackUrl: string | null }[]) =>
    until(() => events.find((event) => event.state === 'LIVE'), Boolean, 'the LIVE status').then((event) => event!);

  it('pushes each viewer its check lets play its own signed URL, over graphql-ws and SSE, and no URL to anyone else', async () => {
    const show = await showChannel(stack, site, signed, GATE);
    await show.hook('connected', 10);
    // The viewers open the page: each one's check runs (the holder's twice: two devices).
    const [stranger, banned] = [await site.signIn([]), await site.signIn([])];
    await grantEntitlement(stack, site.siteId, banned.accountId, 'pass');
    const opened = async (viewer: Viewer, deviceId: string) =>
      rest(stack, 'GET', `/pages/v2/content/id/${show.channelId}`, { headers: { ...connection(viewer, null), 'x-service-device-id': deviceId } });
    for (const [viewer, device] of [
      [holder, 'tv'],
      [holder, 'laptop'],
      [stranger, 'tv'],
      [banned, 'tv'],
      [null, 'tv'],
    ] as const)
      expect((await opened(viewer, device)).status).toBe(200);
    const ban = await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId: banned.accountId } });
    expect(ban.status).toBe(201);

    const holderWs = await subscribed(show.channelId, connection(holder, 'tv'));
    const holderNoDevice = await subscribed(show.channelId, connection(holder, null));
    const strangerWs = await subscribed(show.channelId, connection(stranger, 'tv'));
    const bannedWs = await subscribed(show.channelId, connection(banned, 'tv'));
    const anonymousWs = await subscribed(show.channelId, connection(null, 'tv'));
    const sse = createSseClient({ url: `${stack.url}/graphql/stream`, headers: connection(holder, 'laptop'), retryAttempts: 0 });
    const holderSse: { state: string; playbackUrl: string | null }[] = [];
    const stopSse = sse.subscribe(
      { query: STATUS_SUBSCRIPTION, variables: { channelId: show.channelId } },
      { next: (result) => void holderSse.push((result.data as any).channelStatus), error: () => undefined, complete: () => undefined },
    );
    await until(
      () => holderSse.length,
      (count) => count > 0,
      'the first status over SSE',
    );

    await show.hook('active', 20);
    for (const events of [holderWs, holderSse]) {
      const live = await liveEvent(events as any);
      const expires = tokenOf(live.playbackUrl!, show.stream.playbackUrl, signed.playbackSigning);
      expect(expires * 1000).toBeGreaterThan(Date.now() + (TTL - 5) * 1000);
      expect(expires * 1000).toBeLessThanOrEqual(Date.now() + TTL * 1000 + 1000);
    }
    for (const events of [holderNoDevice, strangerWs, bannedWs, anonymousWs]) expect((await liveEvent(events)).playbackUrl).toBeNull();
    // The status read with the site ID alone carries none either.
    const read = await graphql(
      stack,
      `query S($c: ID!) { channelStatus(channelId: $c) { live playbackUrl } }`,
      { c: show.channelId },
      { 'x-service-client-id': site.siteId },
    );
    expect(read.body.data.channelStatus).toEqual({ live: true, playbackUrl: null });
    stopSse();
    sse.dispose();
  });
});
