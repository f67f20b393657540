/**
 * What each gateway instance reports of its live viewers on Topics.viewerPresence, and the overlays
 * subgraph adds up for insights (gateway/live/presence.ts writes it, subgraphs/overlays/presence.ts reads it).
 */

/** Live viewers of one channel (`channelId` '' = site-wide viewers) on one instance. */
export interface PresenceEntry {
  siteId: string;
  channelId: string;
  /** Viewers subscribed now. */
  concurrents: number;
  /** Subscriptions started since this instance started. */
  views: number;
}

/** What each instance reports on the bus every few seconds. */
export interface PresenceReport {
  instanceId: string;
  at: number;
  entries: PresenceEntry[];
}
