/** How a viewer worker (bench/viewers.ts, bench/showViewers.ts) opens its share: `concurrency` at a time, up to `count`. */
import type { ViewersStart } from './harness';

/** Opens `start.count` viewers, `start.concurrency` at once, each with its token when the start carries tokens. */
export async function openInBatches(start: ViewersStart, open: (token: string | undefined) => Promise<void>): Promise<void> {
  for (let opened = 0; opened < start.count; opened += start.concurrency) {
    const batch = Math.min(start.concurrency, start.count - opened);
    await Promise.all(Array.from({ length: batch }, (_, index) => open(start.tokens?.[opened + index])));
  }
}
