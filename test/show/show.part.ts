/**
 * The show reaches viewers (docs/design.md "The show"), driven by a fake provider's webhooks: the channel's
 * state machine (repeated and out-of-order webhooks change nothing), what the content check offers
 * (the live video, the recording after the show, nothing to a refused viewer), channelStatus over
 * GraphQL, graphql-ws and graphql-sse, a channel's videos, deleting a channel, and bad input.
 */
import type { Client } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import type { Stack } from '../../stack';
import { graphql, rest } from '../helpers/http';
import { readStatus, registerShowProvider, showChannel, STATUS_SUBSCRIPTION, type ShowChannel } from '../helpers/show';
import { createChannel, createTestSite, grantEntitlement, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';
import { connectedClient } from '../helpers/viewer';
import { until } from '../helpers/wait';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let provider: FakeStreamProvider;
let contract: { id: string; authorization: string };
const clients: Client[] = [];
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  stack = await startTestStack({ env: { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png' } });
  site = await createTestSite(stack, 'Show site');
  other = await createTestSite(stack, 'Other site');
  provider = await startFakeStreamProvider();
  contract = await registerShowProvider(stack, site, provider);
});
afterAll(async () => {
  for (const cleanup of cleanups) cleanup();
  await provider.close();
  await stopAllWithClients(clients);
});

const viewer = (owner = site) => ({ 'x-service-client-id': owner.siteId });
const check = (channelId: string, headers: Record<string, string> = viewer()) =>
  rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { ...headers, 'x-service-device-id': 'device-1' } });
const status = (channelId: string) => readStatus(stack, site.siteId, channelId);

/** Events of one subscription, in order; `next()` waits for the next one. */
function collector<T>() {
  const events: T[] = [];
  const errors: unknown[] = [];
  let read = 0;
  return {
    events,
    errors,
    push: (event: T) => events.push(event),
    fail: (error: unknown) => errors.push(error),
    next: () =>
      until(() => events.length > read || errors.length > 0, Boolean, 'the next channelStatus event').then(() => {
        if (errors.length) throw new Error(JSON.stringify(errors));
        return events[read++];
      }),
  };
}

async function subscribeWs(channelId: string, owner = site) {
  const client = await connectedClient(stack, viewer(owner), clients);
  const got = collector<any>();
  cleanups.push(
    client.subscribe(
      { query: STATUS_SUBSCRIPTION, variables: { channelId } },
      {
        next: (result) => (result.errors ? got.fail(result.errors) : got.push(result.data?.channelStatus)),
        error: (error) => got.fail(error),
        complete: () => undefined,
      },
    ),
  );
  return got;
}

describe('channel ↔ stream', () => {
  it('makes a stream created for a channel its stream, and keeps the first one', async () => {
    const show = await showChannel(stack, site, contract);
    const second = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: show.channelId, contractId: contract.id } });
    expect(second.status).toBe(201);
    const page = await rest(stack, 'GET', `/pages/v2/${show.channelId}`, { headers: viewer() });
    expect(page.body.renderers.livestream).toMatchObject({ livestream_published: true, stream_id: show.stream._id });
  });
});

