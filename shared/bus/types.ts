/** The event bus's shapes: what a bus does, what a delivery carries, and the error of a bus that cannot carry. */
import { ErrorCode } from '../errors';
import type { Fold, HoldMode } from './announcer';

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
