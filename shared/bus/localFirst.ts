/**
 * Announcements whose listeners in the announcing process must hear them before the write that caused
 * them is answered: a cache dropped only when the bus delivers would let the writer's next request read
 * the old value (the bus delivers after `publish` returns, and through Redis after a round trip). Other
 * instances hear them through the bus; listeners here hear them twice, so they must be idempotent.
 */
import type { EventBus } from './types';

type Listener = (message: unknown) => void;

const localListeners = new WeakMap<EventBus, Map<string, Set<Listener>>>();

/** Calls `listener` with every message of `topic`, announced here (at once) or on another instance. */
export function listenLocalFirst(bus: EventBus, topic: string, listener: Listener): () => void {
  let topics = localListeners.get(bus);
  if (!topics) localListeners.set(bus, (topics = new Map<string, Set<Listener>>()));
  let local = topics.get(topic);
  if (!local) topics.set(topic, (local = new Set()));
  local.add(listener);
  const unsubscribe = bus.subscribe(topic, (message) => listener(message));
  return () => {
    local.delete(listener);
    unsubscribe();
  };
}

/** Hands `message` to this process's listeners of `topic` now; the caller then publishes it on the bus. */
export function tellLocalListeners(bus: EventBus, topic: string, message: unknown): void {
  for (const listener of localListeners.get(bus)?.get(topic) ?? []) listener(message);
}
