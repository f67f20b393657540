/**
 * A push's pass over thousands of viewers, in slices of time: the pass writes for PASS_SLICE_MS, then yields
 * to other work (setImmediate: the loop polls for I/O first), so a request waits at most about one slice per
 * turn of the loop however large the audience. Used by every feed that writes to a whole audience at once
 * (chat, poll results, channel status).
 *
 * The slice is half of the loop turn that lets requests waiting for their turn (shared/turns.ts) in more than
 * one at a time; the other half is theirs. A pass of a large room goes on for as long as it has viewers to
 * reach, so a slice as long as that turn held every request (a message's send and acknowledgement, the reads
 * that bring messages to the room) to one per turn of the loop. Measured (bench/turnSlices.ts): requests
 * queued for seconds beside 8 ms slices, tens of milliseconds beside 4 ms ones.
 */
import { TURN_TARGET_MS } from '../../shared/turns';

export const PASS_SLICE_MS = TURN_TARGET_MS / 2;
/** Viewers between two looks at the clock. */
const CLOCK_EVERY = 64;

export class PassSlices {
  private ends = performance.now() + PASS_SLICE_MS;
  private visited = 0;

  /** Counts one viewer; true when the slice is spent and the pass should `yield` before going on. */
  spent(): boolean {
    this.visited += 1;
    return this.visited % CLOCK_EVERY === 0 && performance.now() > this.ends;
  }

  /** Lets other work run, then starts the next slice. */
  async yield(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.ends = performance.now() + PASS_SLICE_MS;
  }
}
