/**
 * Faults, for real: a subgraph restarted while the gateway serves; PostgreSQL and Redis cut off and
 * restored (through a TCP proxy, when the suite runs against them). Requests fail cleanly with a code
 * and recover without restarting anything else.
 */
import { listenSubgraph } from '../../shared/subgraph';
import { loadConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';
import { startStack, SUBGRAPH_FACTORIES, type Stack } from '../../stack';
import { createTestDatabase, usingPostgres, usingRedis } from '../helpers/database';
import { startTcpProxy, type TcpProxy } from '../helpers/proxy';
import { createChannel, createTestSite, startTestStack, stopAll, testConfig } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { watch } from '../helpers/viewer';
import { eventually, expectStatus } from '../helpers/wait';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await stopAll();
});

it('a subgraph restarted while the gateway serves: requests fail with a code, then recover', async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  expect((await rest(stack, 'GET', '/overlay/v1', { headers: site.admin })).status).toBe(200);

  const port = stack.subgraphs.overlays.port;
  await stack.subgraphs.overlays.close();
  const down = await rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ success: false, message: expect.any(String) });
  const downGraphql = await graphql(stack, '{ overlays { id } }', {}, site.admin);
  expect(downGraphql.body.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
  // Other subgraphs keep answering.
  expect((await graphql(stack, '{ site { id } }', {}, site.admin)).body.data.site.id).toBe(site.siteId);

  stack.subgraphs.overlays = await listenSubgraph('overlays', SUBGRAPH_FACTORIES.overlays(stack.deps.logger, stack.deps), stack.deps, port);
  // 503 while the gateway has not reached the restarted subgraph yet; anything else fails at once.
  await eventually(
    async () => expectStatus(await rest(stack, 'GET', '/overlay/v1', { headers: site.admin }), 200, 503).status === 200,
    'the restarted subgraph answers',
  );
});

if (usingPostgres) {
  it('PostgreSQL unreachable: /ready is false, requests answer 503 with a message, nothing crashes, then it recovers', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const url = new URL(database.url);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    cleanups.push(() => proxy.close());
    url.host = `127.0.0.1:${proxy.port}`;
    const stack = await startStack(testConfig(url.toString()), { logger: createLogger('silent') });
    cleanups.push(() => stack.close());
    const site = await createTestSite(stack);

    await proxy.cut();
    await eventually(async () => expectStatus(await rest(stack, 'GET', '/ready'), 200, 503).status === 503, '/ready says the database is gone');
    expect((await rest(stack, 'GET', '/ready')).body).toMatchObject({ ready: false, database: false });
    const overlay = { name: 'x', type: 'instance', contents: {}, duration: 5 };
    const refused = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: overlay });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ success: false, message: expect.stringMatching(/unavailable/) });
    expect((await rest(stack, 'GET', '/health')).status).toBe(200);

    await proxy.restore();
    await eventually(async () => expectStatus(await rest(stack, 'GET', '/ready'), 200, 503).status === 200, '/ready says the database is back');
    expect((await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: overlay })).status).toBe(200);
  });
}

