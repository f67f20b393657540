/**
 * A signed data event sent again (a replay) is answered as the first one was and changes nothing: no second
 * stored event, no second count, no second overlay from the automation rules at a subscribed viewer — on
 * one instance and across two (PostgreSQL + Redis when set, else a shared SQLite file and in-process bus).
 */
import { createHmac } from 'node:crypto';
import { createMemoryBus } from '../../shared/bus/memory';
import { usingRedis } from '../helpers/database';
import { channelNamed, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { scrape, total } from '../helpers/metrics';
import { watch, type Viewer } from '../helpers/viewer';
import type { Stack } from '../../stack';

let first: Stack;
let second: Stack;
const viewers: Viewer[] = [];

beforeAll(async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  first = await startTestStack({ bus });
  second = await startTestStack({ sameDeploymentAs: first, bus });
});
afterAll(async () => {
  await Promise.all(viewers.splice(0).map((viewer) => viewer.close()));
  await stopAll();
});

const sign = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
type Provider = { dataProviderId: string; secret: string; site: TestSite };

/**
 * A provider of scores, on a site of its own (a viewer who joins gets the site's live overlays at once),
 * with a rule that shows an overlay on every channel for each score above 2.
 */
async function providerWithRule(name: string): Promise<Provider> {
  const site = await createTestSite(first, name);
  const schema = { type: 'object', properties: { score: { type: 'number' }, seq: { type: 'number' } } };
  const registered = await rest(first, 'POST', '/dataprovider/v1/register', {
    headers: site.admin,
    body: { name, description: 'scores', schema, ownerName: 'Ada', ownerEmail: 'ada@example.test', realtime: true },
  });
  expect(registered.status).toBe(201);
  const provider = { ...(registered.body as Omit<Provider, 'site'>), site };
  const overlay = await rest(first, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: `${name} bug`, type: 'template', contents: { html: 'score {score}' }, duration: 30 },
  });
  const jsonRule = {
    trigger: { dataProviderId: provider.dataProviderId, fact: 'score', operator: 'greater_than', value: '2', behavior: 'immediate' },
    action: {
      type: 'SEND_OVERLAY',
      targeting: { scope: 'all_channels', target: [] },
      templateId: overlay.body._id,
      dataMap: { score: 'score' },
      broadcastPayload: { duration: 30 },
    },
  };
  expect((await rest(first, 'POST', '/personalization/v1/', { headers: site.admin, body: { name: `${name} rule`, jsonRule } })).status).toBe(201);
  return provider;
}

async function send(stack: Stack, provider: Provider, text: string) {
  const reply = await rest(stack, 'POST', `/dataprovider/v1/${provider.dataProviderId}/events`, {
    headers: { 'X-DataProvider-Signature': sign(provider.secret, text) },
    rawBody: text,
  });
  return { status: reply.status, body: reply.body };
}

async function storedEvents(provider: Provider): Promise<unknown[]> {
  const reply = await graphql(
    first,
    /* GraphQL */ `query Events($id: ID!) { dataEvents(dataProviderId: $id, limit: 500) { id payload } }`,
    { id: provider.dataProviderId },
    provider.site.admin,
  );
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.dataEvents.map((event: { payload: unknown }) => event.payload);
}

async function viewerOn(stack: Stack, provider: Provider): Promise<Viewer> {
  const viewer = await watch(stack, { siteId: provider.site.siteId, channelId: await channelNamed(stack, provider.site.siteId, 'main') });
  viewers.push(viewer);
  return viewer;
}

const replays = async (stack: Stack) => total(await scrape(stack), 'stagegraph_data_events_total', { outcome: 'replayed', reason: 'same_body' });

it('answers a replay as the first, and stores, counts and broadcasts nothing again', async () => {
  const provider = await providerWithRule('Same instance');
  const viewer = await viewerOn(first, provider);
  const body = JSON.stringify({ score: 3, seq: 1 });
  const before = await replays(first);
  expect(await send(first, provider, body)).toEqual({ status: 201, body: { success: true } });
  expect((await viewer.next()).variables).toMatchObject({ score: '3' });

  expect(await send(first, provider, body)).toEqual({ status: 201, body: { success: true } });
  // The next overlay the viewer gets is the next event's, not a second one of the replay.
  expect(await send(first, provider, JSON.stringify({ score: 4, seq: 2 }))).toEqual({ status: 201, body: { success: true } });
  expect((await viewer.next()).variables).toMatchObject({ score: '4' });
  expect(viewer.events).toHaveLength(2);
  expect(await storedEvents(provider)).toEqual([
    { score: 4, seq: 2 },
    { score: 3, seq: 1 },
  ]);
  expect((await replays(first)) - before).toBe(1);
});

it('takes the same content again when the provider makes the body unique (a sequence number)', async () => {
  const provider = await providerWithRule('Sequenced');
  for (const seq of [1, 2]) expect((await send(first, provider, JSON.stringify({ score: 3, seq }))).status).toBe(201);
  expect(await storedEvents(provider)).toHaveLength(2);
});

it('refuses a replay with a wrong signature as any event', async () => {
  const provider = await providerWithRule('Signed');
  const body = JSON.stringify({ score: 1, seq: 1 });
  expect((await send(first, provider, body)).status).toBe(201);
  const forged = await rest(first, 'POST', `/dataprovider/v1/${provider.dataProviderId}/events`, {
    headers: { 'X-DataProvider-Signature': sign('wrong', body) },
    rawBody: body,
  });
  expect(forged.status).toBe(401);
});

it(`applies an event once across two instances (${usingRedis ? 'PostgreSQL + Redis' : 'shared database, in-process bus'}), also when both copies arrive at once`, async () => {
  const provider = await providerWithRule('Two instances');
  const onSecond = await viewerOn(second, provider);
  const onFirst = await viewerOn(first, provider);
  const body = JSON.stringify({ score: 7, seq: 1 });
  const answers = await Promise.all([send(first, provider, body), send(second, provider, body), send(second, provider, body)]);
  expect(answers).toEqual(Array.from({ length: 3 }, () => ({ status: 201, body: { success: true } })));
  expect(await send(second, provider, body)).toEqual({ status: 201, body: { success: true } });
  expect(await send(second, provider, JSON.stringify({ score: 8, seq: 2 }))).toEqual({ status: 201, body: { success: true } });
  for (const viewer of [onFirst, onSecond]) {
    expect((await viewer.next()).variables).toMatchObject({ score: '7' });
    expect((await viewer.next()).variables).toMatchObject({ score: '8' });
    expect(viewer.events).toHaveLength(2);
  }
  expect(await storedEvents(provider)).toEqual([
    { score: 8, seq: 2 },
    { score: 7, seq: 1 },
  ]);
});
