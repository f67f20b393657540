/**
 * Turns on the event loop for request work, one per loop iteration, oldest first.
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

/** Work waiting for its turn, oldest first (`next` is the index of the oldest). */
const waiting: (() => void)[] = [];
let next = 0;
let scheduled = false;

/** Lets the oldest waiter run, then schedules the next one for the loop's next iteration. */
function takeTurn(): void {
  const resolve = waiting[next];
  next += 1;
  if (next === waiting.length) {
    waiting.length = 0;
    next = 0;
  }
  // setImmediate from inside an immediate runs in the next iteration, after the loop has polled for I/O.
  if (waiting.length > 0) setImmediate(takeTurn);
  else scheduled = false;
  resolve();
}

/**
 * Resolves when it is this caller's turn: in a later iteration of the event loop, after the work that
 * asked before it. Await it before a slice of synchronous work (a request, a subgraph fetch).
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(takeTurn);
    }
  });
}
