/**
 * Waiting on conditions, never on clocks: a test that sleeps for a fixed time passes on an idle machine and
 * fails by chance under the whole suite's load. `eventually` polls a condition until it holds, with a
 * deadline generous enough for a loaded CI machine; the deadline is a failure, never a pass.
 */

/**
 * Thrown by a read that saw what no amount of waiting changes (a status the wait does not expect, an
 * answer of the wrong shape): `until` and `eventually` fail with it at once instead of polling again, so
 * a 500 is reported as the 500 it is, not as a deadline missed 30 s later.
 */
export class NotRetryable extends Error {}

/**
 * The reply, when its status is one of `statuses`; any other status throws NotRetryable with the status
 * and body. For the reads a wait polls: `until(async () => expectStatus(await read(), 200), …)`.
 */
export function expectStatus<R extends { status: number; body?: unknown }>(reply: R, ...statuses: number[]): R {
  if (!statuses.includes(reply.status))
    throw new NotRetryable(`answered ${reply.status} (the wait expects ${statuses.join(' or ')}): ${JSON.stringify(reply.body)?.slice(0, 500)}`);
  return reply;
}

/** Whether an error a read threw means "not yet": not a NotRetryable, nor a failed expect() (a verdict). */
function retryable(error: unknown): boolean {
  if (error instanceof NotRetryable) return false;
  return !(typeof error === 'object' && error !== null && 'matcherResult' in error);
}

/** How long a wait gives a condition before it fails: generous for a loaded CI machine (the deadline is a failure, never a pass). */
export const DEADLINE_MS = 30_000;

/** Resolves after `ms`; only for pacing a loop that polls a condition, never as the wait itself. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` until `test` holds for its value and returns that value; fails with `what` and the last
 * value seen when `timeoutMs` passes first. A `read` that throws counts as "not yet" (a server still
 * starting refuses connections), except a NotRetryable or a failed expect(), which fail the wait at once.
 */
export async function until<T>(read: () => T | Promise<T>, test: (value: T) => boolean, what: string, timeoutMs = DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = 'nothing read';
  for (;;) {
    try {
      const value = await read();
      if (test(value)) return value;
      last = value;
    } catch (error) {
      if (!retryable(error)) throw error;
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last seen: ${JSON.stringify(last)?.slice(0, 2000)})`);
    await pause(25);
  }
}

/** Polls `check` until it answers true; fails with `what` when `timeoutMs` passes first. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = DEADLINE_MS): Promise<void> {
  await until(check, (value) => value, what, timeoutMs);
}
