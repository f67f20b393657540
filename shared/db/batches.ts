/**
 * Micro-batches for hot write paths (data events, poll answers): items submitted in one turn of the
 * event loop, or while the previous batch is being written, go to the store together (one statement,
 * one commit), and each submitter is answered with its own item's result once the batch is committed —
 * so "durable before the answer" holds at a fraction of the cost of a commit per item.
 */
export class MicroBatcher<Item, Result> {
  private queue: { item: Item; done: (result: Result | undefined, error?: Error) => void }[] = [];
  private writing = false;
  private scheduled = false;

  /** `store` writes a batch and returns one result per item, in order. */
  constructor(
    private readonly store: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch: number,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, done: (result, error) => (error ? reject(error) : resolve(result as Result)) });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      const results = await this.store(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.done(results[index]));
    } catch (error) {
      for (const entry of batch) entry.done(undefined, error as Error);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