describe('the show state machine', () => {
  it('follows connected → active → disconnected → active → idle → connected, and nothing else moves it', async () => {
    const show = await showChannel(stack, site, contract);
    const state = async () => (await status(show.channelId)).state;
    expect(await status(show.channelId)).toMatchObject({ channelId: show.channelId, state: 'OFFLINE', live: false, startedAt: null, playbackUrl: null });

    // Out of the seed's order from OFFLINE: nothing moves.
    expect((await show.hook('active', 1000)).status).toBe(200);
    expect((await show.hook('disconnected', 1001)).status).toBe(200);
    expect(await state()).toBe('OFFLINE');

    await show.hook('connected', 2000);
    expect(await status(show.channelId)).toMatchObject({ state: 'STARTING', live: false });
    await show.hook('active', 3000);
    const live = await status(show.channelId);
    expect(live).toMatchObject({ state: 'LIVE', live: true, startedAt: 3000, playbackUrl: show.stream.playbackUrl });

    // Repeated and older deliveries change nothing.
    const repeated = await show.hook('active', 3000);
    expect(repeated.body).toMatchObject({ success: true, changed: false });
    await show.hook('connected', 1500);
    expect(await state()).toBe('LIVE');

    await show.hook('disconnected', 4000);
    expect(await status(show.channelId)).toMatchObject({ state: 'RECONNECTING', live: true, startedAt: 3000 });
    // An older active (from before the disconnect) does not bring it back.
    await show.hook('active', 3500);
    expect(await state()).toBe('RECONNECTING');
    await show.hook('active', 5000);
    expect(await status(show.channelId)).toMatchObject({ state: 'LIVE', startedAt: 3000 });
    await show.hook('idle', 6000);
    expect(await status(show.channelId)).toMatchObject({ state: 'ENDED', live: false, startedAt: null, playbackUrl: null });
    await show.hook('connected', 7000);
    expect(await state()).toBe('STARTING');
    await show.hook('active', 8000);
    expect(await status(show.channelId)).toMatchObject({ state: 'LIVE', startedAt: 8000 });
    // An idle that overtakes its disconnected ends the show; the late disconnected (the encoder's state) does not move it.
    await show.hook('idle', 9500);
    expect((await show.hook('disconnected', 9000)).status).toBe(200);
    expect(await status(show.channelId)).toMatchObject({ state: 'ENDED', live: false });
  });

  it('keeps a channel off while the admin’s switch is off, and one without a stream of ours live by the switch alone', async () => {
    const show = await showChannel(stack, site, contract);
    await show.hook('connected', 1);
    await show.hook('active', 2);
    const off = await rest(stack, 'PUT', `/pages/v3/${show.channelId}`, {
      headers: site.admin,
      body: { renderers: { livestream: { livestream_published: false, stream_id: show.stream._id } } },
    });
    expect(off.status).toBe(200);
    expect(await status(show.channelId)).toMatchObject({ state: 'LIVE', live: false, playbackUrl: null });
    expect((await check(show.channelId)).body.canIPlayResponse.contentCheck).toMatchObject({ live: false, video: { video: null } });

    const elsewhere = await rest(stack, 'POST', '/pages/v3', {
      headers: site.admin,
      body: {
        slug: `elsewhere-${Date.now()}`,
        type: 'channel',
        data: { name: 'Elsewhere' },
        active_renderers: { livestream: true },
        renderers: { livestream: { livestream_published: true } },
      },
    });
    expect(await status(elsewhere.body._id)).toMatchObject({ state: 'LIVE', live: true, liveBroadcastId: null, playbackUrl: null });
    expect((await check(elsewhere.body._id)).body.canIPlayResponse.contentCheck.live).toBe(true);
  });
});

