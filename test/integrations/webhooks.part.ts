/**
 * admin.channelUpdated webhooks, received by a real HTTP server: registration, the seed's eventData,
 * HMAC signatures, retries with exponential backoff, giving up, at-least-once delivery across a
 * restart, and tenancy.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import { expectStatus, until } from '../helpers/wait';
import { verifyWebhookSignature } from '../../subgraphs/content/webhooks';
import { documentedSignatureHolds, SIGNATURE_TOLERANCE_MS } from '../helpers/webhookSignature';
import type { Stack } from '../../stack';
import { registerShowProvider } from '../helpers/show';
import { startFakeStreamProvider } from '../helpers/streamProvider';

const RETRY_BASE_MS = 50;
// A partner here runs in the test's own event loop: a timeout of seconds, so a stall of the loaded machine is
// never taken for a partner that did not answer (which the tests show with partners that never answer).
const env = { WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS), WEBHOOK_MAX_ATTEMPTS: '4', WEBHOOK_TIMEOUT_MS: '2000' };

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Waits until `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
}

const servers: Server[] = [];

/** A webhook receiver; `answer` gives the status of the n-th request (0-based), or null to never answer. */
async function startReceiver(answer: (n: number) => number | null = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = answer(received.length);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      if (status !== null) res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    async waitFor(count, timeoutMs) {
      await until(
        () => received.length,
        (length) => length >= count,
        `${count} webhook requests received`,
        timeoutMs,
      );
      return received.slice(0, count);
    },
  };
}

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack({ env });
  site = await createTestSite(stack, 'Hooked site');
  other = await createTestSite(stack, 'Other site');
});
afterAll(async () => {
  servers.forEach((server) => server.closeAllConnections());
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await stopAll();
});

async function register(owner: TestSite, url: string, events = ['admin.channelUpdated']) {
  const reply = await rest(stack, 'POST', '/webhook/v1/', { headers: owner.admin, body: { url, events, description: 'ops' } });
  expect(reply.status).toBe(201);
  return reply.body as { _id: string; secret: string };
}

let slugs = 0;
async function createChannel(owner: TestSite, extra: Record<string, unknown> = {}, s = stack) {
  const reply = await rest(s, 'POST', '/pages/v3', {
    headers: owner.admin,
    body: {
      slug: `hooked-${++slugs}`,
      type: 'channel',
      // One stream, one channel of a site: each channel names its own.
      renderers: { livestream: { livestream_published: false, stream_id: `stream-${slugs}` } },
      seo: { title: 'Finals', description: 'the final match', keywords: 'final,live' },
      data: { name: 'Finals night' },
      ...extra,
    },
  });
  expect(reply.status).toBe(200);
  return reply.body as { _id: string; slug: string };
}

it('delivers admin.channelUpdated with its streamId when a stream is attached to the channel', async () => {
  const provider = await startFakeStreamProvider();
  try {
    const receiver = await startReceiver();
    const endpoint = await register(site, receiver.url);
    const page = await createChannel(site, { renderers: { livestream: { livestream_published: false } } });
    const [created] = await receiver.waitFor(1);
    expect(JSON.parse(created.body)).toMatchObject({ change: 'created', eventData: { channelId: page._id, streamId: null } });
    const contract = await registerShowProvider(stack, site, provider);
    const stream = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: page._id, contractId: contract.id, fallbackImageUrl: 'https://images.fake.test/fallback.png' },
    });
    expect(stream.status).toBe(201);
    const [, attached] = await receiver.waitFor(2);
    expect(JSON.parse(attached.body)).toMatchObject({
      event: 'admin.channelUpdated',
      change: 'updated',
      eventData: { channelId: page._id, event: 'admin.channelUpdated', siteId: site.siteId, streamId: stream.body._id },
    });
    // A second stream leaves the channel's own in place: nothing changed, nothing delivered.
    const second = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: page._id, contractId: contract.id, fallbackImageUrl: 'https://images.fake.test/fallback.png' },
    });
    expect(second.status).toBe(201);
    const deliveries = await stack.database.prisma.webhookDelivery.count({ where: { endpointId: endpoint._id } });
    expect(deliveries).toBe(2);
    await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: site.admin });
  } finally {
    await provider.close();
  }
});

it('registers an endpoint with a secret shown once', async () => {
  const receiver = await startReceiver();
  const endpoint = await register(site, receiver.url);
  expect(endpoint).toEqual({
    _id: expect.any(String),
    siteId: site.siteId,
    url: receiver.url,
    events: ['admin.channelUpdated'],
    description: 'ops',
    active: true,
    secret: expect.stringMatching(/^whsec_/),
    created: expect.any(Number),
    modified: expect.any(Number),
  });
  const listed = await rest(stack, 'GET', '/webhook/v1/', { headers: site.admin });
  expect(listed.body.find((item: { _id: string }) => item._id === endpoint._id).secret).toBeUndefined();
  const stored = await stack.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint._id } });
  expect(stored.sealedSecret).not.toContain(endpoint.secret);
  await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: site.admin });
});

