/**
 * Insights from live viewer connections. Every instance's live server reports its counts on the bus
 * (gateway/live/presence.ts); this records them, a row per instance, site and channel. Upserting absolute
 * values makes the record idempotent, so every overlays process may record the same report.
 * Concurrents count only fresh rows (an instance that stopped reporting drops out); total views add
 * up every row ever written.
 */
import { Topics } from '../../shared/bus';
import type { Db } from '../../shared/db/client';
import type { ServiceDeps } from '../../shared/subgraph';
import type { PresenceReport } from '../../shared/contracts/viewerPresence';

export function recordViewerPresence({ bus, database, logger }: ServiceDeps): { close(): Promise<void> } {
  const db = database.prisma;
  const unsubscribe = bus.subscribe(Topics.viewerPresence, (message) => {
    const report = message as PresenceReport;
    if (!report?.instanceId || !Array.isArray(report.entries)) return;
    const updatedAt = new Date(report.at);
    // One statement per row, no transaction: rows are independent, and on SQLite a multi-row write
    // transaction from two instances sharing the file could deadlock.
    (async () => {
      for (const entry of report.entries) {
        await db.viewerPresence.upsert({
          where: { instanceId_siteId_channelId: { instanceId: report.instanceId, siteId: entry.siteId, channelId: entry.channelId } },
          create: {
            instanceId: report.instanceId,
            siteId: entry.siteId,
            channelId: entry.channelId,
            concurrents: entry.concurrents,
            views: entry.views,
            updatedAt,
          },
          update: { concurrents: entry.concurrents, views: entry.views, updatedAt },
        });
      }
    })().catch((error: Error) => logger.warn({ err: error.message.slice(-300) }, 'viewer presence not recorded'));
  });
  return { close: async () => unsubscribe() };
}

export interface SiteConcurrents {
  siteId: string;
  concurrents: number;
  totalViews: number;
  channels: { siteId: string; channelId: string; concurrents: number }[];
}

/** Counts for each site; a row older than three report intervals no longer counts as live viewers. */
export async function concurrentsOf(db: Db, siteIds: string[], presenceIntervalMs: number, now = Date.now()): Promise<SiteConcurrents[]> {
  const rows = await db.viewerPresence.findMany({ where: { siteId: { in: siteIds } } });
  const fresh = now - 3 * presenceIntervalMs;
  return siteIds.map((siteId) => {
    const channels = new Map<string, number>();
    let concurrents = 0;
    let totalViews = 0;
    for (const row of rows) {
      if (row.siteId !== siteId) continue;
      totalViews += row.views;
      const live = row.updatedAt.getTime() >= fresh ? row.concurrents : 0;
      concurrents += live;
      if (row.channelId !== '') channels.set(row.channelId, (channels.get(row.channelId) ?? 0) + live);
    }
    return { siteId, concurrents, totalViews, channels: [...channels].map(([channelId, count]) => ({ siteId, channelId, concurrents: count })) };
  });
}
