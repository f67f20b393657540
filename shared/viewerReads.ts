/**
 * Viewer-facing reads (page configuration, the shared part of the content check) are kept in each
 * instance so a join storm does not become a database storm. They are dropped per site the moment that
 * site's content changes: the writer announces the change on the event bus, which reaches every
 * instance, and listeners in the writer's own process hear it at once (before the write is answered),
 * so a caller never reads its own write stale.
 */
import { Topics, type EventBus } from './bus';
import { listenLocalFirst, tellLocalListeners } from './bus/localFirst';

/**
 * null: every site (a write whose site is not known). `keys`, when given, are the only kept reads of the
 * content subgraph that changed (a stream's show: `show:<streamId>`); other caches drop the whole site.
 */
export type SiteChange = (siteId: string | null, keys: readonly string[] | null) => void;

interface SiteChangeMessage {
  siteId?: string | null;
  keys?: string[];
}

/** Calls `listener` whenever a site's viewer-facing data changes, here or on another instance. */
export function onViewerReadsChanged(bus: EventBus, listener: SiteChange): () => void {
  return listenLocalFirst(bus, Topics.viewerReadsChanged, (message) => {
    const change = (message ?? {}) as SiteChangeMessage;
    const keys = Array.isArray(change.keys) && change.keys.every((key) => typeof key === 'string') ? change.keys : null;
    listener(change.siteId ?? null, keys);
  });
}

/**
 * Tells every instance that viewer-facing data of `siteId` changed (only the kept reads `keys`, when
 * given); this process's caches drop it first. The caller's answer waits for the publish; while the bus
 * refuses it, the announcement is held (the latest per site and keys) and published once Redis is back,
 * so other instances drop their copies then rather than only when their TTL runs out.
 */
export async function announceViewerReadsChanged(bus: EventBus, siteId: string | null, keys?: string[]): Promise<void> {
  const message: SiteChangeMessage = keys ? { siteId, keys } : { siteId };
  tellLocalListeners(bus, Topics.viewerReadsChanged, message);
  try {
    await bus.publish(Topics.viewerReadsChanged, message);
  } catch (error) {
    bus.announce(Topics.viewerReadsChanged, `${siteId ?? ''}${keys ? `\n${keys.join('\n')}` : ''}`, 'latest', message);
    throw error;
  }
}

interface Entry<V> {
  value: V;
  expires: number;
}

/**
 * Values kept per site until that site changes. A reader takes the site's `generation()` before it
 * reads the database and hands it to `set`: a value read across a change is not kept, so a slow read
 * cannot put back what the change dropped. The TTL only bounds how long a value outlives a lost bus
 * message (a Redis outage); it is not what makes changes visible.
 */
export class SiteCache<V> {
  private readonly sites = new Map<string, { generation: number; entries: Map<string, Entry<V>> }>();
  /** Reads in flight, so a storm of identical misses makes one database read. */
  private readonly loading = new Map<string, Promise<V>>();
  private size = 0;
  /** Bumped by a change of every site. */
  private epoch = 0;

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  generation(siteId: string): number {
    return this.epoch * 1e9 + (this.sites.get(siteId)?.generation ?? 0);
  }

  get(siteId: string, key: string): V | undefined {
    const entry = this.sites.get(siteId)?.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      this.sites.get(siteId)?.entries.delete(key);
      this.size -= 1;
      return undefined;
    }
    return entry.value;
  }

  set(siteId: string, key: string, value: V, generation: number): void {
    if (generation !== this.generation(siteId)) return;
    // Full: start over rather than track recency; a refill costs one read per key.
    if (this.size >= this.maxEntries) this.clear();
    let site = this.sites.get(siteId);
    if (!site) this.sites.set(siteId, (site = { generation: 0, entries: new Map() }));
    if (!site.entries.has(key)) this.size += 1;
    site.entries.set(key, { value, expires: Date.now() + this.ttlMs });
  }

  /**
   * The kept value, or the one `load` reads (kept for the next caller); concurrent callers of the same
   * key and generation share one `load`.
   */
  async through(siteId: string, key: string, load: () => Promise<V>): Promise<V> {
    const kept = this.get(siteId, key);
    if (kept !== undefined) return kept;
    const generation = this.generation(siteId);
    return loadOnce(this.loading, `${generation}\n${siteId}\n${key}`, load, (value) => this.set(siteId, key, value, generation));
  }

  /** Drops `keys` of `siteId`; the site's generation moves on, so no read in flight puts one back. */
  dropKeys(siteId: string, keys: readonly string[]): void {
    const site = this.sites.get(siteId);
    if (!site) return;
    for (const key of keys) if (site.entries.delete(key)) this.size -= 1;
    site.generation += 1;
  }

  /** Drops what is kept for `siteId` (null: for every site). */
  drop(siteId: string | null): void {
    if (siteId === null) {
      this.epoch += 1;
      this.clear();
      return;
    }
    const site = this.sites.get(siteId);
    if (site) {
      this.size -= site.entries.size;
      site.entries.clear();
      site.generation += 1;
    } else {
      this.sites.set(siteId, { generation: 1, entries: new Map() });
    }
  }

  private clear(): void {
    // Generations stay (a reader in flight must still see its site changed); only values go.
    for (const site of this.sites.values()) {
      site.entries.clear();
      site.generation += 1;
    }
    this.size = 0;
  }
}

/**
 * A cache of `V` per site that follows the bus's change announcements (see onViewerReadsChanged). A
 * `keyed` cache (the content subgraph's, whose keys the announcements name) drops only the named keys
 * of a change that names them; any other drops the site.
 */
export function followedSiteCache<V>(bus: EventBus, ttlMs?: number, keyed = false): { cache: SiteCache<V>; stop: () => void } {
  const cache = new SiteCache<V>(ttlMs);
  const stop = onViewerReadsChanged(bus, (siteId, keys) => (keyed && siteId !== null && keys ? cache.dropKeys(siteId, keys) : cache.drop(siteId)));
  return { cache, stop };
}

/**
 * One `load` per `flight` at a time: callers that ask while it runs share its promise, and `keep` gets its value
 * (a flight names the generation it started in, so a value read across a drop is not kept as fresh).
 */
export function loadOnce<V>(loading: Map<string, Promise<V>>, flight: string, load: () => Promise<V>, keep: (value: V) => void): Promise<V> {
  let pending = loading.get(flight);
  if (!pending) {
    pending = load().then((value) => {
      keep(value);
      return value;
    });
    const settled = () => loading.delete(flight);
    pending.then(settled, settled);
    loading.set(flight, pending);
  }
  return pending;
}