it('delivers admin.channelUpdated, signed, with the seed’s eventData', async () => {
  const receiver = await startReceiver();
  const endpoint = await register(site, receiver.url);
  const page = await createChannel(site);
  const [delivery] = await receiver.waitFor(1);

  expect(delivery.headers['content-type']).toBe('application/json');
  expect(delivery.headers['x-stagegraph-event']).toBe('admin.channelUpdated');
  const signature = delivery.headers['x-stagegraph-signature'] as string;
  expect(documentedSignatureHolds(signature, delivery.body, endpoint.secret, delivery.at)).toBe(true);
  expect(documentedSignatureHolds(signature, delivery.body, 'whsec_wrong', delivery.at)).toBe(false);
  expect(documentedSignatureHolds(signature, `${delivery.body} `, endpoint.secret, delivery.at)).toBe(false);
  // The documented replay window: the same delivery received over 5 minutes later is refused, by the documented
  // check and by the receiver's helper the server ships (the two agree on the format).
  const later = Number(/^t=(\d+),/.exec(signature)?.[1]) + SIGNATURE_TOLERANCE_MS + 1;
  expect(documentedSignatureHolds(signature, delivery.body, endpoint.secret, later)).toBe(false);
  expect(verifyWebhookSignature(signature, delivery.body, endpoint.secret)).toBe(true);
  expect(verifyWebhookSignature(signature, delivery.body, endpoint.secret, SIGNATURE_TOLERANCE_MS, later)).toBe(false);

  const body = JSON.parse(delivery.body);
  expect(body).toEqual({
    id: expect.any(String),
    deliveryId: delivery.headers['x-stagegraph-delivery'],
    event: 'admin.channelUpdated',
    siteId: site.siteId,
    created: expect.any(Number),
    change: 'created',
    eventData: {
      channelId: page._id,
      channelName: 'Finals night',
      event: 'admin.channelUpdated',
      seo: { title: 'Finals', description: 'the final match', keywords: 'final,live' },
      siteId: site.siteId,
      streamId: `stream-${page.slug.replace('hooked-', '')}`,
    },
  });

  await rest(stack, 'PUT', `/pages/v3/${page._id}`, { headers: site.admin, body: { data: { name: 'Renamed' } } });
  await rest(stack, 'DELETE', `/pages/v3/${page._id}`, { headers: site.admin });
  const all = await receiver.waitFor(3);
  expect(all.slice(1).map((item) => [JSON.parse(item.body).change, JSON.parse(item.body).eventData.channelName])).toEqual([
    ['updated', 'Renamed'],
    ['deleted', 'Renamed'],
  ]);

  const deliveries = await rest(stack, 'GET', `/webhook/v1/${endpoint._id}/deliveries`, { headers: site.admin });
  expect(deliveries.body).toHaveLength(3);
  expect(deliveries.body.every((item: { status: string; attempts: number }) => item.status === 'delivered' && item.attempts === 1)).toBe(true);
  await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: site.admin });
});

it('retries a failed delivery with exponential backoff, the same delivery id and body each time', async () => {
  const receiver = await startReceiver((n) => (n < 2 ? [500, 503][n] : 200));
  const endpoint = await register(site, receiver.url);
  await createChannel(site);
  const attempts = await receiver.waitFor(3);
  const ids = attempts.map((attempt) => attempt.headers['x-stagegraph-delivery']);
  expect(new Set(ids).size).toBe(1);
  expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
  expect(attempts.map((attempt) => attempt.headers['x-stagegraph-attempt'])).toEqual(['1', '2', '3']);
  // Never sooner than the backoff allows: base, then twice the base.
  expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(RETRY_BASE_MS);
  expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
  for (const attempt of attempts)
    expect(documentedSignatureHolds(attempt.headers['x-stagegraph-signature'] as string, attempt.body, endpoint.secret, attempt.at)).toBe(true);

  const deliveries = await waitForDelivery(endpoint._id, 'delivered');
  expect(deliveries[0]).toMatchObject({ _id: ids[0], status: 'delivered', attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
  await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: site.admin });
});

/** The endpoint's deliveries once the first is `status`; an answer other than 200 fails at once. */
async function waitForDelivery(endpointId: string, status: string) {
  const read = async () => expectStatus(await rest(stack, 'GET', `/webhook/v1/${endpointId}/deliveries`, { headers: site.admin }), 200).body;
  return until(read, (deliveries) => deliveries[0]?.status === status, `the delivery ${status}`);
}

