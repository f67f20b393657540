/**
 * A push's pass over a whole audience in slices of time (gateway/live/passSlices.ts): once its slice is
 * spent, the pass lets work that was waiting run before it writes to the next viewer.
 */
import { PASS_SLICE_MS, PassSlices } from '../../gateway/live/passSlices';

/** Busy for `ms` (a write to a slow socket, as the pass sees it). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

it('looks at the clock only every 64 viewers: past its slice, the 64th viewer is where it stops', () => {
  const slices = new PassSlices();
  busy(PASS_SLICE_MS + 1);
  const spent = Array.from({ length: 64 }, () => slices.spent());
  expect(spent.indexOf(true)).toBe(63);
  expect(spent.filter(Boolean)).toHaveLength(1);
});

it('once its slice is spent, lets waiting work run before the next viewer, then starts a fresh slice', async () => {
  const slices = new PassSlices();
  const order: string[] = [];
  setImmediate(() => order.push('waiting work'));
  let yields = 0;
  for (let viewer = 0; viewer < 256; viewer += 1) {
    if (viewer === 0) busy(PASS_SLICE_MS + 1);
    if (slices.spent()) {
      yields += 1;
      await slices.yield();
    }
    order.push(`viewer ${viewer}`);
  }
  expect(yields).toBeGreaterThanOrEqual(1);
  // The 64th viewer found the slice spent: the waiting work ran before it was written to.
  expect(order.indexOf('waiting work')).toBe(order.indexOf('viewer 62') + 1);
  expect(order.indexOf('viewer 63')).toBe(order.indexOf('waiting work') + 1);
});
