/**
 * The recording a live event is stamped with (seed 001, Events 2): overlay broadcasts and chat messages
 * sent while a channel's stream records carry the live broadcast and their second into it, so a player
 * shows them again at the same second of the video. Recording state belongs to the integrations
 * subgraph: other subgraphs ask it through the supergraph (`channelRecording`, `recordingOfVideo`),
 * never read its tables.
 */
import { serviceIdentity } from '../auth/identity';
import { badInput, notFound } from '../errors';
import type { SubgraphContext } from '../subgraph';
import type { ChannelRecording } from './viewerProtocol';

const CHANNEL_RECORDING = /* GraphQL */ `query ChannelRecording($channelId: ID!) { channelRecording(channelId: $channelId) { liveBroadcastId startedAt } }`;
const RECORDING_OF_VIDEO = /* GraphQL */ `query RecordingOfVideo($videoId: ID!) { recordingOfVideo(videoId: $videoId) { liveBroadcastId startedAt } }`;
/** How long an event waits for the recording state before it goes out without a timecode (live viewers come first). */
const RECORDING_WAIT_MS = 1000;

type Asker = Pick<SubgraphContext, 'supergraph' | 'logger'>;

/**
 * The recording of the channel's stream now, or null. An event must not fail because the recording
 * state cannot be read: it then goes out without a timecode, and the failure is logged.
 */
export async function recordingOfChannel(ctx: Asker, siteId: string, channelId: string | null): Promise<ChannelRecording | null> {
  if (channelId === null) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const asked = ctx.supergraph.execute<{ channelRecording: ChannelRecording | null }>(CHANNEL_RECORDING, { channelId }, serviceIdentity(siteId));
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${RECORDING_WAIT_MS} ms`)), RECORDING_WAIT_MS);
    });
    return (await Promise.race([asked, late])).channelRecording;
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, channelId }, 'recording state unavailable; sent without a timecode');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export interface RecordingRequest {
  liveBroadcastId?: string | null;
  videoId?: string | null;
}

/** Which live broadcast a timeline or replay request names: directly, or through the Video its VOD became. */
export async function liveBroadcastOf(ctx: Asker, siteId: string, request: RecordingRequest): Promise<string> {
  const { liveBroadcastId, videoId } = request;
  if (liveBroadcastId && videoId) throw badInput('give either liveBroadcastId or videoId, not both', 'videoId');
  if (liveBroadcastId) return liveBroadcastId;
  if (!videoId) throw badInput('liveBroadcastId or videoId is required', 'liveBroadcastId');
  const { recordingOfVideo } = await ctx.supergraph.execute<{ recordingOfVideo: ChannelRecording | null }>(
    RECORDING_OF_VIDEO,
    { videoId },
    serviceIdentity(siteId),
  );
  if (!recordingOfVideo) throw notFound(`no recording of video ${videoId}`);
  return recordingOfVideo.liveBroadcastId;
}