it('gives up after WEBHOOK_MAX_ATTEMPTS, counting timeouts as failures', async () => {
  const receiver = await startReceiver(() => null);
  const endpoint = await register(site, receiver.url);
  await createChannel(site);
  const deliveries = await waitForDelivery(endpoint._id, 'failed');
  expect(deliveries[0]).toMatchObject({ attempts: 4, lastStatusCode: null, lastError: expect.stringMatching(/no answer within 2000 ms/) });
  expect(receiver.received).toHaveLength(4);
  await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: site.admin });
});

it('sends only what an endpoint asked for: its site, its events, while active; landing pages report nothing', async () => {
  const mine = await startReceiver();
  const theirs = await startReceiver();
  const paused = await startReceiver();
  const endpoint = await register(site, mine.url, ['*']);
  const theirEndpoint = await register(other, theirs.url);
  const pausedEndpoint = await register(site, paused.url);
  const deactivated = await rest(stack, 'PUT', `/webhook/v1/${pausedEndpoint._id}`, { headers: site.admin, body: { active: false } });
  expect(deactivated.body.active).toBe(false);

  await createChannel(site, { type: 'landing' });
  const page = await createChannel(site);
  const [delivery] = await mine.waitFor(1);
  expect(JSON.parse(delivery.body).eventData.channelId).toBe(page._id);

  await createChannel(other);
  await theirs.waitFor(1);
  expect(mine.received).toHaveLength(1);
  expect(paused.received).toHaveLength(0);
  for (const [owner, id] of [
    [site, endpoint._id],
    [other, theirEndpoint._id],
    [site, pausedEndpoint._id],
  ] as const) {
    await rest(stack, 'DELETE', `/webhook/v1/${id}`, { headers: owner.admin });
  }
});

it('keeps an endpoint to its site, checks URLs and events, and rotates the secret', async () => {
  const receiver = await startReceiver();
  const endpoint = await register(site, receiver.url);
  expect((await rest(stack, 'GET', `/webhook/v1/${endpoint._id}`, { headers: other.admin })).status).toBe(404);
  expect((await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: other.admin })).status).toBe(404);
  expect((await rest(stack, 'GET', `/webhook/v1/${endpoint._id}/deliveries`, { headers: other.admin })).status).toBe(404);
  for (const body of [
    { url: 'ftp://example.test/hooks', events: ['*'] },
    { url: receiver.url, events: ['admin.nothing'] },
    { url: receiver.url, events: [] },
  ]) {
    const reply = await rest(stack, 'POST', '/webhook/v1/', { headers: site.admin, body });
    expect(reply.status).toBe(400);
  }
  expect(
    (await rest(stack, 'POST', '/webhook/v1/', { headers: { 'x-service-client-id': site.siteId }, body: { url: receiver.url, events: ['*'] } })).status,
  ).toBe(401);

  const rotated = await rest(stack, 'POST', `/webhook/v1/${endpoint._id}/rotate-secret`, { headers: site.admin });
  expect(rotated.body.secret).toMatch(/^whsec_/);
  expect(rotated.body.secret).not.toBe(endpoint.secret);
  await createChannel(site);
  const [delivery] = await receiver.waitFor(1);
  expect(documentedSignatureHolds(delivery.headers['x-stagegraph-signature'] as string, delivery.body, rotated.body.secret)).toBe(true);
  expect(documentedSignatureHolds(delivery.headers['x-stagegraph-signature'] as string, delivery.body, endpoint.secret)).toBe(false);
  await rest(stack, 'DELETE', `/webhook/v1/${endpoint._id}`, { headers: site.admin });
});

it('delivers at least once: a delivery pending when an instance stops is sent by the next one', async () => {
  let up = false;
  const receiver = await startReceiver(() => (up ? 200 : 503));
  const first = await startTestStack({ env: { ...env, WEBHOOK_RETRY_BASE_MS: '60000' } });
  const owner = await createTestSite(first, 'Restarted');
  const created = await rest(first, 'POST', '/webhook/v1/', { headers: owner.admin, body: { url: receiver.url, events: ['*'] } });
  await createChannel(owner, {}, first);
  await receiver.waitFor(1);
  await first.close();

  up = true;
  const second = await startTestStack({ sameDeploymentAs: first, env: { ...env, WEBHOOK_RETRY_BASE_MS: '10' } });
  // The stored retry is a minute away; make it due now, as it would be after that minute.
  await second.database.prisma.webhookDelivery.updateMany({ where: { endpointId: created.body._id }, data: { nextAttemptAt: new Date() } });
  await rest(second, 'GET', '/site/v1/', { headers: owner.admin });
  const [failed, delivered] = await receiver.waitFor(2);
  expect(delivered.headers['x-stagegraph-delivery']).toBe(failed.headers['x-stagegraph-delivery']);
  expect(delivered.body).toBe(failed.body);
});
