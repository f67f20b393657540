/**
 * The show of a channel as viewers see it (docs/design.md "The show"): the shape of `channelStatus`, which the
 * content subgraph computes and the gateway's live server pushes, and the bus message that says a
 * channel's show changed. One module both import, so neither knows the other's internals.
 */
import { Topics, type EventBus } from '../bus';
import type { ShowState } from './viewerProtocol';
import { announceViewerReadsChanged } from '../viewerReads';

export type { ChannelCountdown, ChannelStatus, ShowState } from './viewerProtocol';

/** The states in which a published channel is live (the provider plays the fallback image while RECONNECTING). */
export const ON_AIR: readonly ShowState[] = ['LIVE', 'RECONNECTING'];

/** What travels on Topics.channelStatus: the channel whose status may have changed, and when the change was accepted. */
export interface ChannelStatusMessage {
  siteId: string;
  channelId: string;
  /** Unix ms the webhook (or call) behind the change was accepted: the start of the webhook → viewer delay. */
  acceptedAt: number;
}

/**
 * Tells every instance that a channel's status may have changed (`streamId`: only that stream's show):
 * the site's viewer-read caches drop first (this process's at once, so the content check and channelStatus read it anew), then viewers'
 * channelStatus subscriptions hear it and read the status once per instance.
 */
export async function announceChannelStatus(bus: EventBus, message: ChannelStatusMessage, streamId?: string): Promise<void> {
  // While Redis is away both are held (the latest per site, and per channel) and this instance's own
  // viewers hear the change at once: its caches dropped before the publish was tried. A stream's show
  // changed only the content's kept show of that stream: the page, site and videos stay kept.
  await announceViewerReadsChanged(bus, message.siteId, streamId ? [`show:${streamId}`] : undefined).catch(() => undefined);
  bus.announce(Topics.channelStatus, message.channelId, 'latest', message);
}
