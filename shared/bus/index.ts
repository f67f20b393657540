/**
 * The event bus carries what one instance must tell all others (overlay broadcasts and clears).
 * Unset REDIS_URL: an in-process bus, one instance. Set: a Redis Stream (redis.ts says why not plain
 * pub/sub), so any number of instances behind a load balancer serve the same sites.
 */
import type { Logger } from '../logger';
import { createMemoryBus } from './memory';
import { createRedisBus } from './redis';
import type { EventBus } from './types';

export { BusUnavailableError, type BusDelivery, type BusHandler, type EventBus } from './types';
export { Topics } from './topics';

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
