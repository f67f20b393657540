/**
 * A client process's answer to `{type: 'collect'}` (harness.ts `receiptsOf`): a full garbage collection now,
 * between two broadcasts, so none falls in the middle of the next. Clients run with --expose-gc (startWorker).
 */
export function collectOnRequest(): void {
  (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ type: 'collected' });
}
