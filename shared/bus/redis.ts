/**
 * Redis pub/sub bus (ioredis). One connection publishes, one subscribes; ioredis reconnects with
 * backoff and re-subscribes by itself, so a Redis restart interrupts delivery but loses no subscriber.
 */
import Redis from 'ioredis';
import type { Logger } from '../logger';
import { recordBusDelivery } from '../metrics';
import { activeTraceparent } from '../tracing';
import type { BusDelivery, BusHandler, EventBus } from './index';

/** What goes over Redis: the message with when (and from which trace) it was published. */
interface Envelope {
  at: number;
  tp?: string;
  m: unknown;
}

export function createRedisBus(url: string, prefix: string, logger: Logger): EventBus {
  const options = { maxRetriesPerRequest: 2, enableOfflineQueue: true, retryStrategy: (times: number) => Math.min(times * 200, 2000) };
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, options);
  const handlers = new Map<string, Set<BusHandler>>();
  /** Subscribe commands Redis has not acknowledged yet; the bus is not ready until they are. */
  const pending = new Set<Promise<unknown>>();
  const channel = (topic: string) => `${prefix}:${topic}`;

  for (const connection of [publisher, subscriber]) {
    connection.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection error'));
  }
  subscriber.on('message', (name: string, raw: string) => {
    const set = handlers.get(name);
    if (!set) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      logger.warn({ channel: name }, 'dropped a bus message that is not JSON');
      return;
    }
    if (typeof envelope !== 'object' || envelope === null || typeof envelope.at !== 'number' || !('m' in envelope)) {
      logger.warn({ channel: name }, 'dropped a bus message without its envelope');
      return;
    }
    const delivery: BusDelivery = { publishedAt: envelope.at, traceparent: envelope.tp };
    recordBusDelivery(name.slice(prefix.length + 1), envelope.at);
    for (const handler of set) handler(envelope.m, delivery);
  });

  return {
    async publish(topic, message) {
      const envelope: Envelope = { at: Date.now(), tp: activeTraceparent(), m: message };
      await publisher.publish(channel(topic), JSON.stringify(envelope));
    },
    subscribe(topic, handler) {
      const name = channel(topic);
      let set = handlers.get(name);
      if (!set) {
        handlers.set(name, (set = new Set()));
        const subscribed = subscriber
          .subscribe(name)
          .catch((error: Error) => logger.error({ err: error.message, channel: name }, 'redis subscribe failed'))
          .finally(() => pending.delete(subscribed));
        pending.add(subscribed);
      }
      set.add(handler);
      return () => {
        set.delete(handler);
        if (set.size === 0) {
          handlers.delete(name);
          subscriber.unsubscribe(name).catch(() => undefined);
        }
      };
    },
    async ready() {
      if (publisher.status !== 'ready' || subscriber.status !== 'ready' || pending.size > 0) return false;
      try {
        return (await publisher.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      handlers.clear();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}
