/**
 * Recording state for the timecode of overlay broadcasts (docs/design.md "Viewers in the browser"). The overlays
 * subgraph asks these two queries through the supergraph instead of reading streams itself: a subgraph
 * never reads another's tables, and asking at broadcast time is always current (a bus event recorded on
 * start/stop could be missed or arrive after the first broadcast). The site ID alone may ask: a
 * liveBroadcastId and its start time hold nothing secret, and viewers' timelines are keyed by them.
 */
import type { ChannelRecording } from '../../shared/contracts/viewerProtocol';
import type { SubgraphContext } from '../../shared/subgraph';

/** The live broadcast the channel's stream is recording now, or null. */
export async function channelRecording(ctx: SubgraphContext, siteId: string, channelId: string): Promise<ChannelRecording | null> {
  const stream = await ctx.db.stream.findFirst({ where: { siteId, pageId: channelId, recording: true }, select: { liveBroadcastId: true } });
  if (!stream?.liveBroadcastId) return null;
  const broadcast = await ctx.db.liveBroadcast.findUnique({
    where: { liveBroadcastId: stream.liveBroadcastId },
    select: { liveBroadcastId: true, startedAt: true },
  });
  return broadcast ? { liveBroadcastId: broadcast.liveBroadcastId, startedAt: broadcast.startedAt.getTime() } : null;
}

/** The live broadcast whose delivered VOD became the Video `videoId`, or null. */
export async function recordingOfVideo(ctx: SubgraphContext, siteId: string, videoId: string): Promise<ChannelRecording | null> {
  const broadcast = await ctx.db.liveBroadcast.findFirst({ where: { siteId, videoId }, select: { liveBroadcastId: true, startedAt: true } });
  return broadcast ? { liveBroadcastId: broadcast.liveBroadcastId, startedAt: broadcast.startedAt.getTime() } : null;
}
