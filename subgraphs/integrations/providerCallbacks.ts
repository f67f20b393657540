/**
 * What streaming providers send the service (Bearer of their contract): stream state webhooks and
 * finished recordings (VOD). Both are idempotent — providers retry until they get 200 — and a webhook
 * older than the latest one applied never moves a state back.
 */
import { serviceIdentity } from '../../shared/auth/identity';
import type { Stream, StreamProviderContract } from '../../shared/db/generated/sqlite';
import { badInput, conflict, ErrorCode, notFound } from '../../shared/errors';
import type { SubgraphContext } from '../../shared/subgraph';
import { isHttpUrl } from './providerCalls';
import { announceChannelShow, moveShow, type WebhookType } from './channelShows';
import { announceStreamState, stateOf } from './streamStates';
import { receiveSimulcastReport, type SimulcastReport } from './simulcast';
import { contractOfAuthorization } from './streamProviders';
import { stopStream } from './streams';

async function streamOfContract(ctx: SubgraphContext, contract: StreamProviderContract, providerStreamId: string): Promise<Stream> {
  const stream = await ctx.db.stream.findUnique({ where: { contractId_providerStreamId: { contractId: contract.id, providerStreamId } } });
  if (!stream) throw notFound(`stream ${providerStreamId} of this streaming provider`);
  return stream;
}

/**
 * Applies a webhook. connected/disconnected set the ingest connection, active/idle the playback; each
 * side remembers the provider time of the webhook that set it, and only a later one changes it.
 */
export async function receiveStreamWebhook(
  ctx: SubgraphContext,
  authorization: string | null | undefined,
  input: { type: WebhookType | 'simulcast'; id: string; time: number; simulcastTarget?: SimulcastReport | null },
) {
  const acceptedAt = Date.now();
  const contract = await contractOfAuthorization(ctx, authorization);
  // 8.64e15 ms is the last instant a Date can hold: a later time would be stored as Invalid Date.
  if (!Number.isFinite(input.time) || input.time < 0 || input.time > 8.64e15) throw badInput('time must be a Unix time in milliseconds', 'time');
  const stream = await streamOfContract(ctx, contract, input.id);
  const at = new Date(input.time);
  // Ours, apart from the seed's four and their order: a simulcast target's state.
  if (input.type === 'simulcast') return receiveSimulcastReport(ctx, stream, input.simulcastTarget, at);
  if (input.simulcastTarget) throw badInput('simulcastTarget goes only with type simulcast', 'simulcastTarget');
  const type = input.type;
  const ingest = input.type === 'connected' || input.type === 'disconnected';
  // The stream's state and its show move in one transaction: the same webhook retried at two instances at once
  // is applied by one of them, and the other finds both already moved (answering changed: false).
  const { applied, showMoved } = await ctx.db.$transaction(async (tx) => {
    const applied = ingest
      ? await tx.stream.updateMany({
          where: { id: stream.id, OR: [{ ingestChangedAt: null }, { ingestChangedAt: { lt: at } }] },
          data: { ingestConnected: input.type === 'connected', ingestChangedAt: at, updatedAt: new Date() },
        })
      : await tx.stream.updateMany({
          where: { id: stream.id, OR: [{ playbackChangedAt: null }, { playbackChangedAt: { lt: at } }] },
          data: { playbackLive: input.type === 'active', playbackChangedAt: at, updatedAt: new Date() },
        });
    return { applied, showMoved: await moveShow(tx, stream.id, type, at) };
  });
  const current = await ctx.db.stream.findUniqueOrThrow({ where: { id: stream.id } });
  const changed = applied.count === 1 || showMoved;
  const before = ingest ? stream.ingestConnected : stream.playbackLive;
  const after = ingest ? current.ingestConnected : current.playbackLive;
  if (applied.count === 1 && before !== after) announceStreamState(ctx, current, input.type, input.time);
  if (showMoved) await announceChannelShow(ctx, current, acceptedAt);
  const stopped = input.type === 'idle' ? await stopEndedRecording(ctx, current) : null;
  return { success: true, changed: changed || stopped !== null, state: stateOf(stopped ?? current) };
}

