/**
 * A live viewer: the real graphql-ws client over a real WebSocket, subscribed to overlayBroadcasts.
 * Events are collected; `next()` waits for the next one, `none()` proves nothing arrives for a while.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Stack } from '../../stack';
import { type OverlayBroadcastEvent } from '../../shared/contracts/liveEvents';
import { scrape, total } from './metrics';
import { NotRetryable, until } from './wait';

export const VIEWER_SUBSCRIPTION = /* GraphQL */ `
  subscription Viewer($channelId: ID) {
    overlayBroadcasts(channelId: $channelId) {
      kind broadcastId channelId tagId variables startedAt expiresAt remainingSeconds
      overlay { id name type contents cta { type data } duration }
    }
  }
`;

/** What a viewer receives: the overlays subgraph's event, with free-form contents. */
export type ViewerEvent = Omit<OverlayBroadcastEvent, 'overlay'> & { overlay: OverlayBroadcastEvent['overlay'] & { contents: any } };

export interface Viewer {
  events: ViewerEvent[];
  next(timeoutMs?: number): Promise<ViewerEvent>;
  none(waitMs?: number): Promise<void>;
  close(): Promise<void>;
  /** Resolves with the close code when the server closes the socket. */
  closed: Promise<number>;
}

export function connectClient(stack: Pick<Stack, 'url'>, connectionParams: Record<string, unknown>, onClosed?: (code: number) => void): Client {
  return createClient({
    url: `${stack.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => undefined,
    on: { closed: (event) => onClosed?.((event as { code: number }).code) },
  });
}

/** A client connected and acknowledged (rejects if the server closes first); `clients` keeps it for disposal. */
export async function connectedClient(stack: Stack, connectionParams: Record<string, unknown>, clients: Client[]): Promise<Client> {
  const client = connectClient(stack, connectionParams);
  clients.push(client);
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', () => reject(new Error('closed before ack')));
  });
  return client;
}

/** A gateway in this process (a started stack), or one running as its own process, known by its URL. */
export type LiveGateway = Stack | Pick<Stack, 'url'>;

/** Subscriptions the gateway runs now: asked in process, or read from a gateway process's /metrics. */
async function subscriptionsOn(gateway: LiveGateway): Promise<number> {
  if ('gateway' in gateway) return gateway.gateway.live.stats().subscriptions;
  return total(await scrape(gateway), 'stagegraph_live_subscriptions');
}

export async function watch(stack: LiveGateway, options: { siteId: string; channelId?: string | null; token?: string }): Promise<Viewer> {
  let resolveClosed: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (resolveClosed = resolve));
  const params: Record<string, unknown> = { 'x-service-client-id': options.siteId };
  if (options.token) params.Authorization = `Bearer ${options.token}`;
  const client = connectClient(stack, params, resolveClosed);
  const events: ViewerEvent[] = [];
  const waiters: ((event: ViewerEvent) => void)[] = [];
  let read = 0;
  let failure: unknown = null;

  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (event) => reject(Object.assign(new Error('closed before ack'), { code: (event as { code: number }).code })));
    client.on('error', reject);
  });
  const before = await subscriptionsOn(stack);
  client.subscribe<{ overlayBroadcasts: ViewerEvent }>(
    { query: VIEWER_SUBSCRIPTION, variables: { channelId: options.channelId ?? null } },
    {
      next: (result) => {
        if (result.errors) failure = result.errors;
        const event = result.data?.overlayBroadcasts;
        if (!event) return;
        events.push(event);
        const waiter = waiters.shift();
        if (waiter) {
          read += 1;
          waiter(event);
        }
      },
      error: (error) => {
        failure = error;
      },
      complete: () => undefined,
    },
  );
  // Resolve once the server has registered the subscription, so a broadcast sent next reaches it; a
  // subscription the server refused fails at once.
  await until(
    async () => {
      if (failure) throw new NotRetryable(`the subscription failed: ${failure instanceof Error ? failure.message : JSON.stringify(failure)}`);
      return subscriptionsOn(stack);
    },
    (count) => count > before,
    'the subscription registered',
  );

  return {
    events,
    closed,
    next(timeoutMs = 15_000) {
      if (failure) return Promise.reject(failure instanceof Error ? failure : new Error(`the subscription failed: ${JSON.stringify(failure)}`));
      if (read < events.length) return Promise.resolve(events[read++]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
        waiters.push((event) => {
          clearTimeout(timer);
          resolve(event);
        });
      });
    },
    async none(waitMs = 300) {
      const before = events.length;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      if (events.length !== before) throw new Error(`expected no event, got ${JSON.stringify(events.slice(before))}`);
    },
    async close() {
      await client.dispose();
    },
  };
}
