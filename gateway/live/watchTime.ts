/**
 * Counting watch time for quests without costing the live path. The live server tells this tracker when
 * a signed-in account's overlayBroadcasts subscription to a channel starts and stops: O(1) each, a
 * counter per (site, account, channel), so several tabs or sockets of one account are one entry. One
 * interval per instance (every second) walks the entries and sets a bit per watched second in the
 * entry's mask of the current minute; every WATCH_FLUSH_MS the masks go to the database in one batch
 * (subgraphs/content/quests/watchTime.ts ORs them in, so instances and tabs never count a second twice).
 *
 * What a crash loses: the seconds counted since the last batch was written (at most WATCH_FLUSH_MS and
 * the tick in flight), never a completion or a claim (those are database facts once written).
 */
import type { Logger } from '../../shared/logger';
import type { WatchedMinute } from '../../shared/contracts/viewerActivity';

interface Entry {
  siteId: string;
  accountId: string;
  channelId: string;
  /** Subscriptions of the account to the channel held now on this instance. */
  holders: number;
  /** The last second (Unix s) already marked. */
  marked: number;
  /** When the last holder let go (Unix s); null while held. */
  endedAt: number | null;
  minute: number;
  /** Bits 0–29 and 30–59 of the minute's mask: two small integers, so a tick costs no BigInt work. */
  low: number;
  high: number;
}

export interface WatchTimeOptions {
  /** Milliseconds between two batches written (config.watchFlushMs). */
  flushMs: number;
  /** Writes a batch; a failed batch is kept and tried again with the next. */
  write(batch: WatchedMinute[]): Promise<unknown>;
  logger: Logger;
  /** Milliseconds between two ticks (default 1000). */
  tickMs?: number;
}

/** Masks kept for a database that does not answer, at most (beyond this the oldest are dropped and logged). */
const MAX_PENDING = 500_000;
/** Seconds one tick marks at most for an entry (a process paused longer does not invent watch time). */
const MAX_CATCH_UP_SECONDS = 120;

const entryKey = (siteId: string, accountId: string, channelId: string) => `${siteId}\u0000${accountId}\u0000${channelId}`;

export class WatchTimeTracker {
  private readonly entries = new Map<string, Entry>();
  /** Finished minutes (and failed batches) waiting for the next write, by key and minute. */
  private pending = new Map<string, WatchedMinute>();
  private readonly tickTimer: NodeJS.Timeout;
  private readonly flushTimer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  /** Batches written and what they held (tests and the bench read it). */
  readonly written = { batches: 0, rows: 0 };

  constructor(private readonly options: WatchTimeOptions) {
    this.tickTimer = setInterval(() => this.tick(), options.tickMs ?? 1000);
    this.flushTimer = setInterval(() => void this.flush(), options.flushMs);
    this.tickTimer.unref();
    this.flushTimer.unref();
  }

  /** An account's subscription to a channel started. */
  watch(siteId: string, accountId: string, channelId: string): void {
    const id = entryKey(siteId, accountId, channelId);
    const entry = this.entries.get(id);
    if (entry) {
      entry.holders += 1;
      entry.endedAt = null;
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    this.entries.set(id, { siteId, accountId, channelId, holders: 1, marked: now, endedAt: null, minute: Math.floor(now / 60), low: 0, high: 0 });
  }

  /** One of the account's subscriptions to the channel stopped. */
  unwatch(siteId: string, accountId: string, channelId: string): void {
    const entry = this.entries.get(entryKey(siteId, accountId, channelId));
    if (!entry || entry.holders === 0) return;
    entry.holders -= 1;
    if (entry.holders === 0) entry.endedAt = Math.floor(Date.now() / 1000);
  }

  /** Accounts watching now (entries held). */
  size(): number {
    return this.entries.size;
  }

  /** Marks the seconds each entry was held since the last tick; drops entries no longer held. */
  tick(now = Date.now()): void {
    const second = Math.floor(now / 1000);
    for (const [id, entry] of this.entries) {
      const upTo = entry.holders > 0 ? second : (entry.endedAt as number);
      for (let s = Math.max(entry.marked + 1, upTo - MAX_CATCH_UP_SECONDS + 1); s <= upTo; s += 1) this.mark(entry, s);
      if (upTo > entry.marked) entry.marked = upTo;
      if (entry.holders === 0) {
        this.retire(entry);
        this.entries.delete(id);
      }
    }
  }

  private mark(entry: Entry, second: number): void {
    const minute = Math.floor(second / 60);
    if (minute !== entry.minute) {
      this.retire(entry);
      entry.minute = minute;
    }
    const bit = second - minute * 60;
    if (bit < 30) entry.low |= 1 << bit;
    else entry.high |= 1 << (bit - 30);
  }

  /** Moves an entry's mask (if any) to the pending batch. */
  private retire(entry: Entry): void {
    if (entry.low === 0 && entry.high === 0) return;
    this.addPending({
      siteId: entry.siteId,
      accountId: entry.accountId,
      channelId: entry.channelId,
      minute: entry.minute,
      mask: (BigInt(entry.high) << 30n) | BigInt(entry.low),
    });
    entry.low = 0;
    entry.high = 0;
  }

  private addPending(row: WatchedMinute): void {
    const id = `${entryKey(row.siteId, row.accountId, row.channelId)}\u0000${row.minute}`;
    const known = this.pending.get(id);
    if (known) known.mask |= row.mask;
    else {
      if (this.pending.size >= MAX_PENDING) {
        this.pending.delete(this.pending.keys().next().value as string);
        this.options.logger.warn('watch time batch full (database not answering): oldest seconds dropped');
      }
      this.pending.set(id, { ...row });
    }
  }

  /** Writes what was counted so far in one batch (no two batches at once). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    for (const entry of this.entries.values()) this.retire(entry);
    if (this.pending.size === 0) return Promise.resolve();
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.options
      .write(batch)
      .then(() => {
        this.written.batches += 1;
        this.written.rows += batch.length;
      })
      .catch((error: Error) => {
        this.options.logger.warn({ err: error.message, rows: batch.length }, 'watch time not written; kept for the next batch');
        for (const row of batch) this.addPending(row);
      })
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  /** Stops counting and writes the last batch (a graceful stop loses no second). */
  async close(): Promise<void> {
    clearInterval(this.tickTimer);
    clearInterval(this.flushTimer);
    await this.flushing;
    this.tick();
    for (const entry of this.entries.values()) {
      if (entry.holders > 0) {
        entry.holders = 0;
        entry.endedAt = entry.marked;
      }
    }
    this.tick();
    await this.flush();
  }
}
