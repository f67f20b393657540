/**
 * The settings of the panels that are rooms (chat, Q&A), read from each panel's renderer and kept for half a
 * second per instance — a change applies within that on every instance, even without the bus — and dropped
 * at once when the site's viewer-facing content changes (shared/viewerReads.ts). A room without a channel of
 * its own (renderer.channel) takes the channels whose sidebar lists it.
 */
import type { EventBus } from '../../shared/bus';
import type { Db } from '../../shared/db/client';
import { notFound } from '../../shared/errors';
import { onViewerReadsChanged } from '../../shared/viewerReads';
import { channelsListing } from './references';

/** How long room settings are reused. */
const SETTINGS_TTL_MS = 500;
const SETTINGS_MAX = 10_000;
/** At most this many channels listing a panel are found (a panel is rarely on more than one). */
const MAX_LISTING_CHANNELS = 10;

export class PanelRooms<S extends { channelIds: string[] }> {
  private readonly settings = new Map<string, { value: S | null; expires: number }>();
  private readonly stopFollowing: () => void;

  /** `settingsOf` reads a renderer: the room's settings, or null when the panel is no room of this kind (`what` names the kind). */
  constructor(
    bus: EventBus,
    private readonly settingsOf: (renderer: unknown) => S | null,
    private readonly what: string,
  ) {
    this.stopFollowing = onViewerReadsChanged(bus, (siteId) => {
      if (siteId === null) this.settings.clear();
      else for (const key of this.settings.keys()) if (key.startsWith(`${siteId}\u0000`)) this.settings.delete(key);
    });
  }

  /** The room's settings, or NOT_FOUND when the site has no such panel or it is no room of this kind. */
  async room(db: Db, siteId: string, panelId: string): Promise<S> {
    const key = `${siteId}\u0000${panelId}`;
    const cached = this.settings.get(key);
    let settings: S | null;
    if (cached && cached.expires > Date.now()) settings = cached.value;
    else {
      const panel = await db.panel.findFirst({ where: { id: panelId, siteId }, select: { renderer: true } });
      settings = panel ? this.settingsOf(panel.renderer) : null;
      if (settings && settings.channelIds.length === 0) settings.channelIds = await channelsListing(db, siteId, panelId, MAX_LISTING_CHANNELS);
      if (this.settings.size >= SETTINGS_MAX) this.settings.delete(this.settings.keys().next().value as string);
      this.settings.set(key, { value: settings, expires: Date.now() + SETTINGS_TTL_MS });
    }
    if (!settings) throw notFound(`${this.what} ${panelId}`);
    return settings;
  }

  stop(): void {
    this.stopFollowing();
  }
}