describe('why a channel is not live (liveCheck)', () => {
  const LIVE_CHECK = /* GraphQL */ `liveCheck { streamId show streamOnAir channelLive switchesOff channelNamesStream reason }`;
  const streamRead = async (streamId: string) => {
    const reply = await rest(stack, 'GET', `/stream/v1/${streamId}`, { headers: site.admin });
    expect(reply.status).toBe(200);
    return reply.body.liveCheck;
  };
  const channelRead = async (channelId: string, headers: Record<string, string> = site.admin) =>
    graphql(stack, `query ChannelLiveCheck($id: ID!) { page(id: $id) { ${LIVE_CHECK} } }`, { id: channelId }, headers);
  const switchOff = (channelId: string, body: Record<string, unknown>) => rest(stack, 'PUT', `/pages/v3/${channelId}`, { headers: site.admin, body });

  it('says, on the admin’s reads of the stream and of its channel, which switch is off while the stream is LIVE', async () => {
    const show = await showChannel(stack, site, contract);
    const offline = { show: 'OFFLINE', streamOnAir: false, channelLive: false, switchesOff: [], channelNamesStream: true, reason: null };
    expect(await streamRead(show.stream._id)).toEqual(offline);
    await show.hook('connected', 1);
    await show.hook('active', 2);
    const live = { show: 'LIVE', streamOnAir: true, channelLive: true, switchesOff: [], channelNamesStream: true, reason: null };
    expect(await streamRead(show.stream._id)).toEqual(live);
    expect((await channelRead(show.channelId)).body).toEqual({ data: { page: { liveCheck: { streamId: show.stream._id, ...live } } } });

    expect((await switchOff(show.channelId, { active_renderers: { livestream: false } })).status).toBe(200);
    expect(await status(show.channelId)).toMatchObject({ state: 'LIVE', live: false });
    const playerOff = {
      ...live,
      channelLive: false,
      switchesOff: ['active_renderers.livestream'],
      reason: 'the stream is LIVE but its channel is not live: active_renderers.livestream is not true',
    };
    expect(await streamRead(show.stream._id)).toEqual(playerOff);
    expect((await channelRead(show.channelId)).body.data.page.liveCheck).toEqual({ streamId: show.stream._id, ...playerOff });

    // A channel with neither switch on: a LIVE stream says both.
    expect((await switchOff(show.channelId, { renderers: { livestream: { stream_id: show.stream._id } } })).status).toBe(200);
    const bothOff = await streamRead(show.stream._id);
    expect(bothOff).toMatchObject({ channelLive: false, switchesOff: ['active_renderers.livestream', 'renderers.livestream.livestream_published'] });
    expect(bothOff.reason).toMatch(/active_renderers\.livestream is not true; renderers\.livestream\.livestream_published is not true$/);

    // Both on again: live, nothing to tell.
    const on = { active_renderers: { livestream: true }, renderers: { livestream: { livestream_published: true, stream_id: show.stream._id } } };
    expect((await switchOff(show.channelId, on)).status).toBe(200);
    expect(await streamRead(show.stream._id)).toEqual(live);
  });

  it('says so when the channel plays another stream, and is an admin’s read only', async () => {
    const show = await showChannel(stack, site, contract);
    await show.hook('connected', 1);
    await show.hook('active', 2);
    const second = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: show.channelId, contractId: contract.id } });
    expect(second.status).toBe(201);
    expect(await streamRead(second.body._id)).toMatchObject({ show: 'OFFLINE', channelNamesStream: false, reason: null });
    const secondProvider = { Authorization: `Bearer ${contract.authorization}` };
    for (const [type, time] of [
      ['connected', 1],
      ['active', 2],
    ] as const)
      await rest(stack, 'POST', '/stream/v1/webhook', { headers: secondProvider, body: { type, id: second.body.providerStreamId, time } });
    const elsewhere = await streamRead(second.body._id);
    expect(elsewhere).toMatchObject({ show: 'LIVE', channelLive: false, switchesOff: [], channelNamesStream: false });
    expect(elsewhere.reason).toBe(
      `the stream is LIVE but its channel is not live: the channel plays another stream (renderers.livestream.stream_id is "${show.stream._id}")`,
    );

    const asViewer = await channelRead(show.channelId, viewer());
    expect(asViewer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('what a viewer gets', () => {
  it('offers the live video in the content check while live, then the recording after the show', async () => {
    const show = await showChannel(stack, site, contract, { content: { offline: { kind: 'recording' } } });
    const started = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin });
    expect(started.status).toBe(200);
    await show.hook('connected', 10);
    await show.hook('active', 20);
    const { contentCheck } = (await check(show.channelId)).body.canIPlayResponse;
    expect(contentCheck).toMatchObject({ access: 'full', live: true });
    expect(contentCheck.video.video).toMatchObject({
      _id: started.body.liveBroadcastId,
      type: 'live',
      url: show.stream.playbackUrl,
      title: expect.stringMatching(/^Show /),
    });
    const live = await status(show.channelId);
    expect(live).toMatchObject({ liveBroadcastId: started.body.liveBroadcastId, recordingVideoId: null });
    expect(live.streamSecond).toBeGreaterThanOrEqual(0);

    expect((await rest(stack, 'POST', `/stream/v1/${show.stream._id}/stop`, { headers: site.admin })).status).toBe(200);
    const vod = {
      durationSeconds: 42,
      liveBroadcastId: started.body.liveBroadcastId,
      vodId: `vod-${show.channelId}`,
      streamId: show.stream.providerStreamId,
      url: 'https://cdn.fake.test/show.m3u8',
    };
    const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${contract.authorization}` }, body: vod });
    expect(delivered.status).toBe(200);
    await show.hook('disconnected', 30);
    await show.hook('idle', 40);
    expect(await status(show.channelId)).toMatchObject({ state: 'ENDED', live: false, streamSecond: null, recordingVideoId: delivered.body.videoId });
    const after = (await check(show.channelId)).body.canIPlayResponse.contentCheck;
    expect(after).toMatchObject({ live: false, video: { video: { _id: delivered.body.videoId, type: 'vod', url: vod.url } } });
  });

  it('gives a gated channel’s URL only to a viewer the check lets play: not in channelStatus, not to the refused', async () => {
    const show = await showChannel(stack, site, contract, { gate: { active: true, kind: 'subscription', gate: { subscriptions: ['show-pass'] } } });
    await show.hook('connected', 10);
    await show.hook('active', 20);
    const gated = await status(show.channelId);
    expect(gated).toMatchObject({ state: 'LIVE', live: true, playbackUrl: null });

    const anonymous = await check(show.channelId);
    expect(anonymous.body.canIPlayResponse).toMatchObject({
      contentCheck: { access: 'none', live: true, video: { video: { type: 'live', url: null } } },
      error: { type: 'entitlement_required' },
    });
    const without = await site.signIn([]);
    const refused = await check(show.channelId, { ...viewer(), authorization: `Bearer ${without.token}` });
    expect(refused.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'none', live: true, video: { video: { type: 'live', url: null } } });
    const configuration = await rest(stack, 'GET', `/pages/v2/configuration/${show.channelId}`, { headers: viewer() });
    for (const answer of [anonymous, refused, configuration]) expect(JSON.stringify(answer.body)).not.toContain(show.stream.playbackUrl);

    const holder = await site.signIn([]);
    await grantEntitlement(stack, site.siteId, holder.accountId, 'show-pass');
    const allowed = await check(show.channelId, { ...viewer(), authorization: `Bearer ${holder.token}` });
    expect(allowed.body.canIPlayResponse.contentCheck).toMatchObject({
      access: 'full',
      live: true,
      video: { video: { type: 'live', url: show.stream.playbackUrl } },
    });
  });

  it('counts down to data.countdown.start_time while it is ahead', async () => {
    const startsAt = Date.now() + 3_600_000;
    const show = await showChannel(stack, site, contract, { countdown: { title: 'Kick-off', start_time: startsAt } });
    expect((await status(show.channelId)).countdown).toEqual({ title: 'Kick-off', startsAt });
  });
});

describe('channelStatus live', () => {
  it('pushes one event at subscribe and one per change over graphql-ws', async () => {
    const show = await showChannel(stack, site, contract);
    const got = await subscribeWs(show.channelId);
    expect(await got.next()).toMatchObject({ channelId: show.channelId, state: 'OFFLINE', live: false });
    await show.hook('connected', 100);
    expect(await got.next()).toMatchObject({ state: 'STARTING', live: false });
    await show.hook('active', 200);
    expect(await got.next()).toMatchObject({ state: 'LIVE', live: true, playbackUrl: show.stream.playbackUrl, startedAt: 200 });
    // A repeated webhook is no change: the next event is the disconnect's.
    await show.hook('active', 200);
    await show.hook('disconnected', 300);
    expect(await got.next()).toMatchObject({ state: 'RECONNECTING', live: true });
    expect(got.events).toHaveLength(4);
  });

  it('pushes the admin’s switch and ends the subscription of a deleted channel with NOT_FOUND', async () => {
    const show = await showChannel(stack, site, contract);
    await show.hook('connected', 100);
    await show.hook('active', 200);
    const got = await subscribeWs(show.channelId);
    expect(await got.next()).toMatchObject({ state: 'LIVE', live: true });
    const off = await rest(stack, 'PUT', `/pages/v3/${show.channelId}`, {
      headers: site.admin,
      body: { renderers: { livestream: { livestream_published: false, stream_id: show.stream._id } } },
    });
    expect(off.status).toBe(200);
    expect(await got.next()).toMatchObject({ state: 'LIVE', live: false, playbackUrl: null });
    expect((await rest(stack, 'DELETE', `/pages/v3/${show.channelId}`, { headers: site.admin })).status).toBe(200);
    await until(
      () => got.errors.length,
      (count) => count > 0,
      'the deleted channel’s error',
    );
    expect(JSON.stringify(got.errors)).toContain('NOT_FOUND');
  });

  it('pushes over SSE with graphql-sse’s client', async () => {
    const show = await showChannel(stack, site, contract);
    const client = createSseClient({ url: `${stack.url}/graphql/stream`, headers: viewer(), retryAttempts: 0 });
    cleanups.push(() => client.dispose());
    const got = collector<any>();
    cleanups.push(
      client.subscribe(
        { query: STATUS_SUBSCRIPTION, variables: { channelId: show.channelId } },
        {
          next: (result) => (result.errors ? got.fail(result.errors) : got.push((result.data as any)?.channelStatus)),
          error: (error) => got.fail(error),
          complete: () => undefined,
        },
      ),
    );
    expect(await got.next()).toMatchObject({ state: 'OFFLINE' });
    await show.hook('connected', 100);
    await show.hook('active', 200);
    await until(
      () => got.events.at(-1)?.state,
      (state) => state === 'LIVE',
      'LIVE over SSE',
    );
    expect(got.events.at(-1)).toMatchObject({ live: true, playbackUrl: show.stream.playbackUrl });
  });

  it('refuses a channel that is not one of the site’s with NOT_FOUND', async () => {
    const theirs = await createChannel(stack, other.siteId);
    for (const channelId of ['stage', theirs]) {
      const got = await subscribeWs(channelId);
      await until(
        () => got.errors.length,
        (count) => count > 0,
        'the refusal',
      );
      expect(JSON.stringify(got.errors)).toContain('NOT_FOUND');
      expect(got.events).toEqual([]);
    }
    const query = await graphql(stack, `{ channelStatus(channelId: "stage") { state } }`, {}, viewer());
    expect(query.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});

describe('videos (PUT /video/v3/{id}, GET /video/v3/?channelId=)', () => {
  async function deliveredVideo(show: ShowChannel, n: number) {
    const started = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin });
    await rest(stack, 'POST', `/stream/v1/${show.stream._id}/stop`, { headers: site.admin });
    const vod = {
      liveBroadcastId: started.body.liveBroadcastId,
      vodId: `vod-${n}-${show.channelId}`,
      streamId: show.stream.providerStreamId,
      url: `https://cdn.fake.test/${n}.m3u8`,
    };
    const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${contract.authorization}` }, body: vod });
    expect(delivered.status).toBe(200);
    return delivered.body.videoId as string;
  }

  it('lists a channel’s videos newest first and lets an admin set title and entitlements', async () => {
    const show = await showChannel(stack, site, contract);
    const first = await deliveredVideo(show, 1);
    const second = await deliveredVideo(show, 2);
    const list = await rest(stack, 'GET', `/video/v3/?channelId=${show.channelId}`, { headers: viewer() });
    expect(list.status).toBe(200);
    expect(list.body.results.map((video: { _id: string }) => video._id)).toEqual([second, first]);
    expect(list.body.pagination).toEqual({ limit: 50, offset: 0, totalCount: 2 });

    const holder = await site.signIn([]);
    await grantEntitlement(stack, site.siteId, holder.accountId, 'replay-pass');
    const put = await rest(stack, 'PUT', `/video/v3/${first}`, {
      headers: site.admin,
      body: { title: 'The final', description: 'Full match', subscriptions: ['replay-pass'] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _id: first, title: 'The final', description: 'Full match', subscriptions: [{ sku: 'replay-pass' }] });
  });

  it('refuses an unknown SKU by name, another site’s video (404), and the site ID alone (401); writes nothing', async () => {
    const show = await showChannel(stack, site, contract);
    const videoId = await deliveredVideo(show, 3);
    const unknown = await rest(stack, 'PUT', `/video/v3/${videoId}`, { headers: site.admin, body: { title: 'Changed', subscriptions: ['no-such-sku'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ success: false, message: expect.stringContaining('no-such-sku') });
    expect((await stack.database.prisma.video.findUniqueOrThrow({ where: { id: videoId } })).title).not.toBe('Changed');
    expect((await rest(stack, 'PUT', `/video/v3/${videoId}`, { headers: other.admin, body: { title: 'Theirs' } })).status).toBe(404);
    expect((await rest(stack, 'PUT', `/video/v3/${videoId}`, { headers: viewer(), body: { title: 'Viewer' } })).status).toBe(401);
    expect((await rest(stack, 'GET', `/video/v3/?channelId=${show.channelId}`, { headers: viewer(other) })).status).toBe(404);
    expect((await rest(stack, 'GET', '/video/v3/', { headers: viewer() })).status).toBe(400);
  });
});

describe('deleting a channel and bad provider input', () => {
  it('asks the provider to block the deleted channel’s stream (deleteStream)', async () => {
    const show = await showChannel(stack, site, contract);
    const deleted = await rest(stack, 'DELETE', `/pages/v3/${show.channelId}`, { headers: site.admin });
    expect(deleted.status).toBe(200);
    expect(provider.callsOf('deleteStream').map((call) => call.body)).toContainEqual({ id: show.stream.providerStreamId });
    expect((await stack.database.prisma.stream.findUniqueOrThrow({ where: { id: show.stream._id } })).ingestEnabled).toBe(false);
  });

  it('refuses a webhook for an unknown or another contract’s stream, or with a malformed time, changing nothing', async () => {
    const show = await showChannel(stack, site, contract);
    const theirs = await registerShowProvider(stack, other, provider);
    const headers = (authorization: string) => ({ Authorization: `Bearer ${authorization}` });
    const body = { type: 'connected', id: show.stream.providerStreamId, time: 10 };
    expect(
      (await rest(stack, 'POST', '/stream/v1/webhook', { headers: headers(contract.authorization), body: { ...body, id: 'no-such-stream' } })).status,
    ).toBe(404);
    expect((await rest(stack, 'POST', '/stream/v1/webhook', { headers: headers(theirs.authorization), body })).status).toBe(404);
    for (const time of ['soon', -1, 1e17]) {
      const bad = await rest(stack, 'POST', '/stream/v1/webhook', { headers: headers(contract.authorization), body: { ...body, time } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('time');
    }
    expect(await status(show.channelId)).toMatchObject({ state: 'OFFLINE' });
    const vod = {
      liveBroadcastId: '00000000-0000-4000-8000-000000000000',
      vodId: 'vod-unknown',
      streamId: show.stream.providerStreamId,
      url: 'https://cdn.fake.test/x.m3u8',
    };
    expect((await rest(stack, 'POST', '/video/v3/vod', { headers: headers(contract.authorization), body: vod })).status).toBe(404);
  });
});
