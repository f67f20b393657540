/**
 * Clips (ours, docs/show.md "Clips"): a range of a delivered recording, or of a live channel's window, cut by
 * the streaming provider without re-encoding (the integrations subgraph's cutProviderClip) and kept as a Video
 * of the channel with its source's entitlements — the recording's SKUs, or the gated channel's as the content
 * check asks them — so a clip is never a way around a paywall. Its URL is signed for viewers as its source's
 * would be (videoViews.ts: the source's stream is its stream). Everything is checked before the provider is
 * asked, and nothing is stored unless the provider cut the clip.
 */
import { serviceIdentity } from '../../../shared/auth/identity';
import { badInput, ErrorCode, notFound } from '../../../shared/errors';
import { stringList } from '../../../shared/json';
import { newId } from '../../../shared/ids';
import type { SubgraphContext } from '../../../shared/subgraph';
import { checkText, isRecord } from '../checks';
import { readGate } from '../pages';
import type { CreateClipInput } from '../resolvers.generated';
import type { WithViewerReads } from '../viewerReads';
import { findChannel } from './channelStatus';
import { isLive, showOf } from './channelShow';

type Ctx = Pick<SubgraphContext, 'bus' | 'db' | 'supergraph'> & WithViewerReads;

/** The longest clip, in seconds. */
export const MAX_CLIP_SECONDS = 300;

const CUT = /* GraphQL */ `mutation CutProviderClip($input: CutProviderClipInput!) {
  cutProviderClip(input: $input) { vodId url durationSeconds streamId liveBroadcastId }
}`;

interface ProviderClip {
  vodId: string;
  url: string;
  durationSeconds: number;
  streamId: string;
  liveBroadcastId: string | null;
}

/** What the clip is cut from, checked: the provider's source and what the clip's Video inherits. */
interface ClipSource {
  cut: { vodId: string } | { streamId: string };
  pageId: string | null;
  skus: string[];
  clipOf: string;
}

function whole(value: number, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw badInput(`${field} must be a whole number from ${min} to ${max}`, field);
  return value;
}

/** Refuses a range that ends past `end` seconds (the recording's end, or now in a live show), naming the field at fault. */
function withinEnd(startSecond: number, durationSeconds: number, end: number, what: string): void {
  if (startSecond >= end) throw badInput(`startSecond must be before ${what} (second ${end})`, 'startSecond');
  if (startSecond + durationSeconds > end) throw badInput(`startSecond + durationSeconds must not pass ${what} (second ${end})`, 'durationSeconds');
}

/** A delivered recording (or clip) of the site: a Video a provider's VOD became. */
async function recordingSource(ctx: Ctx, siteId: string, videoId: string, startSecond: number, durationSeconds: number): Promise<ClipSource> {
  const video = await ctx.db.video.findFirst({ where: { id: videoId, siteId } });
  if (!video) throw notFound(`video ${videoId}`);
  const vodId = isRecord(video.source) && typeof video.source.vodId === 'string' ? video.source.vodId : null;
  if (video.type !== 'vod' || !vodId) throw badInput('sourceVideoId must name a recording a streaming provider delivered', 'sourceVideoId');
  if (video.durationSeconds !== null) withinEnd(startSecond, durationSeconds, video.durationSeconds, "the recording's end");
  return { cut: { vodId }, pageId: video.pageId, skus: stringList(video.requiredSkus), clipOf: video.id };
}

/** A channel of the site whose show is live and recording: its window ends now. */
async function liveSource(ctx: Ctx, siteId: string, channelId: string, startSecond: number, durationSeconds: number): Promise<ClipSource> {
  const page = await findChannel(ctx, siteId, channelId);
  const show = await showOf(ctx, page);
  if (!show || !isLive(page, show) || show.recordingStartedAt === null || !show.liveBroadcastId)
    throw badInput('channelId must name a channel whose stream is live and recording', 'channelId');
  // The show's second now, as channelStatus.streamSecond counts it.
  const now = Math.floor((Date.now() - show.recordingStartedAt) / 1000);
  withinEnd(startSecond, durationSeconds, now, 'the live window’s end, now');
  const gate = readGate(page.document);
  return { cut: { streamId: show.streamId }, pageId: page.id, skus: gate.kind === 'subscription' ? gate.requiredSkus : [], clipOf: show.liveBroadcastId };
}

/** Cuts a clip and makes it a Video of the source's channel. */
export async function createClip(ctx: Ctx, siteId: string, input: CreateClipInput) {
  const startSecond = whole(input.startSecond, 'startSecond', 0, 1_000_000_000);
  const durationSeconds = whole(input.durationSeconds, 'durationSeconds', 1, MAX_CLIP_SECONDS);
  const title = checkText(input.title, 'title', 200);
  const { sourceVideoId, channelId } = input;
  if (Boolean(sourceVideoId) === Boolean(channelId))
    throw badInput(
      'exactly one of sourceVideoId (a delivered recording) and channelId (a live channel) is required',
      sourceVideoId ? 'channelId' : 'sourceVideoId',
    );
  const source = sourceVideoId
    ? await recordingSource(ctx, siteId, sourceVideoId, startSecond, durationSeconds)
    : await liveSource(ctx, siteId, channelId as string, startSecond, durationSeconds);
  let clip: ProviderClip;
  try {
    ({ cutProviderClip: clip } = await ctx.supergraph.execute<{ cutProviderClip: ProviderClip }>(
      CUT,
      { input: { ...source.cut, startSecond, durationSeconds } },
      serviceIdentity(siteId),
    ));
  } catch (error) {
    // A Video with a vodId no provider delivered (an admin's recordVod): nothing a provider could cut.
    if (sourceVideoId && (error as { extensions?: { code?: unknown } }).extensions?.code === ErrorCode.NOT_FOUND)
      throw badInput('sourceVideoId must name a recording a streaming provider delivered', 'sourceVideoId');
    throw error;
  }
  const now = new Date();
  return ctx.db.video.create({
    data: {
      id: newId(),
      siteId,
      pageId: source.pageId,
      title,
      type: 'vod',
      url: clip.url,
      durationSeconds: clip.durationSeconds,
      uploadStatus: 'ready',
      requiredSkus: source.skus,
      // streamId: the stream whose contract's key signs the clip's URL, as its source's (videoViews.ts).
      source: { vodId: clip.vodId, streamId: clip.streamId, liveBroadcastId: clip.liveBroadcastId, clipOf: source.clipOf },
      externalId: clip.vodId,
      clipOf: source.clipOf,
      tags: [],
      createdAt: now,
      updatedAt: now,
    },
  });
}
