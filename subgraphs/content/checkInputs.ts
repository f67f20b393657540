/**
 * The content check's inputs that differ per account, kept per instance so a gated channel's go-live
 * (thousands of signed-in viewers checking at once) costs no database read: the SKUs each account holds
 * (with the time the first of them lapses, after which the entry is not used) and the devices it plays on.
 *
 * Correctness comes from the bus (shared/accountAccess.ts): the community subgraph announces every change
 * of entitlements, this cache announces the devices it records, and every instance drops the account's
 * copy (an admin's change drops the site's). A value read across a drop of its key is not kept: a reader
 * notes the change counter before it reads and `set` refuses when its key, its site or everything was
 * dropped since. The TTL only bounds how long a copy outlives an announcement lost with an instance.
 */
import { onAccountAccessChanged, type AccountAccessMessage } from '../../shared/accountAccess';
import type { EventBus } from '../../shared/bus';
import type { Db } from '../../shared/db/client';
import { newId } from '../../shared/ids';
import { loadOnce } from '../../shared/viewerReads';

/** The SKUs an account holds; `until`: Unix ms the first of them stops being active (null: none lapses). */
export interface HeldSkus {
  skus: string[];
  until: number | null;
}

/** An account's devices seen within the device window when read, oldest first (the check's order). */
export type DeviceRows = { deviceId: string; firstSeenAt: Date; lastSeenAt: Date }[];

/** Devices not seen for this long no longer count against the limit. */
export const DEVICE_WINDOW_MS = 30 * 24 * 3600 * 1000;

export const DEVICE_FIELDS = { deviceId: true, firstSeenAt: true, lastSeenAt: true } as const;

/** The account's devices seen within the window, oldest first: kept, or read once and kept. */
export function recentDevices(ctx: { db: Db; access: AccountAccessCache }, siteId: string, accountId: string, now: Date): Promise<DeviceRows> {
  const recent = { siteId, accountId, lastSeenAt: { gte: new Date(now.getTime() - DEVICE_WINDOW_MS) } };
  return ctx.access.devices.through(siteId, accountId, () =>
    ctx.db.accountDevice.findMany({ where: recent, orderBy: { firstSeenAt: 'asc' }, select: DEVICE_FIELDS }),
  );
}

/** How long a copy is used at most (a lost announcement); long enough to span a show's lobby. */
const TTL_MS = 15 * 60_000;
const MAX_ENTRIES = 100_000;

interface Entry<V> {
  value: V;
  expires: number;
}

/** Values per (site, account) with a change counter, so a read in flight across a drop is not kept. */
class AccountValues<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** When each key, site ('site\0') or everything ('') was last dropped, on the change counter. */
  private readonly dropped = new Map<string, number>();
  private changes = 0;
  private readonly loading = new Map<string, Promise<V>>();

  /** The change counter to hand to `set` after a read. */
  mark(): number {
    return this.changes;
  }

  get(siteId: string, accountId: string): V | undefined {
    const key = `${siteId}\u0000${accountId}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(siteId: string, accountId: string, value: V, mark: number): void {
    const key = `${siteId}\u0000${accountId}`;
    const since = Math.max(this.dropped.get(key) ?? -1, this.dropped.get(`${siteId}\u0000`) ?? -1, this.dropped.get('') ?? -1);
    if (since > mark) return;
    // Full: start over rather than track recency; a refill costs one read per account.
    if (this.entries.size >= MAX_ENTRIES) this.drop(null, null);
    this.entries.set(key, { value, expires: Date.now() + TTL_MS });
  }

  /** The kept value, or the one `load` reads (kept); concurrent callers of the same key share one `load`. */
  async through(siteId: string, accountId: string, load: () => Promise<V>): Promise<V> {
    const kept = this.get(siteId, accountId);
    if (kept !== undefined) return kept;
    const mark = this.mark();
    return loadOnce(this.loading, `${mark}\u0000${siteId}\u0000${accountId}`, load, (value) => this.set(siteId, accountId, value, mark));
  }

  /** Drops one account (`accountId`), a site (accountId null) or everything (siteId null). */
  drop(siteId: string | null, accountId: string | null): void {
    this.changes += 1;
    if (siteId === null) {
      this.entries.clear();
      this.dropped.clear();
      this.dropped.set('', this.changes);
      return;
    }
    const prefix = `${siteId}\u0000`;
    if (accountId !== null) {
      this.entries.delete(prefix + accountId);
      this.dropped.set(prefix + accountId, this.changes);
    } else {
      for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
      this.dropped.set(prefix, this.changes);
    }
    // The record of drops stays small: past its bound, everything counts as dropped now.
    if (this.dropped.size > MAX_ENTRIES) this.drop(null, null);
  }
}

/** What the content check keeps per account, following the bus's access announcements. */
export class AccountAccessCache {
  /** This cache's announcements carry it; it keeps its own copy up to date and ignores them. */
  readonly origin = newId();
  readonly skus = new AccountValues<HeldSkus>();
  readonly devices = new AccountValues<DeviceRows>();
  private readonly stopListening: () => void;

  constructor(
    bus: EventBus,
    /** The clock recurring passes lapse by (ServiceDeps.now), the community subgraph's. */
    readonly now: () => number,
  ) {
    this.stopListening = onAccountAccessChanged(bus, (message) => this.onChange(message));
  }

  /** The account's SKUs when kept and none of them has lapsed since; else undefined. */
  heldSkus(siteId: string, accountId: string): string[] | undefined {
    const held = this.skus.get(siteId, accountId);
    return held && (held.until === null || held.until > this.now()) ? held.skus : undefined;
  }

  /** The account's SKUs, kept or read by `load` (a lapsed copy is read again). */
  async heldSkusThrough(siteId: string, accountId: string, load: () => Promise<HeldSkus>): Promise<string[]> {
    const kept = this.heldSkus(siteId, accountId);
    if (kept) return kept;
    if (this.skus.get(siteId, accountId)) this.skus.drop(siteId, accountId);
    return (await this.skus.through(siteId, accountId, load)).skus;
  }

  stop(): void {
    this.stopListening();
  }

  private onChange(message: AccountAccessMessage): void {
    if (message.origin === this.origin) return;
    // A change of what an account holds may be its deletion too: its devices go with it.
    if (message.part === 'entitlements') this.skus.drop(message.siteId, message.accountId);
    this.devices.drop(message.siteId, message.accountId);
  }
}
