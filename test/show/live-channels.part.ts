/**
 * A viewer cannot invent channels: overlayBroadcasts to a channel that is not a channel page of the
 * viewer's site is refused (NOT_FOUND, naming channelId) on every transport, a deleted channel is refused
 * from then on, and an invented channel never shows up in the operator's concurrents.
 */
import { createClient as createSseClient } from 'graphql-sse';
import type { Client } from 'graphql-ws';
import { signSuperApiKey } from '../../shared/auth/credentials';
import { newId } from '../../shared/ids';
import type { Stack } from '../../stack';
import { rest } from '../helpers/http';
import { closeHttpViewers, openHttpViewer } from '../helpers/httpViewer';
import { scrape, total } from '../helpers/metrics';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { connectClient, connectedClient, VIEWER_SUBSCRIPTION, watch, type Viewer } from '../helpers/viewer';
import { DEADLINE_MS, until } from '../helpers/wait';

let stack: Stack;
let site: TestSite;
let other: TestSite;
const viewers: Viewer[] = [];

beforeAll(async () => {
  stack = await startTestStack({ env: { PRESENCE_INTERVAL_MS: '100' } });
  site = await createTestSite(stack, 'Channels');
  other = await createTestSite(stack, 'Other channels');
});
afterEach(async () => {
  closeHttpViewers();
  await Promise.all(viewers.splice(0).map((viewer) => viewer.close()));
});
afterAll(stopAll);

/** The errors a graphql-ws subscription ends with (or its first result). */
function overSocket(
  siteId: string,
  channelId: string,
): Promise<{ errors?: readonly { message: string; extensions?: Record<string, unknown> }[]; data?: unknown }> {
  const client = connectClient(stack, { 'x-service-client-id': siteId });
  return new Promise((resolve, reject) => {
    client.subscribe(
      { query: VIEWER_SUBSCRIPTION, variables: { channelId } },
      {
        next: (value) => resolve(value as never),
        error: (error) => resolve({ errors: error as never }),
        complete: () => undefined,
      },
    );
    setTimeout(() => reject(new Error(`no answer within the wait deadline (${DEADLINE_MS} ms)`)), DEADLINE_MS).unref();
  }).finally(() => client.dispose()) as never;
}

const expectRefused = (errors: readonly { message: string; extensions?: Record<string, unknown> }[] | undefined) => {
  expect(errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  expect(errors?.[0]?.message).toContain('channelId');
};

it('graphql-ws: an invented channel is refused with NOT_FOUND naming channelId, a real one is joined', async () => {
  expectRefused((await overSocket(site.siteId, 'stage')).errors);
  const channel = await createChannel(stack, site.siteId);
  viewers.push(await watch(stack, { siteId: site.siteId, channelId: channel }));
  viewers.push(await watch(stack, { siteId: site.siteId }));
});

it('graphql-sse’s client: an invented channel is refused', async () => {
  const client = createSseClient({ url: `${stack.url}/graphql/stream`, headers: { 'x-service-client-id': site.siteId }, retryAttempts: 0 });
  try {
    const failure = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: VIEWER_SUBSCRIPTION, variables: { channelId: 'pitch' } }, { next: resolve, error: resolve, complete: () => undefined });
    });
    // Refused before the stream starts: the client fails with the HTTP answer (404 and the errors as JSON).
    const { response } = failure as { response: Response };
    expect(response.status).toBe(404);
    expectRefused(((await response.json()) as { errors: never }).errors);
  } finally {
    client.dispose();
  }
});

it('multipart HTTP and SSE streams: an invented channel is answered 404 with NOT_FOUND naming channelId', async () => {
  for (const transport of ['multipart', 'sse'] as const) {
    const viewer = await openHttpViewer(stack, transport, {
      query: VIEWER_SUBSCRIPTION,
      variables: { channelId: 'arena' },
      headers: { 'x-service-client-id': site.siteId },
    });
    // Refused before the stream starts: an answer of its own, not a stream.
    expect(viewer.status).toBe(404);
    expectRefused(viewer.body.errors);
  }
});

it('another site’s channel, and a landing page, are refused', async () => {
  expectRefused((await overSocket(site.siteId, await createChannel(stack, other.siteId))).errors);
  expectRefused((await overSocket(site.siteId, await createChannel(stack, site.siteId, 'landing'))).errors);
});

it('a join storm of one channel asks once on the instance', async () => {
  const channel = await createChannel(stack, site.siteId);
  const asked = async () => total(await scrape(stack), 'stagegraph_graphql_operations_total', { operation: 'LiveChannelExists' });
  const before = await asked();
  const clients: Client[] = [];
  const sockets = await Promise.all(Array.from({ length: 20 }, () => connectedClient(stack, { 'x-service-client-id': site.siteId }, clients)));
  const subscriptions = stack.gateway.live.stats().subscriptions;
  const failures: unknown[] = [];
  // 200 viewers at once: 10 subscriptions on each of 20 sockets.
  for (const socket of sockets) {
    for (let index = 0; index < 10; index += 1)
      socket.subscribe(
        { query: VIEWER_SUBSCRIPTION, variables: { channelId: channel } },
        { next: () => undefined, error: (error) => failures.push(error), complete: () => undefined },
      );
  }
  try {
    await until(
      () => stack.gateway.live.stats().subscriptions,
      (count) => count >= subscriptions + 200 || failures.length > 0,
      '200 subscriptions joined',
    );
    expect(failures).toEqual([]);
    expect((await asked()) - before).toBe(1);
  } finally {
    await Promise.all(clients.map(async (client) => client.dispose()));
  }
});

it('a deleted channel is refused from then on', async () => {
  const created = await rest(stack, 'POST', '/pages/v3', { headers: site.admin, body: { slug: `gone-${newId()}`, type: 'channel', data: { name: 'Gone' } } });
  expect(created.status).toBe(200);
  const channel = created.body._id as string;
  viewers.push(await watch(stack, { siteId: site.siteId, channelId: channel }));
  expect((await rest(stack, 'DELETE', `/pages/v3/${channel}`, { headers: site.admin })).status).toBe(200);
  // The delete drops every instance's kept answer before it is answered: the very next subscribe is refused.
  expectRefused((await overSocket(site.siteId, channel)).errors);
});

it('an invented channel never shows up in /insights/v1/concurrents', async () => {
  const keyId = newId();
  await stack.database.prisma.superApiKey.create({ data: { id: keyId, name: 'ops', createdAt: new Date() } });
  const superApiKey = signSuperApiKey(keyId, stack.config.jwtSecret);
  const channel = await createChannel(stack, site.siteId);
  expectRefused((await overSocket(site.siteId, 'stage')).errors);
  viewers.push(await watch(stack, { siteId: site.siteId, channelId: channel }));
  const deadline = Date.now() + DEADLINE_MS;
  let channels: { _id: string }[] = [];
  // Viewers of earlier tests leave the counts within a report or two; the invented channel is never in them.
  const watched = () => channels.filter((entry) => (entry as { concurrents?: number }).concurrents! > 0).map((entry) => entry._id);
  while (watched().length !== 1 || watched()[0] !== channel) {
    expect(channels.map((entry) => entry._id)).not.toContain('stage');
    if (Date.now() > deadline) throw new Error(`the counts did not settle: ${JSON.stringify(channels)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reply = await rest(stack, 'GET', `/insights/v1/concurrents?siteIds=${site.siteId}`, { headers: { 'super-api-key': superApiKey } });
    channels = reply.body[0]?.channels ?? [];
  }
  expect(watched()).toEqual([channel]);
  expect(channels.map((entry) => entry._id)).not.toContain('stage');
});
