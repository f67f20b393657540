/**
 * The protocols' own clients against the real server: graphql-sse's `createClient` (distinct
 * connections mode) on /graphql/stream, and Apollo Client's HttpLink, whose subscriptions use the
 * multipart protocol on /graphql — Apollo Client also runs a query and a mutation through the gateway.
 * graphql-sse's client retries a stream a drain ended, and gets the live overlay back on another instance.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient, type Client } from 'graphql-sse';
import type { Stack } from '../../stack';
import { rest } from '../helpers/http';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { VIEWER_SUBSCRIPTION, type ViewerEvent } from '../helpers/viewer';
import { until } from '../helpers/wait';

let stack: Stack;
let site: TestSite;
/** Channels (pages) of the site the viewers watch. */
let stage: string;
let overlayId: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Client site');
  stage = await createChannel(stack, site.siteId);
  const body = { name: 'Lower third', type: 'template', contents: { html: '<p>${name}</p>' }, duration: 60 };
  overlayId = (await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body })).body._id;
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
});
afterAll(stopAll);

/** Collects what a subscription delivers; `next` waits for the next result. */
function collector<T>() {
  const results: T[] = [];
  const errors: unknown[] = [];
  let waiter: (() => void) | null = null;
  let read = 0;
  return {
    results,
    errors,
    push(result: T) {
      results.push(result);
      waiter?.();
    },
    fail(error: unknown) {
      errors.push(error);
      waiter?.();
    },
    async next(timeoutMs = 10_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      while (results.length <= read) {
        if (errors.length > 0) throw errors[0];
        if (Date.now() > deadline) throw new Error('no result in time');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deadline - Date.now());
          waiter = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return results[read++];
    },
  };
}

/** Waits until the live server of `on` holds at least `count` subscriptions. */
async function subscriptions(on: Stack, count: number): Promise<void> {
  await until(
    () => on.gateway.live.stats().subscriptions,
    (held) => held >= count,
    `${count} subscriptions held`,
  );
}

describe('graphql-sse’s createClient', () => {
  const sseClient = (url: string | (() => string), headers: Record<string, string>, options: Partial<Parameters<typeof createClient>[0]> = {}): Client => {
    const client = createClient({ url, headers, retryAttempts: 0, ...options });
    cleanups.push(() => client.dispose());
    return client;
  };

  it('subscribes with the site ID in headers and gets broadcasts, and runs a query', async () => {
    const client = sseClient(`${stack.url}/graphql/stream`, { 'x-service-client-id': site.siteId });
    const got = collector<{ data?: { overlayBroadcasts: ViewerEvent } }>();
    cleanups.push(
      client.subscribe(
        { query: VIEWER_SUBSCRIPTION, variables: { channelId: stage } },
        { next: (result) => got.push(result as never), error: (error) => got.fail(error), complete: () => undefined },
      ),
    );
    await subscriptions(stack, 1);
    const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, {
      headers: site.admin,
      body: { channelId: stage, variables: { name: 'Ada' } },
    });
    const event = (await got.next()).data?.overlayBroadcasts;
    expect(event).toMatchObject({ kind: 'SHOW', broadcastId: sent.body.broadcastId, channelId: stage });
    expect(event?.overlay.contents.html).toBe('<p>Ada</p>');

    const admin = sseClient(`${stack.url}/graphql/stream`, site.admin);
    const answer = await new Promise<unknown>((resolve, reject) => {
      let result: unknown = null;
      admin.subscribe({ query: '{ site { name } }' }, { next: (value) => (result = value), error: reject, complete: () => resolve(result) });
    });
    expect(answer).toEqual({ data: { site: { name: 'Client site' } } });
  });

  it('reports a refused credential as an error', async () => {
    const client = sseClient(`${stack.url}/graphql/stream`, { 'x-service-client-id': site.siteId, authorization: 'Bearer nope' });
    const error = await new Promise<unknown>((resolve) =>
      client.subscribe({ query: VIEWER_SUBSCRIPTION }, { next: () => undefined, error: resolve, complete: () => resolve(null) }),
    );
    expect(String(error)).toContain('401');
  });

  it('retries a stream a drain ended and has the live overlay back from another instance', async () => {
    const second = await startTestStack({ sameDeploymentAs: stack, env: { SHUTDOWN_GRACE_MS: '0' } });
    const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, { headers: site.admin, body: { channelId: stage } });
    // Like a balancer: the instance that drains first, then the other.
    let target = second;
    const client = sseClient(
      () => `${target.url}/graphql/stream`,
      { 'x-service-client-id': site.siteId },
      { retryAttempts: 5, retry: () => Promise.resolve() },
    );
    const got = collector<{ data?: { overlayBroadcasts: ViewerEvent } }>();
    cleanups.push(
      client.subscribe(
        { query: VIEWER_SUBSCRIPTION, variables: { channelId: stage } },
        { next: (result) => got.push(result as never), error: (error) => got.fail(error), complete: () => undefined },
      ),
    );
    expect((await got.next()).data?.overlayBroadcasts.broadcastId).toBe(sent.body.broadcastId);
    target = stack;
    await second.drain();
    // Back on the first instance, the client gets the live overlay at once.
    expect((await got.next()).data?.overlayBroadcasts.broadcastId).toBe(sent.body.broadcastId);
    expect(stack.gateway.live.stats().byTransport.sse).toBe(1);
    expect(got.errors).toEqual([]);
  });
});