/**
 * A show that ended while recording stops its recording, so the VOD arrives without an admin. Checked
 * on every idle, not only the one that ended the show: when the provider's stopStream fails, the webhook
 * answers the error and the provider's retry of it stops the recording then. An admin who stopped it
 * meanwhile (CONFLICT) leaves nothing to do.
 */
async function stopEndedRecording(ctx: SubgraphContext, stream: Stream): Promise<Stream | null> {
  if (stream.showState !== 'ENDED' || !stream.recording) return null;
  try {
    return await stopStream(ctx, stream.siteId, stream.id);
  } catch (error) {
    if ((error as { extensions?: { code?: unknown } }).extensions?.code === ErrorCode.CONFLICT) return null;
    throw error;
  }
}

export interface VodDelivery {
  durationSeconds?: number | null;
  liveBroadcastId: string;
  vodId: string;
  streamId: string;
  url: string;
}

const RECORD_VOD = /* GraphQL */ `
  mutation RecordVod($input: RecordVodInput!) { recordVod(input: $input) { id } }
`;

/**
 * A finished recording: its liveBroadcastId must be one the service started for that stream, and it
 * becomes a Video of the stream's channel in the content subgraph. The same vodId again answers the
 * same Video; another vodId for a broadcast that has one is a CONFLICT.
 */
export async function deliverVod(ctx: SubgraphContext, authorization: string | null | undefined, input: VodDelivery) {
  const contract = await contractOfAuthorization(ctx, authorization);
  if (!isHttpUrl(input.url)) throw badInput('url must be an http(s) URL', 'url');
  if (input.durationSeconds !== undefined && input.durationSeconds !== null && !(input.durationSeconds >= 0)) {
    throw badInput('durationSeconds must not be negative', 'durationSeconds');
  }
  const stream = await streamOfContract(ctx, contract, input.streamId);
  let broadcast = await ctx.db.liveBroadcast.findUnique({ where: { liveBroadcastId: input.liveBroadcastId } });
  if (!broadcast || broadcast.contractId !== contract.id) throw notFound(`liveBroadcastId ${input.liveBroadcastId}`);
  if (broadcast.streamId !== stream.id) throw conflict(`liveBroadcastId ${input.liveBroadcastId} was started for another stream`);

  if (broadcast.vodId === null) {
    const elsewhere = await ctx.db.liveBroadcast.findFirst({ where: { contractId: contract.id, vodId: input.vodId }, select: { id: true } });
    if (elsewhere) throw conflict(`vodId ${input.vodId} was delivered for another broadcast`);
    // The unique (contract, vodId) still guards a race between two deliveries (CONFLICT).
    await ctx.db.liveBroadcast.updateMany({
      where: { id: broadcast.id, vodId: null },
      data: { vodId: input.vodId, vodUrl: input.url, vodDurationSeconds: input.durationSeconds ?? null, vodDeliveredAt: new Date() },
    });
    broadcast = await ctx.db.liveBroadcast.findUniqueOrThrow({ where: { id: broadcast.id } });
  }
  if (broadcast.vodId !== input.vodId) throw conflict(`liveBroadcastId ${input.liveBroadcastId} already delivered VOD ${broadcast.vodId}`);

  let videoId = broadcast.videoId;
  if (videoId === null) {
    // recordVod is idempotent on vodId, so a retried delivery after a failure here makes no second Video.
    const { recordVod } = await ctx.supergraph.execute<{ recordVod: { id: string } }>(
      RECORD_VOD,
      {
        input: {
          pageId: stream.pageId,
          vodId: input.vodId,
          url: broadcast.vodUrl ?? input.url,
          durationSeconds: broadcast.vodDurationSeconds,
          liveBroadcastId: broadcast.liveBroadcastId,
          streamId: stream.id,
        },
      },
      serviceIdentity(stream.siteId),
    );
    videoId = recordVod.id;
    await ctx.db.liveBroadcast.update({ where: { id: broadcast.id }, data: { videoId } });
    // The channel's newest recording changed: viewers of an offline channel get it now.
    await announceChannelShow(ctx, stream);
  }
  return { success: true, vodId: input.vodId, liveBroadcastId: broadcast.liveBroadcastId, videoId };
}