if (usingRedis) {
  it('Redis cut off under connected viewers: /ready stays 200, /health and the gauge show it, broadcasts answer 503, the rest goes on; then it recovers', async () => {
    const redis = new URL(process.env.REDIS_URL as string);
    const proxy: TcpProxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379));
    cleanups.push(() => proxy.close());
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const config = { ...testConfig(database.url), redisUrl: `redis://127.0.0.1:${proxy.port}` };
    const stack: Stack = await startStack(config, { logger: createLogger('silent') });
    cleanups.push(() => stack.close());
    const site = await createTestSite(stack);
    const stage = await createChannel(stack, site.siteId);
    const overlay = (await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'x', type: 'instance', contents: {}, duration: 30 } })).body;
    const viewer = await watch(stack, { siteId: site.siteId, channelId: stage });
    cleanups.push(() => viewer.close());
    expect((await rest(stack, 'GET', '/health')).body).toMatchObject({ status: 'ok', draining: false, bus: { connected: true } });

    await proxy.cut();
    await eventually(async () => expectStatus(await rest(stack, 'GET', '/health'), 200).body.bus.connected === false, '/health says Redis is gone');
    // This instance still serves: a balancer keeps it (and every other instance) in.
    const ready = await rest(stack, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ready: true, draining: false, database: true });
    expect(await (await fetch(`${stack.url}/metrics`)).text()).toMatch(/^stagegraph_bus_connected 0$/m);
    const refused = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { channelId: stage } });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ success: false, message: expect.stringMatching(/live delivery is unavailable/) });
    // Nothing half written: the refused broadcast is not live for a late joiner.
    expect((await stack.database.prisma.overlayBroadcast.findMany({ where: { siteId: site.siteId, clearedAt: null } })).length).toBe(0);
    // Everything that needs no bus goes on.
    expect((await rest(stack, 'GET', '/overlay/v1', { headers: site.admin })).status).toBe(200);
    expect((await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'y', type: 'instance', contents: {}, duration: 5 } })).status).toBe(
      200,
    );

    await proxy.restore();
    await eventually(async () => expectStatus(await rest(stack, 'GET', '/health'), 200).body.bus.connected === true, '/health says Redis is back');
    expect(await (await fetch(`${stack.url}/metrics`)).text()).toMatch(/^stagegraph_bus_connected 1$/m);
    const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { channelId: stage } });
    expect(sent.status).toBe(200);
    expect((await viewer.next()).broadcastId).toBe(sent.body.broadcastId);
  });

  it("a broadcast accepted while another instance is cut off from Redis reaches that instance's viewers when it is back", async () => {
    const redis = new URL(process.env.REDIS_URL as string);
    const proxy: TcpProxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379));
    cleanups.push(() => proxy.close());
    const first = await startTestStack();
    const cutOff = await startStack(
      { ...testConfig(first.config.databaseUrl), redisPrefix: first.config.redisPrefix, redisUrl: `redis://127.0.0.1:${proxy.port}` },
      { logger: createLogger('silent') },
    );
    cleanups.push(() => cutOff.close());
    const site = await createTestSite(first);
    const stage = await createChannel(first, site.siteId);
    const overlay = (await rest(first, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'x', type: 'instance', contents: {}, duration: 60 } })).body;
    const viewer = await watch(cutOff, { siteId: site.siteId, channelId: stage });
    cleanups.push(() => viewer.close());

    await proxy.cut();
    await eventually(async () => expectStatus(await rest(cutOff, 'GET', '/health'), 200).body.bus.connected === false, 'the cut-off instance sees Redis gone');
    const sent = await rest(first, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { channelId: stage } });
    expect(sent.status).toBe(200);
    await viewer.none(300);

    // Back on Redis, the instance reads on from the last stream entry it saw: the broadcast arrives.
    await proxy.restore();
    expect((await viewer.next()).broadcastId).toBe(sent.body.broadcastId);
  });
}

it('SIGTERM drains: /ready 503 at once, answers go on with Connection: close for the grace period, then viewers get 1012 and the port closes', async () => {
  // A grace long enough for the three requests below on a loaded machine (each takes milliseconds when idle).
  const stack = await startTestStack({ env: { SHUTDOWN_GRACE_MS: '5000' } });
  const site = await createTestSite(stack);
  const stage = await createChannel(stack, site.siteId);
  const viewer = await watch(stack, { siteId: site.siteId, channelId: stage });
  expect((await rest(stack, 'GET', '/ready')).status).toBe(200);

  const drained = stack.drain();
  const ready = await fetch(`${stack.url}/ready`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ ready: false, draining: true, database: null });
  expect((await rest(stack, 'GET', '/health')).body).toMatchObject({ status: 'ok', draining: true });
  // Still serving, and telling keep-alive clients (the balancer's pool) to move on.
  const answered = await fetch(`${stack.url}/overlay/v1`, { headers: site.admin });
  expect(answered.status).toBe(200);
  expect(answered.headers.get('connection')).toBe('close');
  await viewer.none(200);

  await drained;
  expect(await viewer.closed).toBe(1012);
  await expect(fetch(`${stack.url}/health`)).rejects.toThrow();
});

it('loads its configuration only from the environment it is given', () => {
  expect(() =>
    loadConfig({ DATABASE_URL: 'mysql://nope', JWT_SECRET: 'x'.repeat(32), INTERNAL_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: 'x'.repeat(32) }),
  ).toThrow(/DATABASE_URL/);
  expect(() => loadConfig({ PORT: 'eighty', JWT_SECRET: 'x'.repeat(32), INTERNAL_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: 'x'.repeat(32) })).toThrow(/PORT/);
});
