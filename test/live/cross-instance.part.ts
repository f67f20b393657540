/**
 * Two instances of one deployment (same database; Redis when REDIS_URL is set, otherwise one shared
 * in-process bus): a broadcast accepted by one instance reaches a viewer connected to the other.
 */
import Redis from 'ioredis';
import { Topics } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import { usingRedis } from '../helpers/database';
import { createChannel, createTestSite, startTestStack, stopAll } from '../helpers/stack';
import { rest } from '../helpers/http';
import { watch } from '../helpers/viewer';
import { until } from '../helpers/wait';

afterAll(stopAll);

it(`carries broadcasts and clears between instances (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  const first = await startTestStack({ bus });
  const second = await startTestStack({ sameDeploymentAs: first, bus });
  const site = await createTestSite(first);
  const pitch = await createChannel(first, site.siteId);
  const overlay = await rest(first, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Goal', type: 'instance', contents: { text: 'GOAL' }, duration: 30 },
  });

  const viewer = await watch(second, { siteId: site.siteId, channelId: pitch });
  const sent = await rest(first, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: site.admin, body: { channelId: pitch } });
  expect(sent.status).toBe(200);
  expect(await viewer.next()).toMatchObject({ kind: 'SHOW', broadcastId: sent.body.broadcastId });

  // A late joiner on the second instance gets the broadcast the first accepted.
  const late = await watch(second, { siteId: site.siteId, channelId: pitch });
  expect((await late.next()).broadcastId).toBe(sent.body.broadcastId);

  await rest(first, 'POST', `/overlay/v1/clear-broadcast/${pitch}`, { headers: site.admin });
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

if (usingRedis) {
  it("reads the previous release's bus messages (format 1, pub/sub), and publishes a copy that release reads, during a rolling deploy", async () => {
    const stack = await startTestStack();
    const site = await createTestSite(stack);
    const pitch = await createChannel(stack, site.siteId);
    const viewer = await watch(stack, { siteId: site.siteId, channelId: pitch });
    const channel = `${stack.config.redisPrefix}:${Topics.overlayBroadcasts}`;
    const oldRelease = new Redis(process.env.REDIS_URL as string);
    const listener = new Redis(process.env.REDIS_URL as string);
    try {
      // What an instance of the previous release publishes: `{at, tp?, m}` on the topic's channel, no version.
      const now = Date.now();
      const event = {
        kind: 'SHOW',
        broadcastId: 'from-version-1',
        channelId: pitch,
        tagId: null,
        tags: [],
        variables: {},
        startedAt: now,
        expiresAt: now + 30_000,
        remainingSeconds: 30,
        overlay: { id: 'overlay-1', name: 'Old', type: 'instance', contents: { text: 'v1' }, cta: null, duration: 30 },
      };
      await oldRelease.publish(channel, JSON.stringify({ at: now, m: { siteId: site.siteId, event } }));
      expect(await viewer.next()).toMatchObject({ kind: 'SHOW', broadcastId: 'from-version-1', overlay: { contents: { text: 'v1' } } });

      // What the previous release reads: its channel gets `{at, m}` (with the version beside them) for each message.
      const copies: { v?: number; at: number; m: { event: { broadcastId: string } } }[] = [];
      await listener.subscribe(channel);
      listener.on('message', (_name: string, raw: string) => copies.push(JSON.parse(raw)));
      const overlay = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'New', type: 'instance', contents: {}, duration: 30 } });
      const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: site.admin, body: { channelId: pitch } });
      expect((await viewer.next()).broadcastId).toBe(sent.body.broadcastId);
      await until(
        () => copies.length,
        (count) => count >= 1,
        'the copy for the previous release',
      );
      expect(copies).toEqual([
        expect.objectContaining({
          v: 2,
          at: expect.any(Number),
          m: expect.objectContaining({ siteId: site.siteId, event: expect.objectContaining({ broadcastId: sent.body.broadcastId }) }),
        }),
      ]);
      // Delivered once, from the stream, not again from the copy: the instance reads the channel in order, so a
      // copy it delivered again would reach the viewer before a marker published on the channel after it.
      await oldRelease.publish(channel, JSON.stringify({ at: Date.now(), m: { siteId: site.siteId, event: { ...event, broadcastId: 'marker' } } }));
      expect((await viewer.next()).broadcastId).toBe('marker');
    } finally {
      oldRelease.disconnect();
      listener.disconnect();
      await viewer.close();
    }
  });
}
