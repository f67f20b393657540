/**
 * Two instances of one deployment (same database; Redis when REDIS_URL is set, otherwise one shared
 * in-process bus): a broadcast accepted by one instance reaches a viewer connected to the other.
 */
import { createMemoryBus } from '../shared/bus/memory';
import { usingRedis } from './helpers/database';
import { createTestSite, startTestStack, stopAll } from './helpers/stack';
import { rest } from './helpers/http';
import { watch } from './helpers/viewer';

afterAll(stopAll);

it(`carries broadcasts and clears between instances (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  const first = await startTestStack({ bus });
  const second = await startTestStack({ sameDeploymentAs: first, bus });
  const site = await createTestSite(first);
  const overlay = await rest(first, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Goal', type: 'instance', contents: { text: 'GOAL' }, duration: 30 },
  });

  const viewer = await watch(second, { siteId: site.siteId, channelId: 'pitch' });
  const sent = await rest(first, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: site.admin, body: { channelId: 'pitch' } });
  expect(sent.status).toBe(200);
  expect(await viewer.next()).toMatchObject({ kind: 'SHOW', broadcastId: sent.body.broadcastId });

  // A late joiner on the second instance gets the broadcast the first accepted.
  const late = await watch(second, { siteId: site.siteId, channelId: 'pitch' });
  expect((await late.next()).broadcastId).toBe(sent.body.broadcastId);

  await rest(first, 'POST', '/overlay/v1/clear-broadcast/pitch', { headers: site.admin });
  expect(await viewer.next()).toMatchObject({ kind: 'CLEAR', broadcastId: sent.body.broadcastId });
  await Promise.all([viewer.close(), late.close()]);
});

it(`counts failed sign-ins of all instances together (${usingRedis ? 'in Redis' : 'per instance without Redis'})`, async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  const first = await startTestStack({ bus });
  const second = await startTestStack({ sameDeploymentAs: first, bus });
  const site = await createTestSite(first);
  const headers = { 'x-service-client-id': site.siteId };
  const email = 'guessed@example.test';
  expect((await rest(first, 'POST', '/account/v3/', { headers, body: { email, password: 'the right password', name: 'Guessed' } })).status).toBe(201);
  // The limit is 10 failures per e-mail: 5 on each instance.
  for (const stack of [first, second, first, second, first, second, first, second, first, second]) {
    expect((await rest(stack, 'POST', '/auth/v2/login', { headers, body: { email, password: 'a wrong guess' } })).status).toBe(401);
  }
  const eleventh = await rest(first, 'POST', '/auth/v2/login', { headers, body: { email, password: 'the right password' } });
  expect(eleventh.status).toBe(usingRedis ? 429 : 200);
  if (usingRedis) expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
});
