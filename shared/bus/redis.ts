/**
 * Redis pub/sub bus (ioredis). One connection publishes, one subscribes; ioredis reconnects with
 * backoff and re-subscribes by itself, so a Redis restart interrupts delivery but loses no subscriber.
 */
import Redis from 'ioredis';
import type { Logger } from '../logger';
import type { BusHandler, EventBus } from './index';

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
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      logger.warn({ channel: name }, 'dropped a bus message that is not JSON');
      return;
    }
    for (const handler of set) handler(message);
  });

  return {
    async publish(topic, message) {
      await publisher.publish(channel(topic), JSON.stringify(message));
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
