/** In-process event bus: a map of handler sets; delivery is deferred so publishers never wait on it. */
import { recordBusDelivery } from '../metrics';
import { activeTraceparent } from '../tracing';
import type { BusDelivery, BusHandler, EventBus } from './index';

export function createMemoryBus(): EventBus {
  const handlers = new Map<string, Set<BusHandler>>();
  return {
    async publish(topic, message) {
      const set = handlers.get(topic);
      if (!set || set.size === 0) return;
      // A copy, as Redis would hand over: subscribers must not share the publisher's object.
      const copy = JSON.parse(JSON.stringify(message)) as unknown;
      const delivery: BusDelivery = { publishedAt: Date.now(), traceparent: activeTraceparent() };
      setImmediate(() => {
        recordBusDelivery(topic, delivery.publishedAt);
        for (const handler of set) handler(copy, delivery);
      });
    },
    subscribe(topic, handler) {
      let set = handlers.get(topic);
      if (!set) handlers.set(topic, (set = new Set()));
      set.add(handler);
      return () => set.delete(handler);
    },
    async ready() {
      return true;
    },
    connected: () => true,
    async close() {
      handlers.clear();
    },
  };
}
