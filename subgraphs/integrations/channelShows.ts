/**
 * A channel's show from its stream's webhooks (docs/design.md "The show"): OFFLINE → connected STARTING → active
 * LIVE → disconnected RECONNECTING → active or connected LIVE … → idle ENDED → the next show's connected
 * STARTING.
 * Each move is one conditional update (the state it may come from, and no later webhook applied), so a
 * repeated, older or out-of-order webhook changes nothing on any instance, however often it is retried.
 */
import { announceChannelStatus, ON_AIR, type ShowState } from '../../shared/contracts/channelStatus';
import type { Prisma, Stream } from '../../shared/db/generated/sqlite';
import type { SubgraphContext } from '../../shared/subgraph';
import { contractPlaybackKey } from './streamProviders';

export type WebhookType = 'connected' | 'active' | 'disconnected' | 'idle';

/** The states each webhook moves from, and where to. idle also ends a show that never went live. */
const MOVES: Record<WebhookType, { from: ShowState[]; to: ShowState }> = {
  connected: { from: ['OFFLINE', 'ENDED'], to: 'STARTING' },
  active: { from: ['STARTING', 'RECONNECTING'], to: 'LIVE' },
  disconnected: { from: ['LIVE'], to: 'RECONNECTING' },
  idle: { from: ['STARTING', 'LIVE', 'RECONNECTING'], to: 'ENDED' },
};

/**
 * Moves the stream's show by one webhook if the seed's order allows it; true when it moved. The first
 * `active` of a show (from STARTING) is when it went live; a reconnect keeps that time.
 */
export async function moveShow(db: Prisma.TransactionClient, streamId: string, type: WebhookType, at: Date): Promise<boolean> {
  const { from, to } = MOVES[type];
  const notOlder = { OR: [{ showChangedAt: null }, { showChangedAt: { lte: at } }] };
  const move = (states: ShowState[], extra: { showStartedAt?: Date | null }) =>
    db.stream.updateMany({ where: { id: streamId, showState: { in: states }, ...notOlder }, data: { showState: to, showChangedAt: at, ...extra } });
  if (type === 'active') {
    if ((await move(['STARTING'], { showStartedAt: at })).count === 1) return true;
    return (await move(['RECONNECTING'], {})).count === 1;
  }
  if (type === 'connected') {
    // The encoder is back before any idle: the show goes on (a provider that kept its HLS up on the
    // fallback image sends no fresh active), keeping the time it first went live.
    const back = await db.stream.updateMany({
      where: { id: streamId, showState: 'RECONNECTING', ...notOlder },
      data: { showState: 'LIVE', showChangedAt: at },
    });
    if (back.count === 1) return true;
  }
  return (await move(from, type === 'connected' ? { showStartedAt: null } : {})).count === 1;
}

/**
 * Tells every instance that the stream's channel changed: content caches of the site drop first (so the
 * content check and channelStatus read it anew), then viewers' channelStatus subscriptions hear it.
 * A bus failure is logged; the change itself stands.
 */
export async function announceChannelShow(
  ctx: Pick<SubgraphContext, 'bus' | 'logger'>,
  stream: Pick<Stream, 'siteId' | 'pageId' | 'id'>,
  acceptedAt = Date.now(),
) {
  try {
    await announceChannelStatus(ctx.bus, { siteId: stream.siteId, channelId: stream.pageId, acceptedAt }, stream.id);
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, streamId: stream.id }, 'could not announce a channel show change');
  }
}

/** The show of one stream of the site, as the content subgraph reads it (never the stream key; the signing key to the service alone). */
export async function channelShow(ctx: SubgraphContext, siteId: string, streamId: string) {
  const stream = await ctx.db.stream.findFirst({ where: { id: streamId, siteId }, include: { contract: true } });
  if (!stream) return null;
  const onAir = ON_AIR.includes(stream.showState as ShowState);
  const broadcast =
    stream.recording && stream.liveBroadcastId
      ? await ctx.db.liveBroadcast.findUnique({ where: { liveBroadcastId: stream.liveBroadcastId }, select: { startedAt: true } })
      : null;
  return {
    streamId: stream.id,
    state: stream.showState,
    liveBroadcastId: stream.liveBroadcastId,
    playbackUrl: stream.playbackUrl,
    startedAt: onAir ? (stream.showStartedAt?.getTime() ?? null) : null,
    recordingStartedAt: broadcast?.startedAt.getTime() ?? null,
    signedOnly: stream.signedOnly,
    dvrWindowSeconds: stream.dvrSeconds,
    // The key signs viewers' URLs in the content check: the service's own calls (a developer key) alone read it.
    playbackKey: ctx.identity.developerKey ? contractPlaybackKey(ctx, stream.contract) : null,
  };
}

/** Live streams right now (LIVE or RECONNECTING), for the stagegraph_channels_live gauge. */
export const countOnAir = (ctx: Pick<SubgraphContext, 'db'>) => ctx.db.stream.count({ where: { showState: { in: [...ON_AIR] } } });
