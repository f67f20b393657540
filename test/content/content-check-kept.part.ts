/**
 * The content check answered from what an instance keeps (subgraphs/content/checkInputs.ts, the REST
 * bridge's quick answer): a viewer a live channel lets play gets the URL without the operation being
 * executed, in exactly the bytes the executed check gives; and what changes on one instance — an
 * entitlement granted or canceled, a pass that lapses, a device recorded — is what the other answers
 * next. Two instances of one deployment: PostgreSQL + Redis when DATABASE_URL / REDIS_URL say so,
 * otherwise SQLite and one shared in-process bus. The pass lapses by the stacks' clock, which the test
 * moves.
 */
import { Topics } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import type { AccountAccessMessage } from '../../shared/accountAccess';
import type { Stack } from '../../stack';
import { createSku, join, type Member } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { until } from '../helpers/wait';

const DAY = 86_400_000;
let clock = Date.now();
let writer: Stack;
let reader: Stack;
let site: TestSite;

beforeAll(async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  writer = await startTestStack({ bus, now: () => clock });
  reader = await startTestStack({ sameDeploymentAs: writer, bus, now: () => clock });
  site = await createTestSite(writer, 'Kept checks');
  await createSku(writer, site, 'gold');
  await createSku(writer, site, 'weekly', { recurrence: 'week' });
});
afterAll(stopAll);

const quickAnswers = (stack: Stack) => stack.deps.quickAnswers?.answered.contentCheck ?? 0;
const atDoor = (stack: Stack) => stack.deps.quickAnswers?.answeredAtDoor ?? 0;
/** The answer's headers but the two that differ on every answer (its id, its date). */
const steadyHeaders = (reply: Response) => [...reply.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id');
const signedIn = (member: Member) => ({ 'x-service-client-id': site.siteId, authorization: `Bearer ${member.jwt}` });

/** The check's raw answer on `stack` and whether it was a quick answer there. */
async function check(stack: Stack, pageId: string, headers: Record<string, string>, device = 'tv') {
  const [before, doorBefore] = [quickAnswers(stack), atDoor(stack)];
  const reply = await fetch(`${stack.url}/pages/v2/content/id/${pageId}`, { headers: { ...headers, 'x-service-device-id': device } });
  const text = await reply.text();
  expect(reply.status).toBe(200);
  return {
    text,
    body: JSON.parse(text),
    etag: reply.headers.get('etag'),
    headers: steadyHeaders(reply),
    quick: quickAnswers(stack) === before + 1,
    /** Answered before express (gateway/door.ts). */
    door: atDoor(stack) === doorBefore + 1,
  };
}

/**
 * The same check executed: a gate password the channel does not ask for changes nothing in the answer,
 * and the quick path never answers a request that carries one.
 */
const executed = (stack: Stack, pageId: string, headers: Record<string, string>, device = 'tv') =>
  check(stack, pageId, { ...headers, 'x-service-gate-password': 'not asked' }, device);

/** Resolves when `stack` has heard an access change of the account (its caches heard it first). */
function heardOn(stack: Stack, accountId: string, part: AccountAccessMessage['part']): Promise<void> {
  return new Promise((resolve) => {
    const stop = stack.bus.subscribe(Topics.accountAccessChanged, (message) => {
      const change = message as AccountAccessMessage;
      if (change.part !== part || (change.accountId !== null && change.accountId !== accountId)) return;
      stop();
      resolve();
    });
  });
}

let slugs = 0;
/** A live channel (its livestream renderer on and published) playing a recorded video, behind `gate`. */
async function liveChannel(gate: Record<string, unknown>, videoSkus: string[] = []) {
  const vodId = `vod-${++slugs}-${Date.now()}`;
  const holder = await rest(writer, 'POST', '/pages/v3', { headers: site.admin, body: { slug: `holder-${slugs}`, type: 'channel', data: { name: 'Holder' } } });
  const recorded = await graphql(
    writer,
    /* GraphQL */ `mutation($input: RecordVodInput!) { recordVod(input: $input) { id } }`,
    { input: { pageId: holder.body._id, vodId, url: `https://cdn.example/${vodId}.m3u8`, durationSeconds: 60 } },
    site.admin,
  );
  const videoId = recorded.body.data?.recordVod.id as string;
  if (videoSkus.length)
    expect((await rest(writer, 'PUT', `/video/v3/${videoId}`, { headers: site.admin, body: { subscriptions: videoSkus } })).status).toBe(200);
  const page = await rest(writer, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: `kept-${slugs}`,
      type: 'channel',
      data: { name: `Kept ${slugs}`, gate },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true, video_id: videoId } },
    },
  });
  expect(page.status).toBe(200);
  return { pageId: page.body._id as string, url: `https://cdn.example/${vodId}.m3u8` };
}

