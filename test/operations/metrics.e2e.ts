/**
 * GET /metrics as an operator reads it: counters and histograms move with real requests, live viewers
 * and broadcasts, data events and webhook deliveries; each instance reports its own viewers; no ID a
 * client sends ever becomes a label value.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryBus } from '../../shared/bus/memory';
import { usingRedis } from '../helpers/database';
import { graphql, rest } from '../helpers/http';
import { scrape, total, type Sample } from '../helpers/metrics';
import { createChannel, createTestSite, startTestStack, stopAll } from '../helpers/stack';
import { watch } from '../helpers/viewer';
import { until } from '../helpers/wait';

const servers: Server[] = [];
afterAll(async () => {
  await stopAll();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Waits until `check` holds for a fresh scrape (metrics recorded after an answer, e.g. fan-out, land a moment later). */
const eventually = (stack: Parameters<typeof scrape>[0], check: (samples: Sample[]) => boolean): Promise<Sample[]> =>
  until(() => scrape(stack), check, 'the metrics reached the expected values');

it('counts requests by route template, operations by name, subgraph fetches, viewers and broadcast fan-out', async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  const before = await scrape(stack);

  const created = await rest(stack, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Goal', type: 'instance', contents: { text: 'GOAL' }, duration: 30 },
  });
  expect(created.status).toBe(200);
  expect((await rest(stack, 'GET', `/overlay/v1/${created.body._id}`, { headers: site.admin })).status).toBe(200);
  expect((await rest(stack, 'GET', '/overlay/v1', { headers: site.admin })).status).toBe(200);
  expect((await rest(stack, 'GET', '/no/such/path', {})).status).toBe(404);
  expect((await graphql(stack, /* GraphQL */ `query SiteOverlays { overlays { id } }`, {}, site.admin)).status).toBe(200);
  expect((await graphql(stack, /* GraphQL */ `{ nosuchfield }`, {}, site.admin)).status).toBe(400);

  const pitch = await createChannel(stack, site.siteId);
  const viewers = await Promise.all([watch(stack, { siteId: site.siteId, channelId: pitch }), watch(stack, { siteId: site.siteId, channelId: pitch })]);
  const live = await scrape(stack);
  expect(total(live, 'stagegraph_live_viewers')).toBe(2);
  expect(total(live, 'stagegraph_live_subscriptions')).toBe(2);

  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${created.body._id}`, { headers: site.admin, body: { channelId: pitch } });
  expect(sent.status).toBe(200);
  for (const viewer of viewers) expect((await viewer.next()).broadcastId).toBe(sent.body.broadcastId);
  const after = await eventually(
    stack,
    (samples) => total(samples, 'stagegraph_broadcast_fanout_seconds_count') > total(before, 'stagegraph_broadcast_fanout_seconds_count'),
  );
  const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);

  expect(moved('stagegraph_http_requests_total', { route: '/overlay/v1', method: 'POST', status: '200' })).toBe(1);
  expect(moved('stagegraph_http_requests_total', { route: '/overlay/v1/{id}', method: 'GET', status: '200' })).toBe(1);
  expect(moved('stagegraph_http_requests_total', { route: '/overlay/v1', method: 'GET', status: '200' })).toBe(1);
  expect(moved('stagegraph_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
  expect(moved('stagegraph_http_requests_total', { route: '/graphql', method: 'POST', status: '400' })).toBe(1);
  expect(moved('stagegraph_http_request_duration_seconds_count', { route: '/overlay/v1/{id}', method: 'GET' })).toBe(1);
  expect(moved('stagegraph_http_request_duration_seconds_bucket', { route: '/overlay/v1/{id}', method: 'GET', le: '+Inf' })).toBe(1);

  // REST routes run their table's named operation; a client's own name is kept too; errors by code.
  expect(moved('stagegraph_graphql_operations_total', { operation: 'CreateOverlay', outcome: 'ok' })).toBe(1);
  expect(moved('stagegraph_graphql_operations_total', { operation: 'SiteOverlays', outcome: 'ok' })).toBe(1);
  expect(moved('stagegraph_graphql_operations_total', { operation: 'anonymous', outcome: 'error' })).toBe(1);
  expect(moved('stagegraph_graphql_errors_total', { operation: 'anonymous', code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
  expect(moved('stagegraph_graphql_operation_duration_seconds_count', { operation: 'ListOverlays' })).toBe(1);
  expect(moved('stagegraph_subgraph_fetches_total', { subgraph: 'overlays', transport: 'in_process', outcome: 'ok' })).toBeGreaterThanOrEqual(4);
  expect(moved('stagegraph_subgraph_fetch_duration_seconds_count', { subgraph: 'overlays' })).toBeGreaterThanOrEqual(4);

  // One broadcast handed to two viewers of this instance: one fan-out, two frames, one bus delivery.
  expect(moved('stagegraph_broadcast_fanout_seconds_count', { kind: 'SHOW' })).toBe(1);
  expect(moved('stagegraph_broadcast_frames_total')).toBe(2);
  expect(moved('stagegraph_bus_delivery_lag_seconds_count', { topic: 'overlay-broadcasts' })).toBeGreaterThanOrEqual(1);
  // Process metrics, event-loop lag among them.
  expect(after.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  expect(after.some((sample) => sample.name === 'process_resident_memory_bytes')).toBe(true);

  await Promise.all(viewers.map((viewer) => viewer.close()));
  const gone = await eventually(stack, (samples) => total(samples, 'stagegraph_live_viewers') === 0);
  expect(total(gone, 'stagegraph_live_viewers')).toBe(0);
  expect(total(gone, 'stagegraph_live_subscriptions')).toBe(0);
});

it("counts a route that runs straight on one subgraph as an operation and as that subgraph's fetch", async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  const page = await rest(stack, 'POST', '/pages/v3', { headers: site.admin, body: { slug: 'counted', type: 'channel', data: { name: 'Counted' } } });
  const before = await scrape(stack);
  const viewer = { 'x-service-client-id': site.siteId, 'x-service-device-id': 'device-1' };
  expect((await rest(stack, 'GET', `/pages/v2/content/id/${page.body._id}`, { headers: viewer })).status).toBe(200);
  expect((await rest(stack, 'GET', '/pages/v2/content/id/no-such-page', { headers: viewer })).status).toBe(404);
  const after = await scrape(stack);
  const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
  expect(moved('stagegraph_graphql_operations_total', { operation: 'CheckContent', outcome: 'ok' })).toBe(1);
  expect(moved('stagegraph_graphql_operations_total', { operation: 'CheckContent', outcome: 'error' })).toBe(1);
  expect(moved('stagegraph_graphql_errors_total', { operation: 'CheckContent', code: 'NOT_FOUND' })).toBe(1);
  expect(moved('stagegraph_graphql_operation_duration_seconds_count', { operation: 'CheckContent' })).toBe(2);
  expect(moved('stagegraph_subgraph_fetches_total', { subgraph: 'content', transport: 'in_process', outcome: 'ok' })).toBe(1);
  expect(moved('stagegraph_subgraph_fetches_total', { subgraph: 'content', transport: 'in_process', outcome: 'error' })).toBe(1);
});

it('counts fetches to subgraphs over HTTP, and a subgraph that cannot be reached as an error', async () => {
  const stack = await startTestStack({ subgraphsOverHttp: true });
  const site = await createTestSite(stack);
  const before = await scrape(stack);
  expect((await graphql(stack, /* GraphQL */ `query OverHttp { overlays { id } }`, {}, site.admin)).status).toBe(200);
  await stack.subgraphs.overlays.close();
  const down = await graphql(stack, /* GraphQL */ `query OverHttp { overlays { id } }`, {}, site.admin);
  expect(down.body.errors?.[0].extensions?.code).toBe('SERVICE_UNAVAILABLE');
  const after = await scrape(stack);
  const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
  expect(moved('stagegraph_subgraph_fetches_total', { subgraph: 'overlays', transport: 'http', outcome: 'ok' })).toBe(1);
  expect(moved('stagegraph_subgraph_fetches_total', { subgraph: 'overlays', transport: 'http', outcome: 'error' })).toBe(1);
  expect(moved('stagegraph_subgraph_fetch_duration_seconds_count', { subgraph: 'overlays', transport: 'http' })).toBe(2);
  expect(moved('stagegraph_graphql_errors_total', { operation: 'OverHttp', code: 'SERVICE_UNAVAILABLE' })).toBe(1);
});

it(`reports each instance's own live viewers (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  const first = await startTestStack({ bus });
  const second = await startTestStack({ sameDeploymentAs: first, bus });
  const site = await createTestSite(first);

  const onFirst = await watch(first, { siteId: site.siteId });
  const onSecond = await Promise.all([watch(second, { siteId: site.siteId }), watch(second, { siteId: site.siteId })]);
  expect(total(await scrape(first), 'stagegraph_live_viewers')).toBe(1);
  expect(total(await scrape(second), 'stagegraph_live_viewers')).toBe(2);

  await onSecond[0].close();
  const secondAfter = await eventually(second, (samples) => total(samples, 'stagegraph_live_viewers') === 1);
  expect(total(secondAfter, 'stagegraph_live_viewers')).toBe(1);
  expect(total(await scrape(first), 'stagegraph_live_viewers')).toBe(1);
  await Promise.all([onFirst.close(), onSecond[1].close()]);
});

