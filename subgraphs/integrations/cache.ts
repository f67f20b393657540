/**
 * A small cache of loads in flight or done, for what the ingestion path reads on every event (data
 * providers, their active rules): each key is loaded once and kept for a while, a failed load is not
 * kept, and `drop` (called when the bus says the data changed) makes the next reader load afresh.
 */
export class LoadCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expires > Date.now()) return entry.value;
    // The oldest entry makes room: a Map iterates in insertion order.
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    const value = load();
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /** A load under way is not reused after this. */
  drop(key: string): void {
    this.entries.delete(key);
  }
}
