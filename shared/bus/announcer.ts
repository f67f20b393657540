/**
 * Announcements that must not be lost to a Redis blip: a message saying state changed in the database
 * ("room R holds messages up to seq N"), which every instance acts on by reading the database. The bus
 * refuses a publish while Redis is away (shared/bus/redis.ts), and such an announcement is not carried
 * by anything else: a message stored and acknowledged during the blip would reach no viewer on another
 * instance until something else happened in its room. So an announcement the bus refuses is held and
 * offered again until the bus takes it. Announcements of one key (a room) replace each other while held:
 * the latest says all the earlier ones did.
 */
import type { Logger } from '../logger';
import type { EventBus } from './index';

/** How often held announcements are offered to the bus again. */
const RETRY_MS = 250;
/** Keyless announcements held at most (the oldest give way), so an outage of hours holds bounded memory. */
const HELD_MAX = 10_000;

export interface Announcer {
  /**
   * Publishes `message` on the topic; when the bus refuses it, holds it and publishes it again once the
   * bus is back. A `key` makes it replace the announcement of the same key still held (the latest wins).
   */
  announce(message: unknown, key?: string): void;
  stop(): void;
}

export function createAnnouncer(bus: EventBus, topic: string, logger: Logger): Announcer {
  /** Per key, the latest announcement held and its place among all announced (a late refusal of an older one never replaces it). */
  const keyed = new Map<string, { message: unknown; order: number }>();
  const keyless: unknown[] = [];
  let announced = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const held = () => keyed.size + keyless.length;

  const hold = (message: unknown, key: string | undefined, order: number) => {
    if (held() === 0) logger.warn({ topic }, 'the bus refused an announcement; holding announcements until it is back');
    if (key !== undefined) {
      if ((keyed.get(key)?.order ?? -1) < order) keyed.set(key, { message, order });
    } else {
      if (keyless.length >= HELD_MAX) keyless.shift();
      keyless.push(message);
    }
    if (!timer && !stopped) timer = setTimeout(() => void offerHeld(), RETRY_MS).unref();
  };

  /** Offers the held announcements in order; stops at the first the bus refuses and tries again later. */
  const offerHeld = async () => {
    try {
      for (const [key, entry] of keyed) {
        await bus.publish(topic, entry.message);
        // A newer announcement of the key may have replaced this one meanwhile: it stays held.
        if (keyed.get(key) === entry) keyed.delete(key);
      }
      while (keyless.length > 0) {
        const message = keyless[0];
        await bus.publish(topic, message);
        const index = keyless.indexOf(message);
        if (index >= 0) keyless.splice(index, 1);
      }
    } catch {
      // Still away: offered again below.
    }
    timer = null;
    if (held() > 0 && !stopped) timer = setTimeout(() => void offerHeld(), RETRY_MS).unref();
    else if (held() === 0) logger.info({ topic }, 'held announcements published');
  };

  return {
    announce(message, key) {
      const order = (announced += 1);
      // While some are held the bus is away: later ones join them rather than overtake them.
      if (held() > 0) {
        hold(message, key, order);
        return;
      }
      bus.publish(topic, message).catch(() => hold(message, key, order));
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
