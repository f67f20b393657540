/**
 * The content check (canIPlay) computed for real: free, gated without and with the entitlement (held in
 * the community subgraph), preview time, password and login gates, live and scheduled video, the video's
 * own entitlement, and the site's device limit.
 */
import { createTestSite, grantEntitlement, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Gated site');
  other = await createTestSite(stack, 'Other site');
});
afterAll(stopAll);

let count = 0;
async function channel(data: Record<string, unknown>, extra: Record<string, unknown> = {}, owner = site) {
  const reply = await rest(stack, 'POST', '/pages/v3', {
    headers: owner.admin,
    body: { slug: `gated-${++count}`, type: 'channel', data: { name: `Channel ${count}`, ...data }, ...extra },
  });
  expect(reply.status).toBe(200);
  return reply.body as { _id: string; slug: string };
}

function check(pageId: string, headers: Record<string, string>, device: string | null = 'device-1') {
  return rest(stack, 'GET', `/pages/v2/content/id/${pageId}`, { headers: { ...headers, ...(device ? { 'x-service-device-id': device } : {}) } });
}

const viewer = () => ({ 'x-service-client-id': site.siteId });
const signedIn = (token: string) => ({ 'x-service-client-id': site.siteId, authorization: `Bearer ${token}` });
const subscriptionGate = (skus: unknown[], preview?: number) => ({
  gate: {
    active: true,
    kind: 'subscription',
    gate: { subscriptions: skus, title: 'Get a ticket' },
    ...(preview === undefined ? {} : { preview_seconds: preview }),
  },
});

it('lets anyone play a free channel, and answers the channel with the check', async () => {
  const page = await channel({ gate: { active: false, kind: 'none' } });
  const reply = await check(page._id, viewer());
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    canIPlayResponse: {
      contentCheck: {
        access: 'full',
        live: false,
        offset: 0,
        previewTimeRemainingSeconds: 0,
        userHasChannelGateEntitlement: true,
        userHasVideoEntitlement: true,
        video: { video: null },
      },
      deviceCheck: { accountDevices: {}, accountOverDeviceLimit: false, siteDeviceLimit: 3 },
      error: null,
    },
    channel: expect.objectContaining({ _id: page._id, slug: page.slug, collection: 'pages' }),
  });
  const bySlug = await rest(stack, 'GET', `/page/v2/content/slug/${page.slug}`, { headers: { ...viewer(), 'x-service-device-id': 'd' } });
  expect(bySlug.body.canIPlayResponse.contentCheck.access).toBe('full');
});

it('requires x-service-device-id (400) and answers 404 for another site’s channel', async () => {
  const page = await channel({});
  const missing = await check(page._id, viewer(), null);
  expect(missing.status).toBe(400);
  expect(missing.body.message).toMatch(/x-service-device-id/);
  const theirs = await channel({}, {}, other);
  expect((await check(theirs._id, viewer())).status).toBe(404);
  expect((await rest(stack, 'GET', `/pages/v2/content/slug/${theirs.slug}`, { headers: { ...viewer(), 'x-service-device-id': 'd' } })).status).toBe(404);
});

it('refuses a gated channel without the entitlement and plays it with the entitlement', async () => {
  const page = await channel(subscriptionGate(['season-pass', { sku: 'day-pass', name: 'Day pass' }]));
  const { accountId, token } = await site.signIn([]);

  const anonymous = await check(page._id, viewer());
  expect(anonymous.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'none', userHasChannelGateEntitlement: false });
  expect(anonymous.body.canIPlayResponse.error).toEqual({ type: 'entitlement_required', message: expect.stringContaining('season-pass') });

  const without = await check(page._id, signedIn(token));
  expect(without.body.canIPlayResponse.contentCheck.access).toBe('none');
  expect(without.body.canIPlayResponse.error.type).toBe('entitlement_required');

  await grantEntitlement(stack, site.siteId, accountId, 'some-other-sku');
  expect((await check(page._id, signedIn(token))).body.canIPlayResponse.contentCheck.access).toBe('none');

  await grantEntitlement(stack, site.siteId, accountId, 'day-pass');
  const withIt = await check(page._id, signedIn(token));
  expect(withIt.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'full', userHasChannelGateEntitlement: true });
  expect(withIt.body.canIPlayResponse.error).toBeNull();
  expect(Object.keys(withIt.body.canIPlayResponse.deviceCheck.accountDevices)).toEqual(['device-1']);
});

it('does not count an entitlement that is no longer active', async () => {
  const page = await channel(subscriptionGate(['vip']));
  const { accountId, token } = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, accountId, 'vip');
  await stack.database.prisma.subscription.updateMany({ where: { accountId }, data: { status: 'canceled' } });
  expect((await check(page._id, signedIn(token))).body.canIPlayResponse.contentCheck.access).toBe('none');
});

it('gives a free preview that runs out', async () => {
  const page = await channel(subscriptionGate(['vip'], 300));
  const first = await check(page._id, viewer(), 'preview-device');
  expect(first.body.canIPlayResponse.contentCheck.access).toBe('preview');
  expect(first.body.canIPlayResponse.error).toBeNull();
  const remaining = first.body.canIPlayResponse.contentCheck.previewTimeRemainingSeconds;
  expect(remaining).toBeGreaterThan(0);
  expect(remaining).toBeLessThanOrEqual(300);

  // The preview started 301 seconds ago.
  await stack.database.prisma.channelPreview.updateMany({ where: { pageId: page._id }, data: { startedAt: new Date(Date.now() - 301_000) } });
  const later = await check(page._id, viewer(), 'preview-device');
  expect(later.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'none', previewTimeRemainingSeconds: 0 });
  expect(later.body.canIPlayResponse.error.type).toBe('entitlement_required');
  expect((await check(page._id, viewer(), 'another-device')).body.canIPlayResponse.contentCheck.access).toBe('preview');
});