/** An admin's grant on the writer, once the reader has heard of it (an admin's change drops the site's copies there). */
async function grant(member: Member, sku: string) {
  const heard = heardOn(reader, member.accountId, 'entitlements');
  const reply = await rest(writer, 'POST', `/community/v1/grant-entitlement/?accountId=${member.accountId}&subscriptionId=${sku}`, { headers: site.admin });
  await heard;
  return reply;
}

const gold = { active: true, kind: 'subscription', gate: { subscriptions: ['gold'], title: 'Gold' } };

describe('the kept check', () => {
  it('gives a gated viewer the URL without executing, in the bytes the executed check gives', async () => {
    const member = async () => {
      const joined = await join(writer, site);
      expect((await grant(joined, 'gold')).status).toBe(200);
      return signedIn(joined);
    };
    const cases = [
      { channel: await liveChannel({ active: true, kind: 'login' }), headers: await member() },
      { channel: await liveChannel(gold), headers: await member() },
      { channel: await liveChannel({ active: false, kind: 'none' }, ['gold']), headers: await member() },
      { channel: await liveChannel({ active: false, kind: 'none' }), headers: { 'x-service-client-id': site.siteId } },
    ];
    for (const { channel, headers } of cases as { channel: { pageId: string; url: string }; headers: Record<string, string> }[]) {
      // A viewer's first check records its device (and reads its entitlements): executed.
      const first = await check(reader, channel.pageId, headers);
      expect(first.quick).toBe(headers.authorization === undefined);
      const kept = await check(reader, channel.pageId, headers);
      expect(kept.quick).toBe(true);
      expect(kept.door).toBe(true);
      expect(kept.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'full', live: true, video: { video: { url: channel.url } } });
      const normal = await executed(reader, channel.pageId, headers);
      expect(normal.quick).toBe(false);
      expect(normal.door).toBe(false);
      expect(kept.text).toBe(normal.text);
      expect(kept.etag).toBe(normal.etag);
      expect(kept.headers).toEqual(normal.headers);
      // The door answers a revalidation as the router does: 304 when the client holds the answer.
      const doorBefore = atDoor(reader);
      const again = await fetch(`${reader.url}/pages/v2/content/id/${channel.pageId}`, {
        headers: { ...headers, 'x-service-device-id': 'tv', 'if-none-match': kept.etag as string },
      });
      expect(again.status).toBe(304);
      expect(atDoor(reader)).toBe(doorBefore + 1);
      expect(first.text).toBe(normal.text);
    }
  });

  it('is not what answers a refusal, a password gate or an unknown channel', async () => {
    const member = await join(writer, site);
    const gated = await liveChannel(gold);
    await check(reader, gated.pageId, signedIn(member));
    const refused = await check(reader, gated.pageId, signedIn(member));
    expect(refused.quick).toBe(false);
    expect(refused.body.canIPlayResponse).toMatchObject({ contentCheck: { access: 'none' }, error: { type: 'entitlement_required' } });

    const anonymous = await check(reader, (await liveChannel({ active: true, kind: 'login' })).pageId, { 'x-service-client-id': site.siteId });
    expect(anonymous.quick).toBe(false);
    expect(anonymous.body.canIPlayResponse.error.type).toBe('login_required');

    const unknown = await fetch(`${reader.url}/pages/v2/content/id/${'0'.repeat(24)}`, {
      headers: { 'x-service-client-id': site.siteId, 'x-service-device-id': 'tv' },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('changes on another instance', () => {
  it('follows an entitlement granted and canceled on the other instance', async () => {
    const member = await join(writer, site);
    const channel = await liveChannel(gold);
    expect((await check(reader, channel.pageId, signedIn(member))).body.canIPlayResponse.contentCheck.access).toBe('none');

    expect((await grant(member, 'gold')).status).toBe(200);
    expect((await check(reader, channel.pageId, signedIn(member))).body.canIPlayResponse.contentCheck.access).toBe('full');
    expect((await check(reader, channel.pageId, signedIn(member))).quick).toBe(true);

    const held = await graphql(writer, /* GraphQL */ `{ me { subscriptions { id } } }`, {}, signedIn(member));
    const [subscription] = held.body.data?.me.subscriptions as { id: string }[];
    const heard = heardOn(reader, member.accountId, 'entitlements');
    const canceled = await rest(
      writer,
      'PATCH',
      `/community/v1/update-entitlement/?accountId=${member.accountId}&action=cancel&id=${subscription.id}&grantRefund=false`,
      { headers: site.admin },
    );
    expect(canceled.status).toBe(200);
    await heard;
    const after = await check(reader, channel.pageId, signedIn(member));
    expect(after.quick).toBe(false);
    expect(after.body.canIPlayResponse).toMatchObject({ contentCheck: { access: 'none' }, error: { type: 'entitlement_required' } });
  });

  it('never plays a pass past its end: the kept copy lapses with it, without any announcement', async () => {
    const member = await join(writer, site);
    const channel = await liveChannel({ active: true, kind: 'subscription', gate: { subscriptions: ['weekly'], title: 'Weekly' } });
    expect((await grant(member, 'weekly')).status).toBe(200);
    expect((await check(reader, channel.pageId, signedIn(member))).body.canIPlayResponse.contentCheck.access).toBe('full');
    const kept = await check(reader, channel.pageId, signedIn(member));
    expect(kept.quick).toBe(true);

    clock += 7 * DAY - 1;
    expect((await check(reader, channel.pageId, signedIn(member))).quick).toBe(true);
    clock += 1;
    const lapsed = await check(reader, channel.pageId, signedIn(member));
    expect(lapsed.quick).toBe(false);
    expect(lapsed.body.canIPlayResponse).toMatchObject({ contentCheck: { access: 'none' }, error: { type: 'entitlement_required' } });
  });

  it('follows a device recorded on the other instance', async () => {
    const member = await join(writer, site);
    const channel = await liveChannel({ active: true, kind: 'login' });
    await check(reader, channel.pageId, signedIn(member), 'tv');
    expect((await check(reader, channel.pageId, signedIn(member), 'tv')).quick).toBe(true);

    await check(writer, channel.pageId, signedIn(member), 'phone');
    // The reader drops its copy once the writer's announcement reaches it (its own, echoed back, changes nothing there).
    const after = await until(
      () => check(reader, channel.pageId, signedIn(member), 'tv'),
      (reply) => 'phone' in reply.body.canIPlayResponse.deviceCheck.accountDevices,
      'the reader answers the device recorded on the writer',
    );
    expect(Object.keys(after.body.canIPlayResponse.deviceCheck.accountDevices)).toEqual(['phone', 'tv']);
    // Kept again once every copy of the announcement has arrived (an in-process bus also delivers it later).
    const again = await until(
      () => check(reader, channel.pageId, signedIn(member), 'tv'),
      (reply) => reply.quick,
      'the reader keeps the devices again',
    );
    expect(again.text).toBe(after.text);
    expect(again.text).toBe((await executed(reader, channel.pageId, signedIn(member), 'tv')).text);
  });
});
