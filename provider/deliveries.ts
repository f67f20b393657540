/**
 * Calls from the provider to the service: stream-state webhooks (`POST /stream/v1/webhook`) and
 * recordings (`POST /video/v3/vod`), with the registration's Bearer token. Each is kept in the state
 * folder until the service answers 200; any other answer, or none, is retried with exponential
 * backoff (seed 000, Events 4). Per stream they go strictly in order: a stream's next call waits
 * until the one before it was taken, so the service sees connected, active, disconnected, idle.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/logger';
import type { ProviderConfig } from './config';
import type { ProviderState, Registration } from './state';

/** Attempts before a call the service keeps refusing is given up (about 15 minutes at the default backoff). */
const MAX_ATTEMPTS = 20;

export class ServiceDeliveries {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<string>();
  private closed = false;

  constructor(
    private readonly state: ProviderState,
    private readonly registration: () => Registration | null,
    private readonly config: Pick<ProviderConfig, 'retryBaseMs' | 'retryMaxMs' | 'callTimeoutMs'>,
    private readonly logger: Logger,
  ) {}

  /** Queues a webhook for the stream; `time` is when it happened. */
  webhook(streamId: string, type: 'connected' | 'active' | 'disconnected' | 'idle', time = Date.now()): Promise<void> {
    return this.enqueue(streamId, '/stream/v1/webhook', { type, id: streamId, time });
  }

  /** Queues a simulcast target's state (ours), in the stream's simulcast queue: it never holds up the seed's webhooks. */
  simulcast(streamId: string, target: { name: string; state: string; reason: string | null }, time = Date.now()): Promise<void> {
    return this.enqueue(streamId, '/stream/v1/webhook', { type: 'simulcast', id: streamId, time, simulcastTarget: target }, `${streamId}:simulcast`);
  }

  /** Queues a finished recording's delivery. */
  vod(streamId: string, body: { durationSeconds: number; liveBroadcastId: string; vodId: string; url: string }): Promise<void> {
    return this.enqueue(streamId, '/video/v3/vod', { ...body, streamId });
  }

  private async enqueue(streamId: string, path: string, body: object, lane?: string): Promise<void> {
    this.state.data.outbox.push({ id: randomUUID(), streamId, path, body, ...(lane ? { lane } : {}), attempts: 0, nextAttemptAt: Date.now() });
    await this.state.save();
    this.kick();
  }

  /** Sends every stream's first waiting call that is due, and plans a wake-up for the next one. */
  kick(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    const heads = new Map<string, (typeof this.state.data.outbox)[number]>();
    for (const delivery of this.state.data.outbox) {
      const lane = delivery.lane ?? delivery.streamId;
      if (!heads.has(lane)) heads.set(lane, delivery);
    }
    let nextAt = Infinity;
    for (const delivery of heads.values()) {
      if (this.inFlight.has(delivery.id)) continue;
      if (delivery.nextAttemptAt <= now) void this.send(delivery.id);
      else nextAt = Math.min(nextAt, delivery.nextAttemptAt);
    }
    if (nextAt !== Infinity) this.timer = setTimeout(() => this.kick(), nextAt - now);
  }

  /** Calls not yet taken by the service. */
  get pending(): number {
    return this.state.data.outbox.length;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async send(id: string): Promise<void> {
    const delivery = this.state.data.outbox.find((entry) => entry.id === id);
    const registration = this.registration();
    if (!delivery) return;
    this.inFlight.add(id);
    let failure: string;
    try {
      if (!registration) throw new Error('the provider is not registered with a service');
      const response = await fetch(new URL(delivery.path, registration.serviceUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${registration.authorization}` },
        body: JSON.stringify(delivery.body),
        signal: AbortSignal.timeout(this.config.callTimeoutMs),
      });
      const text = await response.text();
      failure = response.status === 200 ? '' : `answered ${response.status} ${text.slice(0, 200)}`;
    } catch (error) {
      failure = (error as Error).message;
    }
    this.inFlight.delete(id);
    delivery.attempts += 1;
    if (failure === '' || delivery.attempts >= MAX_ATTEMPTS) {
      if (failure)
        this.logger.error({ path: delivery.path, streamId: delivery.streamId, attempts: delivery.attempts, failure }, 'giving up a call to the service');
      this.state.data.outbox = this.state.data.outbox.filter((entry) => entry.id !== id);
    } else {
      const backoff = Math.min(this.config.retryMaxMs, this.config.retryBaseMs * 2 ** (delivery.attempts - 1));
      delivery.nextAttemptAt = Date.now() + backoff;
      this.logger.warn(
        { path: delivery.path, streamId: delivery.streamId, attempt: delivery.attempts, retryInMs: backoff, failure },
        'call to the service failed',
      );
    }
    await this.state.save().catch((error: Error) => this.logger.error({ err: error }, 'could not save the provider state'));
    this.kick();
  }
}
