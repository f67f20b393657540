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
