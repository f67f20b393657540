/**
 * The event bus carries what one instance must tell all others (overlay broadcasts and clears).
 * Unset REDIS_URL: an in-process bus, one instance. Set: a Redis Stream (redis.ts says why not plain
 * pub/sub), so any number of instances behind a load balancer serve the same sites.
 */
import { ErrorCode } from '../errors';
import type { Logger } from '../logger';
import type { Fold, HoldMode } from './announcer';
import { createMemoryBus } from './memory';
import { createRedisBus } from './redis';

/** When and from which trace a message was published (for bus-lag metrics and trace links). */
export interface BusDelivery {
  /** Milliseconds since the epoch when it was published. */
  publishedAt: number;
  /** The publisher's W3C traceparent, when tracing is on. */
  traceparent?: string;
}

export type BusHandler = (message: unknown, delivery: BusDelivery) => void;

export interface EventBus {
  /** Delivers `message` (JSON-serializable) to every subscriber of `topic` on every instance. */
  publish(topic: string, message: unknown): Promise<void>;
  /**
   * The path of every live push: publishes `message` on `topic`; while the bus refuses it, delivers it
   * to this instance's subscribers at once and holds it (the latest per `key`, or every one, as `mode`
   * says) until the bus is back. Never throws: the change it tells of is stored already (announcer.ts).
   */
  announce<T extends object>(topic: string, key: string, mode: HoldMode, message: T, fold?: Fold<T>): void;
  /** Returns the function that unsubscribes. Handlers run after publish returns, never inside it. */
  subscribe(topic: string, handler: BusHandler): () => void;
  /** True while the bus can deliver (a round trip to Redis; waited for at start). */
  ready(): Promise<boolean>;
  /** Whether the bus's connections are up now, without a round trip (/health details, a gauge). */
  connected(): boolean;
  close(): Promise<void>;
}

/** Thrown by `publish` while the bus cannot carry a message (Redis away); callers answer 503 or go on without it. */
export class BusUnavailableError extends Error {
  readonly code = ErrorCode.SERVICE_UNAVAILABLE;
  constructor(detail?: string) {
    super(detail ? `the event bus is unavailable: ${detail}` : 'the event bus is unavailable');
  }
}

export type { Fold, HoldMode } from './announcer';

export function createEventBus(options: { redisUrl: string | null; prefix: string; logger: Logger; maxLength?: number }): EventBus {
  return options.redisUrl
    ? createRedisBus({ url: options.redisUrl, prefix: options.prefix, logger: options.logger, maxLength: options.maxLength })
    : createMemoryBus(options.logger);
}

/**
 * Waits until the bus can deliver, or `timeoutMs` passes; a service starts either way (a bus that is
 * down shows in /ready and recovers by itself), but normally serves only once its bus is connected.
 */
export async function waitForBus(bus: EventBus, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await bus.ready()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** Topic names, in one place. */
export const Topics = {
  overlayBroadcasts: 'overlay-broadcasts',
  /** Live viewer counts each instance reports (gateway/livePresence.ts → overlays insights). */
  viewerPresence: 'viewer-presence',
  /** { siteId, dataProviderIds }: automation rules of these providers changed (caches drop them). */
  automationRulesChanged: 'automation-rules-changed',
  /** { dataProviderId }: a data provider was updated or removed (caches drop it). */
  dataProviderChanged: 'data-provider-changed',
  /** { siteId }: a site's viewer-facing content changed (null: any site); per-instance caches drop it (shared/viewerReads.ts). */
  viewerReadsChanged: 'viewer-reads-changed',
  /** { siteId, event }: a stream's state changed (admins' streamStateChanged subscriptions). */
  streamStates: 'stream-states',
  /** { v, siteId, pollId, answered? | changed? }: answers were stored or the poll changed (content → live poll results). */
  pollResults: 'poll-results',
  /** { siteId, events: [{ audience: accountId, event }] }: accounts' quest progress changed (viewers' questProgress subscriptions). */
  questProgress: 'quest-progress',
  /** { siteId, keyId, keyHash }: a developer key was revoked; every instance refuses it and ends its live connections (shared/auth/keyRevocations.ts). */
  developerKeyRevoked: 'developer-key-revoked',
  /** { v, siteId, panelId, kind, … }: chat messages stored, deleted or cleared (content → viewers' chatMessages, shared/chatEvents.ts). */
  chat: 'chat',
  /** { siteId, channelId, acceptedAt }: a channel's show changed (integrations → viewers' channelStatus, shared/channelStatus.ts). */
  channelStatus: 'channel-status',
} as const;
