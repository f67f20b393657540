/**
 * Turns on the event loop for request work, a few per loop iteration (as many as keep an iteration short):
 * slices of requests already started first, then requests that start, oldest first within each.
 *
 * libuv accepts one new connection per turn of the event loop (uv__server_io takes one from the listen
 * queue each time the socket is readable). With SQLite (node:sqlite, synchronous) every database read
 * resolves at once, so a GraphQL request never waits on I/O: once started it runs to its answer in one
 * drain of the microtask queue, and every request that arrived in the same turn runs in that turn too.
 * Under 50 clients of a deep query one turn then took a second or more, new connections were accepted one
 * per second, and the clients that opened them waited up to 20 s for their first answer (the p99 tail of
 * the gateway bench). A request that takes its turn here first, and again before each in-process subgraph
 * fetch, runs in slices of a few milliseconds: the loop turns between them, accepts, reads and writes, and
 * timers fire on time, whatever the number of requests in flight. Over PostgreSQL the reads wait on the
 * network anyway; a turn costs one pass of the loop (microseconds).
 */

/** Work waiting for its turn, oldest first, in one queue per kind of work. */
class Waiting {
  private readonly queue: (() => void)[] = [];
  private next = 0;

  get size(): number {
    return this.queue.length - this.next;
  }

  push(resolve: () => void): void {
    this.queue.push(resolve);
  }

  shift(): () => void {
    const resolve = this.queue[this.next];
    this.next += 1;
    if (this.next === this.queue.length) {
      this.queue.length = 0;
      this.next = 0;
    }
    return resolve;
  }
}

/** Slices of requests already started go first: see nextTurn. */
const continuing = new Waiting();
const starting = new Waiting();
let scheduled = false;

/**
 * A turn of the loop this short (its I/O and the slices it let run) lets the next turn admit twice as many
 * waiters; a longer one halves them, down to one. Slow slices (a deep query's fetch) then run one per turn, as
 * the accept starvation asks, while cheap ones (a join's one-subgraph reads) are not held to the rate at which
 * the loop turns, which under thousands of busy sockets is what it is.
 */
export const TURN_TARGET_MS = 8;
const MOST_PER_TURN = 64;
let perTurn = 1;
let lastTurnAt = 0;

/** Lets the next waiters run (as many as the last turn's length allows), then schedules the rest for the loop's next iteration. */
function takeTurn(): void {
  const now = performance.now();
  if (lastTurnAt > 0) perTurn = now - lastTurnAt < TURN_TARGET_MS ? Math.min(perTurn * 2, MOST_PER_TURN) : Math.max(1, perTurn >> 1);
  lastTurnAt = now;
  const admitted: (() => void)[] = [];
  while (admitted.length < perTurn && continuing.size + starting.size > 0) admitted.push(continuing.size > 0 ? continuing.shift() : starting.shift());
  // setImmediate from inside an immediate runs in the next iteration, after the loop has polled for I/O.
  if (continuing.size + starting.size > 0) setImmediate(takeTurn);
  else {
    scheduled = false;
    // Idle: the next burst starts from one per turn and finds its pace again.
    lastTurnAt = 0;
    perTurn = 1;
  }
  for (const resolve of admitted) resolve();
}

/** What a turn is for: a request that `starts`, or a later slice of one that is `continuing` (a fetch of its plan). */
export type TurnKind = 'starts' | 'continuing';

/**
 * Resolves when it is this caller's turn: in a later iteration of the event loop. Slices of requests
 * already started go before requests that start, oldest first within each: a request, once started, runs
 * to its answer in consecutive turns instead of sharing the process with every other request in flight
 * (which would hold all their intermediate results in memory at once, for the garbage collector to copy
 * again and again), and the ones waiting to start wait as requests, small. Await it before a slice of
 * synchronous work.
 */
export function nextTurn(kind: TurnKind = 'starts'): Promise<void> {
  return new Promise<void>((resolve) => {
    (kind === 'continuing' ? continuing : starting).push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(takeTurn);
    }
  });
}
