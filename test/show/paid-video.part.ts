/**
 * Paid video stays paid (docs/design.md "Paid video stays paid", rule 1): every kind of video a channel plays —
 * live, its recording, the configured offline video, a scheduled one — against every reason the content
 * check refuses — a subscription gate, a login gate, a password gate, the video's own entitlement, the
 * site's device limit, a lapsed pass, a ban from the site — through REST and GraphQL. A refused viewer gets what a paywall
 * shows and never the URL: not in the check, the page configuration, channelStatus or a listing; the two
 * transports answer alike. A viewer who may play gets the URL, and a developer key always.
 */
import type { Stack } from '../../stack';
import { graphql, rest, type Reply } from '../helpers/http';
import { readStatus, registerShowProvider, showChannel } from '../helpers/show';
import { createTestSite, grantEntitlement, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

let stack: Stack;
let site: TestSite;
let provider: FakeStreamProvider;
let contract: { id: string; authorization: string };
/** An account holding both passes (and the SKUs' creation: a video may only ask for a SKU of the site). */
let holder: { accountId: string; token: string };

const PASS = 'gold-pass';
const VIDEO_PASS = 'replay-pass';
const PASSWORD = 'open sesame';
const VIDEO_FIELDS = /* GraphQL */ `_id: id siteId title description type url durationSeconds player thumbnail uploadStatus subscriptions: requiredEntitlements { sku } tags created modified`;
const CHECK = /* GraphQL */ `query Check($pageId: ID!, $deviceId: String!, $password: String) {
  contentCheck(pageId: $pageId, deviceId: $deviceId, password: $password) {
    canIPlayResponse { contentCheck { access live video { video { ${VIDEO_FIELDS} } } } error { type message } }
  }
}`;
const LISTING = /* GraphQL */ `query Listing($channelId: ID!, $deviceId: String) { channelVideos(channelId: $channelId, deviceId: $deviceId) { results { ${VIDEO_FIELDS} } } }`;

beforeAll(async () => {
  stack = await startTestStack({ env: { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png' } });
  site = await createTestSite(stack, 'Paid video site');
  // One device per account: a second device is the device limit's refusal.
  const limit = await graphql(stack, /* GraphQL */ `mutation { updateSite(input: { deviceLimit: 1 }) { deviceLimit } }`, {}, site.admin);
  expect(limit.body.data.updateSite.deviceLimit).toBe(1);
  provider = await startFakeStreamProvider();
  contract = await registerShowProvider(stack, site, provider);
  holder = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, holder.accountId, PASS);
  await grantEntitlement(stack, site.siteId, holder.accountId, VIDEO_PASS);
});
afterAll(async () => {
  await provider.close();
  await stopAll();
});

type Kind = 'live' | 'recording' | 'offline' | 'scheduled';
type Reason = 'gate' | 'login' | 'password' | 'video_entitlement' | 'device_limit' | 'lapsed_pass' | 'banned';

const GATES: Record<Reason, Record<string, unknown>> = {
  gate: { gate: { active: true, kind: 'subscription', gate: { subscriptions: [PASS] } } },
  lapsed_pass: { gate: { active: true, kind: 'subscription', gate: { subscriptions: [PASS] } } },
  login: { gate: { active: true, kind: 'login' } },
  device_limit: { gate: { active: true, kind: 'login' } },
  password: { gate: { active: true, kind: 'password', gate: { password: PASSWORD } } },
  video_entitlement: {},
  // A pass holder on a channel its pass opens, refused for the ban alone.
  banned: { gate: { active: true, kind: 'subscription', gate: { subscriptions: [PASS] } } },
};
const ERROR_TYPES: Record<Reason, string> = {
  gate: 'entitlement_required',
  lapsed_pass: 'entitlement_required',
  login: 'login_required',
  device_limit: 'device_limit',
  password: 'gate_password',
  video_entitlement: 'video_entitlement_required',
  banned: 'banned',
};

/** A channel playing a video of `kind` now, gated as `gate` says; the video's URL and type. */
interface Playing {
  channelId: string;
  url: string;
  type: 'live' | 'vod';
  /** The stored Video (not for live), for its entitlements. */
  videoId: string | null;
}

let vods = 0;

/** A delivered recording of a show of `channelId` (the provider's VOD delivery), as a Video of the channel. */
async function deliverRecording(stream: { _id: string; providerStreamId: string }): Promise<{ videoId: string; url: string }> {
  const started = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
  expect(started.status).toBe(200);
  expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/stop`, { headers: site.admin })).status).toBe(200);
  const url = `https://cdn.fake.test/paid-${(vods += 1)}.m3u8`;
  const body = {
    durationSeconds: 60,
    liveBroadcastId: started.body.liveBroadcastId,
    vodId: `paid-vod-${vods}-${Date.now()}`,
    streamId: stream.providerStreamId,
    url,
  };
  const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${contract.authorization}` }, body });
  expect(delivered.status).toBe(200);
  return { videoId: delivered.body.videoId, url };
}

async function playing(kind: Kind, gate: Record<string, unknown>): Promise<Playing> {
  if (kind === 'live') {
    const show = await showChannel(stack, site, contract, gate);
    await show.hook('connected', 10);
    await show.hook('active', 20);
    return { channelId: show.channelId, url: show.stream.playbackUrl, type: 'live', videoId: null };
  }
  if (kind === 'recording') {
    const show = await showChannel(stack, site, contract, { ...gate, content: { offline: { kind: 'recording' } } });
    await show.hook('connected', 10);
    await show.hook('active', 20);
    const recording = await deliverRecording(show.stream);
    await show.hook('disconnected', 30);
    await show.hook('idle', 40);
    return { channelId: show.channelId, url: recording.url, type: 'vod', videoId: recording.videoId };
  }
  // The offline and scheduled videos: a recording of another channel's show, played by this one.
  const source = await showChannel(stack, site, contract);
  const recording = await deliverRecording(source.stream);
  const video = { _id: recording.videoId };
  const data =
    kind === 'offline'
      ? { content: { offline: { kind: 'video', video } } }
      : { schedule: [{ kind: 'video', start_time: Date.now() - 60_000, duration: 3600, video }] };
  const show = await showChannel(stack, site, contract, { ...gate, ...data });
  return { channelId: show.channelId, url: recording.url, type: 'vod', videoId: recording.videoId };
}

/** The viewer a reason refuses: its headers and the device it plays on. */
async function refusedViewer(reason: Reason): Promise<{ headers: Record<string, string>; deviceId: string; password: string | null }> {
  const base = { 'x-service-client-id': site.siteId };
  if (reason === 'gate' || reason === 'login') return { headers: base, deviceId: 'anonymous-tv', password: null };
  if (reason === 'password') return { headers: { ...base, 'x-service-gate-password': 'guess' }, deviceId: 'anonymous-tv', password: 'guess' };
  const account = await site.signIn([]);
  const headers = { ...base, authorization: `Bearer ${account.token}` };
  if (reason === 'lapsed_pass') {
    await grantEntitlement(stack, site.siteId, account.accountId, PASS);
    await stack.database.prisma.subscription.updateMany({ where: { accountId: account.accountId }, data: { currentPeriodEnd: new Date(Date.now() - 1000) } });
  }
  if (reason === 'banned') {
    await grantEntitlement(stack, site.siteId, account.accountId, PASS);
    const ban = await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId: account.accountId, reason: 'abuse' } });
    expect(ban.status).toBe(201);
  }
  if (reason === 'device_limit') {
    await countDevice(headers, 'first-device');
    return { headers, deviceId: 'second-device', password: null };
  }
  return { headers, deviceId: 'phone', password: null };
}

let free = 0;

/** The account plays on `deviceId` (a free channel's check counts it against the site's limit of one). */
async function countDevice(headers: Record<string, string>, deviceId: string) {
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: { slug: `free-${(free += 1)}-${Date.now()}`, type: 'channel', data: { name: 'Free' } },
  });
  const counted = await rest(stack, 'GET', `/pages/v2/content/id/${page.body._id}`, { headers: { ...headers, 'x-service-device-id': deviceId } });
  expect(counted.body.canIPlayResponse.contentCheck.access).toBe('full');
}

/** The check over REST and over GraphQL, as the same viewer. */
async function check(play: Playing, headers: Record<string, string>, deviceId: string, password: string | null) {
  const restReply = await rest(stack, 'GET', `/pages/v2/content/id/${play.channelId}`, { headers: { ...headers, 'x-service-device-id': deviceId } });
  const graphqlReply = await graphql(stack, CHECK, { pageId: play.channelId, deviceId, password }, headers);
  return { restReply, graphqlReply };
}

const noUrl = (reply: Reply, url: string) => expect(JSON.stringify(reply.body)).not.toContain(url);

const KINDS: Kind[] = ['live', 'recording', 'offline', 'scheduled'];
const REASONS: Reason[] = ['gate', 'login', 'password', 'video_entitlement', 'device_limit', 'lapsed_pass', 'banned'];
// The live video asks no entitlement of its own: its channel's gate is what sells it.
const CASES = KINDS.flatMap((kind) =>
  REASONS.filter((reason) => !(kind === 'live' && reason === 'video_entitlement')).map((reason) => [kind, reason] as const),
);

describe('a refused viewer gets no URL, of any video', () => {
  it.each(CASES)('%s video, refused for %s', async (kind, reason) => {
    const play = await playing(kind, GATES[reason]);
    if (reason === 'video_entitlement') {
      const paid = await rest(stack, 'PUT', `/video/v3/${play.videoId}`, { headers: site.admin, body: { subscriptions: [VIDEO_PASS] } });
      expect(paid.status).toBe(200);
    }
    const viewer = await refusedViewer(reason);
    const { restReply, graphqlReply } = await check(play, viewer.headers, viewer.deviceId, viewer.password);
    expect(restReply.status).toBe(200);
    expect(graphqlReply.body.errors).toBeUndefined();
    const { canIPlayResponse } = restReply.body;
    expect(canIPlayResponse.error.type).toBe(ERROR_TYPES[reason]);
    expect(canIPlayResponse.contentCheck.access).toBe('none');
    // What a paywall shows stays; the URL does not.
    const video = canIPlayResponse.contentCheck.video.video;
    expect(video).toMatchObject({ _id: expect.any(String), title: expect.any(String), type: play.type, url: null });
    expect(video).toHaveProperty('thumbnail');
    expect(video).toHaveProperty('durationSeconds');
    expect(video.subscriptions).toEqual(reason === 'video_entitlement' ? [{ sku: VIDEO_PASS }] : []);
    if (play.videoId) expect(video._id).toBe(play.videoId);
    noUrl(restReply, play.url);
    noUrl(graphqlReply, play.url);
    // REST and GraphQL agree.
    const viaGraphql = graphqlReply.body.data.contentCheck.canIPlayResponse;
    expect(viaGraphql.contentCheck.video.video).toEqual(video);
    expect(viaGraphql.error).toEqual(canIPlayResponse.error);
    expect(viaGraphql.contentCheck.access).toBe('none');

    // Nor in the page configuration, the channel's status (what pushes carry), or the channel's listing.
    noUrl(await rest(stack, 'GET', `/pages/v2/configuration/${play.channelId}`, { headers: viewer.headers }), play.url);
    expect(JSON.stringify(await readStatus(stack, site.siteId, play.channelId))).not.toContain(play.url);
    const listed = await rest(stack, 'GET', `/video/v3/?channelId=${play.channelId}`, {
      headers: { ...viewer.headers, 'x-service-device-id': viewer.deviceId },
    });
    expect(listed.status).toBe(200);
    noUrl(listed, play.url);
    const listedGraphql = await graphql(stack, LISTING, { channelId: play.channelId, deviceId: viewer.deviceId }, viewer.headers);
    expect(listedGraphql.body.data.channelVideos.results).toEqual(listed.body.results);
    noUrl(listedGraphql, play.url);

    // The viewer who may play gets it; a developer key always lists it.
    if (reason !== 'password' && reason !== 'device_limit') {
      const allowed = await rest(stack, 'GET', `/pages/v2/content/id/${play.channelId}`, {
        headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${holder.token}`, 'x-service-device-id': 'holder-tv' },
      });
      expect(allowed.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'full', video: { video: { url: play.url } } });
    }
    if (reason === 'device_limit' && kind === 'recording') {
      // The account's counted device lists the recording with its URL; without a device (a new one) it does not.
      const counted = await rest(stack, 'GET', `/video/v3/?channelId=${play.channelId}`, {
        headers: { ...viewer.headers, 'x-service-device-id': 'first-device' },
      });
      expect(counted.body.results).toEqual([expect.objectContaining({ _id: play.videoId, url: play.url })]);
      noUrl(await rest(stack, 'GET', `/video/v3/?channelId=${play.channelId}`, { headers: viewer.headers }), play.url);
    }
    if (kind === 'recording') {
      const admin = await rest(stack, 'GET', `/video/v3/?channelId=${play.channelId}`, { headers: site.admin });
      expect(admin.body.results).toEqual([expect.objectContaining({ _id: play.videoId, url: play.url })]);
    }
  });
});

