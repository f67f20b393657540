/**
 * The timecode of overlay broadcasts: a broadcast to a channel whose stream is recording is stamped
 * with the live broadcast and its second into the recording (shared/contracts/recordings.ts), so a player can show
 * it again at the same second of the video (seed 001, Events 2).
 */
import { liveBroadcastOf, type RecordingRequest } from '../../shared/contracts/recordings';
import type { SubgraphContext } from '../../shared/subgraph';
import type { BroadcastOverlay, ChannelRecording, TimelineEntry } from '../../shared/contracts/viewerProtocol';

export { recordingOfChannel } from '../../shared/contracts/recordings';
export type TimelineRequest = RecordingRequest;

/**
 * The overlays broadcast during a recording, in order of their second (then of their start). Each lasts
 * as long as it was up live: the broadcast's own duration, or until it was cleared.
 */
export async function overlayTimeline(ctx: SubgraphContext, siteId: string, request: TimelineRequest): Promise<TimelineEntry[]> {
  const liveBroadcastId = await liveBroadcastOf(ctx, siteId, request);
  const rows = await ctx.db.overlayBroadcast.findMany({
    where: { siteId, liveBroadcastId, streamSecond: { not: null } },
    orderBy: [{ streamSecond: 'asc' }, { startedAt: 'asc' }],
    select: { streamSecond: true, event: true, startedAt: true, expiresAt: true, clearedAt: true },
  });
  return rows.map((row) => {
    const { overlay } = row.event as unknown as { overlay: BroadcastOverlay };
    const endedAt = row.clearedAt && row.clearedAt < row.expiresAt ? row.clearedAt : row.expiresAt;
    const duration = Math.max(1, Math.round((endedAt.getTime() - row.startedAt.getTime()) / 1000));
    return { second: row.streamSecond as number, overlay: { ...overlay, duration } };
  });
}

/**
 * The live broadcast a broadcast joins the timeline of: only one every viewer received. A tag-targeted
 * broadcast keeps its timecode for those who got it, but a recording's timeline is read with the site
 * ID alone, so it never lists what was meant for some viewers only.
 */
export function timelineOf(recording: ChannelRecording | null, tags: readonly string[], tagId: string | null): string | null {
  return recording && tags.length === 0 && tagId === null ? recording.liveBroadcastId : null;
}
