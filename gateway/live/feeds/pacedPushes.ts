/**
 * What the feeds that read again and push at most once per interval share (feeds/pollResults.ts,
 * feeds/qaRoom.ts): one pending timer per poll or room, none once it closed, and a pass over its viewers in
 * slices of time that skips those who have what is current and defers those who had a push less than an
 * interval ago, so no viewer gets two within an interval however the rounds fall.
 */
import { PassSlices } from '../passSlices';

/** A poll's or room's pacing: its key in the feed's map, its one pending push, when the last round ended. */
export interface Paced {
  key: string;
  timer: NodeJS.Timeout | null;
  lastPushAt: number;
  closed: boolean;
}

/** Runs `push` after `delay` ms (now when negative), unless a push is pending already or the state closed. */
export function schedulePush(state: Paced, delay: number, push: () => void): void {
  if (state.timer || state.closed) return;
  state.timer = setTimeout(
    () => {
      state.timer = null;
      push();
    },
    Math.max(0, delay),
  );
  state.timer.unref();
}

/** Closes the state (no push runs after it) and takes it out of the feed's map. */
export function closePaced<S extends Paced>(states: Map<string, S>, state: S): void {
  state.closed = true;
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  if (states.get(state.key) === state) states.delete(state.key);
}

/** A viewer of a paced feed: when its last push went out. */
export interface PacedViewer {
  lastSentAt: number;
}

/**
 * One round of pushes over `viewers`: `send` goes to each viewer `due` says needs it, except those whose last
 * push is less than `intervalMs` old (deferred). Resolves with whether some were deferred (the caller
 * schedules another round), or null when the state closed during the round.
 */
export async function pushRound<V extends PacedViewer>(
  state: Paced,
  viewers: readonly V[],
  intervalMs: number,
  due: (viewer: V) => boolean,
  send: (viewer: V) => void,
): Promise<boolean | null> {
  const now = Date.now();
  let deferred = false;
  // In slices of time: votes and answers keep flowing while thousands get the round.
  const slices = new PassSlices();
  for (const viewer of viewers) {
    if (slices.spent()) {
      await slices.yield();
      if (state.closed) return null;
    }
    if (!due(viewer)) continue;
    if (now - viewer.lastSentAt < intervalMs) {
      deferred = true;
      continue;
    }
    send(viewer);
  }
  // The next round waits from the end of this one: no viewer, early or late in it, gets two within an interval.
  state.lastPushAt = Date.now();
  return deferred;
}