describe('Apollo Client (HttpLink)', () => {
  const apollo = (headers: Record<string, string>) => {
    const client = new ApolloClient({ link: new HttpLink({ uri: `${stack.url}/graphql`, headers }), cache: new InMemoryCache() });
    cleanups.push(() => client.stop());
    return client;
  };

  it('runs a query and a mutation through the gateway, and gets the mutation’s broadcast on a multipart subscription', async () => {
    const viewerClient = apollo({ 'x-service-client-id': site.siteId });
    const got = collector<{ data?: { overlayBroadcasts: ViewerEvent } }>();
    const subscription = viewerClient.subscribe({ query: gql(VIEWER_SUBSCRIPTION), variables: { channelId: stage } }).subscribe({
      next: (result) => got.push(result as never),
      error: (error: unknown) => got.fail(error),
    });
    cleanups.push(() => subscription.unsubscribe());
    await subscriptions(stack, 1);

    const admin = apollo(site.admin);
    const query = await admin.query({ query: gql`query SiteName { site { name } }` });
    expect(query.data).toEqual({ site: { __typename: 'Site', name: 'Client site' } });
    const mutation = await admin.mutate({
      mutation: gql`mutation Show($id: ID!, $channelId: ID) { broadcastOverlay(id: $id, input: { channelId: $channelId }) { broadcastId kind } }`,
      variables: { id: overlayId, channelId: stage },
    });
    const broadcastId = (mutation.data as { broadcastOverlay: { broadcastId: string } }).broadcastOverlay.broadcastId;
    const event = (await got.next()).data?.overlayBroadcasts;
    expect(event).toMatchObject({ kind: 'SHOW', broadcastId, channelId: stage });

    // Unsubscribing aborts the request: the server frees the viewer.
    subscription.unsubscribe();
    await until(
      () => stack.gateway.live.stats().byTransport.multipart,
      (held) => held === 0,
      'the multipart viewer freed',
    );
  });

  it('reports the server’s refusal of a subscription without credentials', async () => {
    const client = apollo({});
    const error = await new Promise<unknown>((resolve) => {
      client
        .subscribe({ query: gql(VIEWER_SUBSCRIPTION) })
        .subscribe({ next: (result) => resolve(result.error), error: resolve, complete: () => resolve(null) });
    });
    expect(String(error)).toContain('401');
  });
});
