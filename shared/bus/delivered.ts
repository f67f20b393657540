/**
 * Which live pushes this instance has delivered: a push held through a Redis blip is delivered here at
 * once and comes back over the bus once Redis is back (shared/bus/announcer.ts), and a publish whose
 * answer was lost may be offered twice. Remembering recent pushIds makes delivery once per instance a
 * fact of the receiving side, not of timing.
 */

/** PushIds remembered (the oldest forgotten first): far more than a blip's worth of held pushes. */
const REMEMBERED = 100_000;

export interface DeliveredOnce {
  /** True the first time a message's pushId is seen (and for a message without one); false after. */
  first(message: unknown): boolean;
}

export function deliveredOnce(remembered = REMEMBERED): DeliveredOnce {
  const seen = new Set<string>();
  return {
    first(message) {
      const pushId = typeof message === 'object' && message !== null ? (message as { pushId?: unknown }).pushId : undefined;
      if (typeof pushId !== 'string') return true;
      if (seen.has(pushId)) return false;
      seen.add(pushId);
      if (seen.size > remembered) seen.delete(seen.values().next().value as string);
      return true;
    },
  };
}
