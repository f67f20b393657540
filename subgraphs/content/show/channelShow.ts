/**
 * What the content subgraph knows of a channel's show. Streams belong to the integrations subgraph: a
 * channel names its stream (`renderers.livestream.stream_id`) and its show is asked there through the
 * supergraph, as the service, and kept per instance until the site's viewer reads change (integrations
 * announces every show change), so thousands of viewers' checks make one read per instance per change.
 */
import { serviceIdentity } from '../../../shared/auth/identity';
import { ON_AIR, type ShowState } from '../../../shared/contracts/channelStatus';
import type { Page, Video } from '../../../shared/db/generated/sqlite';
import { switchesOff } from '../../../shared/liveSwitches';
import type { PlaybackKey } from '../../../shared/playbackSigning';
import type { SubgraphContext } from '../../../shared/subgraph';
import { isRecord, type JsonRecord } from '../checks';
import { viewerRead, type WithViewerReads } from '../viewerReads';

/** A stream's show as the integrations subgraph answers it (ChannelShow). */
export interface StreamShow {
  streamId: string;
  state: ShowState;
  liveBroadcastId: string | null;
  playbackUrl: string;
  startedAt: number | null;
  recordingStartedAt: number | null;
  /** The stream's contract's signing key (the service's read); null when its provider takes no signed playback. */
  playbackKey: PlaybackKey | null;
  /** The stream plays through signed URLs only: every URL of it is signed, whatever the channel's gate now. */
  signedOnly: boolean;
  /** Seconds of the show the provider's live playlist keeps (0: no rewind). */
  dvrWindowSeconds: number;
}

const CHANNEL_SHOW = /* GraphQL */ `
  query ChannelShowOfStream($streamId: ID!) {
    channelShow(streamId: $streamId) { streamId state liveBroadcastId playbackUrl startedAt recordingStartedAt signedOnly dvrWindowSeconds playbackKey { keyId key } }
  }
`;

type Reader = Pick<SubgraphContext, 'bus' | 'db' | 'supergraph'> & WithViewerReads;

const livestreamOf = (document: unknown): JsonRecord => {
  const renderers = isRecord(document) && isRecord(document.renderers) ? document.renderers : {};
  return isRecord(renderers.livestream) ? renderers.livestream : {};
};

/** The stream a channel names, or null (its video comes from elsewhere). */
export function streamIdOf(document: unknown): string | null {
  const streamId = livestreamOf(document).stream_id;
  return typeof streamId === 'string' && streamId !== '' ? streamId : null;
}

/** The admin's switch: `active_renderers.livestream` and `livestream_published` (shared/liveSwitches.ts). */
export const switchedOn = (document: unknown): boolean => switchesOff(document).length === 0;

/** The show of the channel's stream; null for a channel with no stream of ours (or one integrations does not know). */
export function showOf(ctx: Reader, page: Page): Promise<StreamShow | null> {
  // The bound stream (the column streamBinding.ts keeps, one channel's alone), not merely one the document names.
  const streamId = page.streamId;
  if (!streamId) return Promise.resolve(null);
  return showOfStream(ctx, page.siteId, streamId);
}

/** The show of a stream of the site (kept like every viewer read); null when integrations does not know it. */
export function showOfStream(ctx: Pick<SubgraphContext, 'supergraph'> & WithViewerReads, siteId: string, streamId: string): Promise<StreamShow | null> {
  return viewerRead(ctx, siteId, `show:${streamId}`, async () => {
    const { channelShow } = await ctx.supergraph.execute<{ channelShow: StreamShow | null }>(CHANNEL_SHOW, { streamId }, serviceIdentity(siteId));
    return channelShow;
  });
}

/** Whether the stream is LIVE or RECONNECTING; a channel without a stream of ours counts as on air (live by the switch alone). */
export const onAir = (show: StreamShow | null): boolean => show === null || ON_AIR.includes(show.state);

/** Live: the switch is on and the show is on air. */
export const isLive = (page: Page, show: StreamShow | null): boolean => switchedOn(page.document) && onAir(show);

/** The channel's newest delivered recording (a Video of type vod, not a clip of one: show/clips.ts), kept like the show. */
export function newestRecording(ctx: Reader, page: Page): Promise<Video | null> {
  return viewerRead(ctx, page.siteId, `recording:${page.id}`, () =>
    ctx.db.video.findFirst({ where: { siteId: page.siteId, pageId: page.id, type: 'vod', clipOf: null }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  );
}

/** Whether the channel offers its recording while offline (`data.content.offline.kind: "recording"`, ours). */
export function offersRecording(document: unknown): boolean {
  const data = isRecord(document) && isRecord(document.data) ? document.data : {};
  const content = isRecord(data.content) ? data.content : {};
  return isRecord(content.offline) && content.offline.kind === 'recording';
}

/** The live video in the seed's Video shape: `_id` the live broadcast, `url` the live HLS, the channel's name as title. */
export function liveVideoOf(page: Page, show: StreamShow): Video {
  const data = isRecord(page.document) && isRecord(page.document.data) ? page.document.data : {};
  const startedAt = new Date(show.startedAt ?? Date.now());
  return {
    id: show.liveBroadcastId ?? show.streamId,
    siteId: page.siteId,
    pageId: page.id,
    title: typeof data.name === 'string' ? data.name : '',
    description: '',
    type: 'live',
    url: show.playbackUrl,
    durationSeconds: null,
    player: 'stagegraph',
    thumbnail: null,
    uploadStatus: 'ready',
    requiredSkus: [],
    source: { streamId: show.streamId },
    externalId: null,
    clipOf: null,
    tags: [],
    createdAt: startedAt,
    updatedAt: startedAt,
  };
}
