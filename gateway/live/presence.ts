/**
 * Viewer presence for insights: how many viewers each channel has on this instance, reported on the bus
 * every few seconds (overlays records them, a row per instance, site and channel).
 */
import { Topics, type EventBus } from '../../shared/bus';
import type { Logger } from '../../shared/logger';
import type { PresenceEntry, PresenceReport } from '../../shared/contracts/viewerPresence';

export type { PresenceEntry, PresenceReport } from '../../shared/contracts/viewerPresence';

export class ViewerPresence {
  /** Viewer counts by site and channel, kept across rooms so views accumulate for the instance's life. */
  private readonly presence = new Map<string, PresenceEntry & { reported: string }>();

  constructor(
    private readonly instanceId: string,
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  count(siteId: string, channelId: string, change: 1 | -1): void {
    const key = `${siteId}\u0000${channelId}`;
    let entry = this.presence.get(key);
    if (!entry) this.presence.set(key, (entry = { siteId, channelId, concurrents: 0, views: 0, reported: '' }));
    entry.concurrents += change;
    if (change > 0) entry.views += 1;
  }

  /** Publishes the counts that changed, and every live count again so its freshness shows. */
  report(): void {
    const entries: PresenceEntry[] = [];
    for (const entry of this.presence.values()) {
      const state = `${entry.concurrents}/${entry.views}`;
      if (entry.concurrents === 0 && state === entry.reported) continue;
      entry.reported = state;
      entries.push({ siteId: entry.siteId, channelId: entry.channelId, concurrents: entry.concurrents, views: entry.views });
    }
    if (entries.length === 0) return;
    const report: PresenceReport = { instanceId: this.instanceId, at: Date.now(), entries };
    this.bus.publish(Topics.viewerPresence, report).catch((error: Error) => this.logger.warn({ err: error.message }, 'presence report not sent'));
  }
}
