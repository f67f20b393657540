/**
 * `channelStatus`: a channel's show as every viewer of the site sees it, computed from the page (switch,
 * gate, countdown), the show of its stream (integrations, kept per instance: show/channelShow.ts) and its
 * newest recording. The live URL is in it only for a channel without a gate: behind a gate a player that
 * sees `live` asks the content check, which hands the URL only to a viewer it lets play.
 */
import type { ChannelStatus, ShowState } from '../../../shared/contracts/channelStatus';
import type { Page } from '../../../shared/db/generated/sqlite';
import type { SubgraphContext } from '../../../shared/subgraph';
import { found } from '../checks';
import { readGate } from '../pages';
import { countdownOf } from '../schedule';
import { viewerRead, type WithViewerReads } from '../viewerReads';
import { isLive, newestRecording, showOf, switchedOn } from './channelShow';

type Reader = Pick<SubgraphContext, 'bus' | 'db' | 'supergraph'> & WithViewerReads;

/** A channel of the site (kept like every viewer read), or NOT_FOUND. */
export async function findChannel(ctx: Reader, siteId: string, channelId: string): Promise<Page> {
  const page = await viewerRead(ctx, siteId, `page:${channelId}`, () => ctx.db.page.findFirst({ where: { siteId, id: channelId } }));
  return found(page?.type === 'channel' ? page : null, `channel ${channelId}`);
}

export async function channelStatus(ctx: Reader, siteId: string, channelId: string, now = Date.now()): Promise<ChannelStatus> {
  const page = await findChannel(ctx, siteId, channelId);
  const [show, recording] = await Promise.all([showOf(ctx, page), newestRecording(ctx, page)]);
  const live = isLive(page, show);
  // A channel without a stream of ours has no show of its own: the switch alone says whether it is on.
  const state: ShowState = show ? show.state : switchedOn(page.document) ? 'LIVE' : 'OFFLINE';
  const recordingSince = show?.recordingStartedAt ?? null;
  const startedAt = live ? (show?.startedAt ?? null) : null;
  return {
    channelId: page.id,
    state,
    live,
    liveBroadcastId: show?.liveBroadcastId ?? null,
    startedAt,
    // How far back a viewer may seek now: the provider's window once the show has run that long (docs/show.md).
    dvrSeconds: startedAt === null || !show ? 0 : Math.min(show.dvrWindowSeconds, Math.max(0, Math.floor((now - startedAt) / 1000))),
    streamSecond: recordingSince === null ? null : Math.max(0, Math.floor((now - recordingSince) / 1000)),
    recordingVideoId: recording?.id ?? null,
    // A signed-only stream's plain URL plays nowhere: its viewers ask the check, which signs it.
    playbackUrl: live && show && !show.signedOnly && readGate(page.document).kind === 'none' ? show.playbackUrl : null,
    countdown: countdownOf(page, now),
  };
}