it('counts data events by outcome and reason, and webhook deliveries by outcome', async () => {
  const stack = await startTestStack({ env: { DATA_EVENT_RATE_LIMIT: '3', DATA_EVENT_RATE_WINDOW_SECONDS: '60' } });
  const site = await createTestSite(stack);
  const before = await scrape(stack);

  const schema = { type: 'object', required: ['score'], properties: { score: { type: 'number' } } };
  const registered = await rest(stack, 'POST', '/dataprovider/v1/register', {
    headers: site.admin,
    body: { name: 'Scores', description: 'scores', schema, ownerName: 'Ada', ownerEmail: 'ada@example.test', realtime: true, ttl: null },
  });
  expect(registered.status).toBe(201);
  const { dataProviderId, secret } = registered.body as { dataProviderId: string; secret: string };
  const send = (text: string, key = secret, id = dataProviderId) =>
    rest(stack, 'POST', `/dataprovider/v1/${id}/events`, {
      headers: { 'X-DataProvider-Signature': createHmac('sha256', key).update(text).digest('hex') },
      rawBody: text,
    });

  expect((await send('{"score":1}')).status).toBe(201);
  expect((await send('{"score":2}', 'a wrong secret')).status).toBe(401);
  expect((await send('{"score":"two"}')).status).toBe(400);
  expect((await send('{"score":3}', secret, 'f'.repeat(24))).status).toBe(403);
  expect((await send('{"score":4}')).status).toBe(201);
  expect((await send('{"score":5}')).status).toBe(429);

  // A webhook receiver that refuses the first delivery and takes the retry.
  let calls = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead((calls += 1) === 1 ? 500 : 204).end());
  });
  servers.push(receiver);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = await rest(stack, 'POST', '/webhook/v1/', {
    headers: site.admin,
    body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['admin.channelUpdated'], description: 'ops' },
  });
  expect(endpoint.status).toBe(201);
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'metered',
      type: 'channel',
      renderers: { livestream: { livestream_published: false, stream_id: 's' } },
      seo: { title: 'T', description: 'D', keywords: 'k' },
      data: { name: 'Metered' },
    },
  });
  expect(page.status).toBe(200);

  const after = await eventually(stack, (samples) => total(samples, 'stagegraph_webhook_deliveries_total', { outcome: 'retrying' }) >= 1);
  const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
  expect(moved('stagegraph_data_events_total', { outcome: 'accepted' })).toBe(2);
  expect(moved('stagegraph_data_events_total', { outcome: 'rejected', reason: 'signature' })).toBe(1);
  expect(moved('stagegraph_data_events_total', { outcome: 'rejected', reason: 'schema' })).toBe(1);
  expect(moved('stagegraph_data_events_total', { outcome: 'rejected', reason: 'not_found' })).toBe(1);
  expect(moved('stagegraph_data_events_total', { outcome: 'rejected', reason: 'rate_limited' })).toBe(1);
  expect(moved('stagegraph_webhook_deliveries_total', { outcome: 'retrying' })).toBe(1);
  expect(moved('stagegraph_webhook_delivery_duration_seconds_count', {})).toBeGreaterThanOrEqual(1);
});

