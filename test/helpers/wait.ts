/**
 * Waiting on conditions, never on clocks: a test that sleeps for a fixed time passes on an idle machine and
 * fails by chance under the whole suite's load. `eventually` polls a condition until it holds, with a
 * deadline generous enough for a loaded CI machine; the deadline is a failure, never a pass.
 */

/** Resolves after `ms`; only for pacing a loop that polls a condition, never as the wait itself. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` until `test` holds for its value and returns that value; fails with `what` and the last
 * value seen when `timeoutMs` passes first. A `read` that throws counts as "not yet".
 */
export async function until<T>(read: () => T | Promise<T>, test: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = 'nothing read';
  for (;;) {
    try {
      const value = await read();
      if (test(value)) return value;
      last = value;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last seen: ${JSON.stringify(last)})`);
    await pause(25);
  }
}

/** Polls `check` until it answers true; fails with `what` when `timeoutMs` passes first. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  await until(check, (value) => value, what, timeoutMs);
}
