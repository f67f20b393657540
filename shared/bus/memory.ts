/** In-process event bus: a map of handler sets; delivery is deferred so publishers never wait on it. */
import type { Logger } from '../logger';
import { recordBusDelivery } from '../metrics';
import { activeTraceparent } from '../tracing';
import { createAnnouncer } from './announcer';
import type { BusDelivery, BusHandler, EventBus } from './types';

export function createMemoryBus(logger?: Logger): EventBus {
  const handlers = new Map<string, Set<BusHandler>>();
  const deliver = (topic: string, message: unknown) => {
    const set = handlers.get(topic);
    if (!set || set.size === 0) return;
    // A copy, as Redis would hand over: subscribers must not share the publisher's object.
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    const delivery: BusDelivery = { publishedAt: Date.now(), traceparent: activeTraceparent() };
    setImmediate(() => {
      recordBusDelivery(topic, delivery.publishedAt);
      for (const handler of set) handler(copy, delivery);
    });
  };
  const publish = async (topic: string, message: unknown) => deliver(topic, message);
  // This bus never refuses, so nothing is ever held; the announcer is here so every bus has one path.
  const announcer = createAnnouncer({ publish, deliverHere: deliver, logger });
  return {
    publish,
    announce: announcer.announce,
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
      announcer.stop();
      handlers.clear();
    },
  };
}