it('checks a password gate with x-service-gate-password, and a login gate', async () => {
  const locked = await channel({ gate: { active: true, kind: 'password', gate: { password: 'open sesame' } } });
  const none = await check(locked._id, viewer());
  expect(none.body.canIPlayResponse.error.type).toBe('gate_password');
  const wrong = await check(locked._id, { ...viewer(), 'x-service-gate-password': 'guess' });
  expect(wrong.body.canIPlayResponse).toMatchObject({ contentCheck: { access: 'none' }, error: { type: 'gate_password' } });
  const right = await check(locked._id, { ...viewer(), 'x-service-gate-password': 'open sesame' });
  expect(right.body.canIPlayResponse.contentCheck.access).toBe('full');

  const members = await channel({ gate: { active: true, kind: 'login' } });
  expect((await check(members._id, viewer())).body.canIPlayResponse.error.type).toBe('login_required');
  expect((await check(members._id, signedIn(await site.token([])))).body.canIPlayResponse.contentCheck.access).toBe('full');
});

describe('what plays', () => {
  async function recordVideo(pageId: string, vodId: string, requiredSkus: string[] = []) {
    const reply = await graphql(
      stack,
      /* GraphQL */ `mutation($input: RecordVodInput!) { recordVod(input: $input) { id } }`,
      {
        input: { pageId, vodId, url: `https://cdn.example/${vodId}.m3u8`, durationSeconds: 3600 },
      },
      site.admin,
    );
    const videoId = reply.body.data.recordVod.id as string;
    if (requiredSkus.length) await stack.database.prisma.video.update({ where: { id: videoId }, data: { requiredSkus } });
    return videoId;
  }

  it('says live when the livestream renderer is active and published', async () => {
    const page = await channel({}, { active_renderers: { livestream: true }, renderers: { livestream: { livestream_published: true, stream_id: 's1' } } });
    expect((await check(page._id, viewer())).body.canIPlayResponse.contentCheck).toMatchObject({ live: true, offset: 0 });
  });

  it('plays the scheduled video from its offset, and refuses a video whose entitlement the viewer lacks', async () => {
    const holder = await channel({});
    const videoId = await recordVideo(holder._id, `vod-${Date.now()}`);
    const startedAgo = 90_000;
    const page = await channel({
      schedule: [{ kind: 'video', start_time: Date.now() - startedAgo, duration: 3600, video: { _id: videoId, data: { name: 'Replay' } } }],
    });
    const reply = await check(page._id, viewer());
    const contentCheck = reply.body.canIPlayResponse.contentCheck;
    expect(contentCheck.video.video).toMatchObject({ _id: videoId, type: 'vod', subscriptions: [] });
    expect(contentCheck.offset).toBeGreaterThanOrEqual(startedAgo / 1000);
    expect(contentCheck.offset).toBeLessThan(3600);

    const paidVideo = await recordVideo(holder._id, `vod-paid-${Date.now()}`, ['replay-pass']);
    const paid = await channel({ content: { offline: { kind: 'video', video: { _id: paidVideo } } } });
    const { accountId, token } = await site.signIn([]);
    const refused = await check(paid._id, signedIn(token));
    expect(refused.body.canIPlayResponse).toMatchObject({
      contentCheck: { access: 'none', userHasVideoEntitlement: false, video: { video: { _id: paidVideo, subscriptions: [{ sku: 'replay-pass' }] } } },
      error: { type: 'video_entitlement_required' },
    });
    await grantEntitlement(stack, site.siteId, accountId, 'replay-pass');
    expect((await check(paid._id, signedIn(token))).body.canIPlayResponse.contentCheck).toMatchObject({ access: 'full', userHasVideoEntitlement: true });
  });
});

it('refuses a new device over the site’s device limit, and keeps playing on known ones', async () => {
  const limited = await createTestSite(stack, 'Two devices');
  const update = await graphql(stack, /* GraphQL */ `mutation { updateSite(input: { deviceLimit: 2 }) { deviceLimit } }`, {}, limited.admin);
  expect(update.body.data.updateSite.deviceLimit).toBe(2);
  const page = await rest(stack, 'POST', '/pages/v3', { headers: limited.admin, body: { slug: 'limited', type: 'channel', data: { name: 'Limited' } } });
  const { token } = await limited.signIn([]);
  const headers = { 'x-service-client-id': limited.siteId, authorization: `Bearer ${token}` };

  for (const device of ['tv', 'phone']) {
    const ok = await check(page.body._id, headers, device);
    expect(ok.body.canIPlayResponse.contentCheck.access).toBe('full');
  }
  const third = await check(page.body._id, headers, 'laptop');
  expect(third.body.canIPlayResponse.deviceCheck).toEqual({
    accountDevices: { tv: expect.any(String), phone: expect.any(String) },
    accountOverDeviceLimit: true,
    siteDeviceLimit: 2,
  });
  expect(third.body.canIPlayResponse).toMatchObject({ contentCheck: { access: 'none' }, error: { type: 'device_limit' } });
  const known = await check(page.body._id, headers, 'tv');
  expect(known.body.canIPlayResponse.deviceCheck.accountOverDeviceLimit).toBe(false);
  expect(known.body.canIPlayResponse.contentCheck.access).toBe('full');

  // Another account on the same site has its own devices.
  const second = await limited.signIn([]);
  const fresh = await check(page.body._id, { 'x-service-client-id': limited.siteId, authorization: `Bearer ${second.token}` }, 'laptop');
  expect(fresh.body.canIPlayResponse.deviceCheck.accountOverDeviceLimit).toBe(false);
});
