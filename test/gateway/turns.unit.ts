/**
 * Turns on the event loop (shared/turns.ts): work that asks for a turn runs oldest first, the loop polling for
 * I/O (accepts, reads, writes) between turns; slow slices get a turn each, cheap ones share turns while the
 * loop's turns stay short; slices of requests already started go before requests that start.
 */
import { nextTurn } from '../../shared/turns';

/** Counts the event loop's iterations: an immediate that schedules itself runs once per iteration. */
function loopIterations() {
  let count = 0;
  let running = true;
  const tick = () => {
    count += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    count: () => count,
    stop: () => {
      running = false;
    },
  };
}

describe('nextTurn', () => {
  it('runs slow waiters oldest first, each in a later iteration of the loop than the one before', async () => {
    const iterations = loopIterations();
    const seen: { waiter: number; iteration: number }[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (waiter) => {
        await nextTurn();
        seen.push({ waiter, iteration: iterations.count() });
        // A slice longer than a short turn (a deep query's fetch): the next one waits for the loop to turn.
        const until = performance.now() + 12;
        while (performance.now() < until);
      }),
    );
    iterations.stop();
    expect(seen.map((turn) => turn.waiter)).toEqual([0, 1, 2, 3, 4]);
    for (let index = 1; index < seen.length; index += 1) expect(seen[index].iteration).toBeGreaterThan(seen[index - 1].iteration);
  });

  it('lets cheap waiters share turns, oldest first, instead of one per iteration of the loop', async () => {
    const iterations = loopIterations();
    const order: number[] = [];
    const waiters = Array.from({ length: 200 }, (_, index) => index);
    const start = iterations.count();
    await Promise.all(
      waiters.map(async (waiter) => {
        await nextTurn();
        order.push(waiter);
      }),
    );
    const used = iterations.count() - start;
    iterations.stop();
    expect(order).toEqual(waiters);
    expect(used).toBeLessThan(waiters.length);
  });

  it('serves waiters that ask while others are being served, after them', async () => {
    const order: string[] = [];
    const first = (async () => {
      await nextTurn();
      order.push('first');
      const later = (async () => {
        await nextTurn();
        order.push('asked during the first');
      })();
      return later;
    })();
    const second = (async () => {
      await nextTurn();
      order.push('second');
    })();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second', 'asked during the first']);
  });

  it('gives slices of started requests their turns before requests that start, oldest first within each', async () => {
    const order: string[] = [];
    const take = async (kind: 'starts' | 'continuing', name: string) => {
      await nextTurn(kind);
      order.push(name);
    };
    await Promise.all([take('starts', 'request 1'), take('continuing', 'slice 1'), take('starts', 'request 2'), take('continuing', 'slice 2')]);
    expect(order).toEqual(['slice 1', 'slice 2', 'request 1', 'request 2']);
  });
});
