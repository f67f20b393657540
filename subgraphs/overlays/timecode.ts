/**
 * The timecode of overlay broadcasts: a broadcast to a channel whose stream is recording is stamped
 * with the live broadcast and its second into the recording, so a player can show it again at the same
 * second of the video (seed 001, Events 2). Recording state belongs to the integrations subgraph: it is
 * asked through the supergraph (`channelRecording`, `recordingOfVideo`), never read from its tables.
 */
import { serviceIdentity } from '../../shared/auth/identity';
import { badInput, notFound } from '../../shared/errors';
import type { SubgraphContext } from '../../shared/subgraph';
import type { BroadcastOverlay, ChannelRecording, TimelineEntry } from '../../shared/viewerProtocol';

const CHANNEL_RECORDING = /* GraphQL */ `query ChannelRecording($channelId: ID!) { channelRecording(channelId: $channelId) { liveBroadcastId startedAt } }`;
/** How long a broadcast waits for the recording state before it goes out without a timecode (live viewers come first). */
const RECORDING_WAIT_MS = 1000;
const RECORDING_OF_VIDEO = /* GraphQL */ `query RecordingOfVideo($videoId: ID!) { recordingOfVideo(videoId: $videoId) { liveBroadcastId startedAt } }`;

/**
 * The recording of the channel's stream now, or null. A broadcast must not fail because the recording
 * state cannot be read: it then goes out without a timecode, and the failure is logged.
 */
export async function recordingOfChannel(ctx: SubgraphContext, siteId: string, channelId: string | null): Promise<ChannelRecording | null> {
  if (channelId === null) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const asked = ctx.supergraph.execute<{ channelRecording: ChannelRecording | null }>(CHANNEL_RECORDING, { channelId }, serviceIdentity(siteId));
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${RECORDING_WAIT_MS} ms`)), RECORDING_WAIT_MS);
    });
    return (await Promise.race([asked, late])).channelRecording;
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, channelId }, 'recording state unavailable; broadcast sent without a timecode');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export interface TimelineRequest {
  liveBroadcastId?: string | null;
  videoId?: string | null;
}

/** Which live broadcast a timeline request names: directly, or through the Video its VOD became. */
async function liveBroadcastOf(ctx: SubgraphContext, siteId: string, request: TimelineRequest): Promise<string> {
  const { liveBroadcastId, videoId } = request;
  if (liveBroadcastId && videoId) throw badInput('give either liveBroadcastId or videoId, not both', 'videoId');
  if (liveBroadcastId) return liveBroadcastId;
  if (!videoId) throw badInput('liveBroadcastId or videoId is required', 'liveBroadcastId');
  const { recordingOfVideo } = await ctx.supergraph.execute<{ recordingOfVideo: ChannelRecording | null }>(RECORDING_OF_VIDEO, { videoId }, serviceIdentity(siteId));
  if (!recordingOfVideo) throw notFound(`no recording of video ${videoId}`);
  return recordingOfVideo.liveBroadcastId;
}

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