describe('listings', () => {
  it('give the site ID alone a URL only for the videos it may play, and a developer key every URL', async () => {
    const channel = await showChannel(stack, site, contract);
    const free = await deliverRecording(channel.stream);
    const paid = await deliverRecording(channel.stream);
    expect((await rest(stack, 'PUT', `/video/v3/${paid.videoId}`, { headers: site.admin, body: { subscriptions: [VIDEO_PASS] } })).status).toBe(200);
    const urlsOf = (reply: Reply) => Object.fromEntries(reply.body.results.map((video: { _id: string; url: string | null }) => [video._id, video.url]));

    const anonymous = await rest(stack, 'GET', `/video/v3/?channelId=${channel.channelId}`, { headers: { 'x-service-client-id': site.siteId } });
    expect(urlsOf(anonymous)).toEqual({ [free.videoId]: free.url, [paid.videoId]: null });
    const passHolder = { 'x-service-client-id': site.siteId, authorization: `Bearer ${holder.token}`, 'x-service-device-id': 'holder-tv' };
    expect(urlsOf(await rest(stack, 'GET', `/video/v3/?channelId=${channel.channelId}`, { headers: passHolder }))).toEqual({
      [free.videoId]: free.url,
      [paid.videoId]: paid.url,
    });
    expect(urlsOf(await rest(stack, 'GET', `/video/v3/?channelId=${channel.channelId}`, { headers: site.admin }))).toEqual({
      [free.videoId]: free.url,
      [paid.videoId]: paid.url,
    });

    // One video by ID: a signed-in viewer without the pass reads it without its URL; over GraphQL alike.
    const lacking = await site.signIn([]);
    const one = await graphql(
      stack,
      /* GraphQL */ `query One($id: ID!) { video(id: $id) { id url requiredSkus } }`,
      { id: paid.videoId },
      {
        'x-service-client-id': site.siteId,
        authorization: `Bearer ${lacking.token}`,
      },
    );
    expect(one.body.data.video).toEqual({ id: paid.videoId, url: null, requiredSkus: [VIDEO_PASS] });

    // A gated channel's free video is the gate's too.
    const gated = await showChannel(stack, site, contract, GATES.gate);
    const behind = await deliverRecording(gated.stream);
    const listed = await rest(stack, 'GET', `/video/v3/?channelId=${gated.channelId}`, { headers: { 'x-service-client-id': site.siteId } });
    expect(urlsOf(listed)).toEqual({ [behind.videoId]: null });
    expect(urlsOf(await rest(stack, 'GET', `/video/v3/?channelId=${gated.channelId}`, { headers: passHolder }))).toEqual({ [behind.videoId]: behind.url });
  });

  it('keep the free, open channel’s URLs for the site ID alone', async () => {
    const open = await playing('offline', {});
    const checked = await rest(stack, 'GET', `/pages/v2/content/id/${open.channelId}`, {
      headers: { 'x-service-client-id': site.siteId, 'x-service-device-id': 'tv' },
    });
    expect(checked.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'full', video: { video: { _id: open.videoId, url: open.url } } });
  });
});