it('never turns an ID or a path a client sends into a label value', async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  const before = await scrape(stack);
  const ids: string[] = [];
  for (let batch = 0; batch < 10; batch += 1) {
    await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const id = `${batch.toString(16).padStart(2, '0')}${index.toString(16).padStart(2, '0')}${'a1b2c3d4e5f6a7b8c9d0'}`;
        ids.push(id);
        // A route with an ID in its path, an unknown path carrying the ID, and (for a fifth) an operation named after it.
        await rest(stack, 'GET', `/overlay/v1/${id}`, { headers: site.admin });
        await rest(stack, 'GET', `/nowhere/${id}`);
        if (batch < 2) await graphql(stack, `query Q${id} { overlays { id } }`, {}, site.admin);
      }),
    );
  }
  const samples = await scrape(stack);
  const values = new Set(samples.flatMap((sample) => Object.values(sample.labels)));
  for (const id of ids) {
    for (const value of values) expect(value.includes(id)).toBe(false);
  }
  expect(values.has(site.siteId)).toBe(false);
  const moved = (name: string, labels: Record<string, string>) => total(samples, name, labels) - total(before, name, labels);
  expect(moved('stagegraph_http_requests_total', { route: '/overlay/v1/{id}', status: '404' })).toBe(500);
  expect(moved('stagegraph_http_requests_total', { route: 'unmatched' })).toBe(500);
  expect(moved('stagegraph_graphql_operations_total', { operation: 'other' })).toBe(100);
}, 90_000);

it('serves /metrics to loopback callers, and off loopback only with the METRICS_TOKEN', async () => {
  const stack = await startTestStack({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
  expect((await fetch(`${stack.url}/metrics`)).status).toBe(200);
  // Through a proxy (which names the real client) the caller is not loopback any more.
  const proxied = await fetch(`${stack.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
  expect(proxied.status).toBe(401);
  expect(await proxied.json()).toEqual({ success: false, message: expect.stringContaining('METRICS_TOKEN') });
  const wrong = await fetch(`${stack.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer metrics-token-wrong-value' } });
  expect(wrong.status).toBe(401);
  const right = await fetch(`${stack.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer metrics-token-0123456789' } });
  expect(right.status).toBe(200);
  expect(await right.text()).toContain('stagegraph_http_requests_total');
  // A subgraph's own port serves its process's metrics too (for subgraphs run as their own processes).
  const subgraph = await fetch(stack.subgraphs.integrations.url.replace(/\/graphql$/, '/metrics'));
  expect(subgraph.status).toBe(200);
  expect(await subgraph.text()).toContain('# HELP stagegraph_data_events_total');
});
