/**
 * The one path of every live push (poll results, quest progress, stream states, rule-fired overlay
 * broadcasts, chat rooms, channel status): a message saying state changed, which every instance acts
 * on. The bus refuses a publish while Redis is away (shared/bus/redis.ts), and nothing else carries such
 * a message: one produced during a blip would reach no viewer on another instance until something else
 * happened. So a message the bus refuses is
 * - delivered at once to this instance's own subscribers (its viewers see what it produces), and
 * - held and offered to the bus again until it takes it; then every other instance gets it.
 * Each message carries a `pushId`; an instance delivers a pushId at most once (the bus remembers the
 * recent ones, shared/bus/delivered.ts), so the copy that comes back over the bus after the blip is not
 * shown twice here.
 *
 * What is held per key depends on the push: `latest` keeps only the newest message of a key (a later
 * poll count or status says all the earlier did), `every` keeps each one (a quest completion matters on
 * its own). Held messages are offered in the order they were announced.
 */
import type { Logger } from '../logger';

/** How often held messages are offered to the bus again. */
const RETRY_MS = 250;
/** Messages held at most (the oldest give way), so an outage of hours holds bounded memory. */
const HELD_MAX = 10_000;

/** `latest`: a newer message of the key replaces a held one; `every`: each message is held. */
export type HoldMode = 'latest' | 'every';

/** A live push as it travels: any JSON object, stamped with the ID that makes its delivery once per instance. */
export type Pushed = Record<string, unknown> & { pushId?: string };

/** Combines a held message with a newer one of the same key (mode `latest`); the newer one by default. */
export type Fold<T> = (held: T, next: T) => T;

export interface Announcer {
  /**
   * Publishes `message` on `topic`. When the bus refuses it, delivers it to this instance's subscribers
   * at once and holds it (per `key`, as `mode` says) until the bus takes it. `fold` merges a held message
   * with a newer one of its key when the newer alone would not say everything (mode `latest` only).
   */
  announce: <T extends object>(topic: string, key: string, mode: HoldMode, message: T, fold?: Fold<T>) => void;
  stop(): void;
}

export interface AnnouncerDeps {
  publish: (topic: string, message: unknown) => Promise<void>;
  /** Hands a message to this instance's subscribers only (marking its pushId delivered). */
  deliverHere: (topic: string, message: unknown) => void;
  logger?: Pick<Logger, 'warn' | 'info'>;
}

interface Held {
  topic: string;
  message: Pushed;
}

export function createAnnouncer({ publish, deliverHere, logger }: AnnouncerDeps): Announcer {
  /** In the order announced; a `latest` key replaces its entry (moved to the end), an `every` message has an entry of its own. */
  const held = new Map<string, Held>();
  const instance = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  let counter = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const schedule = () => {
    if (!timer && !stopped) timer = setTimeout(() => void offerHeld(), RETRY_MS).unref();
  };

  const hold = (slot: string, entry: Held, fold: Fold<Pushed> | undefined) => {
    if (held.size === 0) logger?.warn({ topic: entry.topic }, 'the bus refused a live push; holding live pushes until it is back');
    const previous = held.get(slot);
    if (previous) {
      held.delete(slot);
      // The newer message's pushId stays: this instance delivered both already, every other instance neither.
      if (fold) entry = { topic: entry.topic, message: { ...fold(previous.message, entry.message), pushId: entry.message.pushId } };
    } else if (held.size >= HELD_MAX) {
      held.delete(held.keys().next().value as string);
    }
    held.set(slot, entry);
    schedule();
  };

  /** Offers the held messages in order; stops at the first the bus refuses and tries again later. */
  const offerHeld = async () => {
    try {
      for (const [slot, entry] of held) {
        await publish(entry.topic, entry.message);
        // A newer message of the key may have replaced this one meanwhile: it stays held.
        if (held.get(slot) === entry) held.delete(slot);
      }
    } catch {
      // Still away: offered again below.
    }
    timer = null;
    if (held.size > 0) schedule();
    else logger?.info({}, 'held live pushes published');
  };

  return {
    announce(topic, key, mode, message, fold) {
      counter += 1;
      const stamped: Pushed = { ...(message as Record<string, unknown>), pushId: `${instance}.${counter}` };
      const slot = mode === 'latest' ? `${topic}\u0000${key}` : `${topic}\u0000${key}\u0000${counter}`;
      const refused = () => {
        deliverHere(topic, stamped);
        hold(slot, { topic, message: stamped }, fold as Fold<Pushed> | undefined);
      };
      // While some are held the bus is away: later ones join them rather than overtake them.
      if (held.size > 0) refused();
      else publish(topic, stamped).catch(refused);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
