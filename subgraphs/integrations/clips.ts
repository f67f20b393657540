/**
 * Clips at the provider (ours, docs/show.md "Clips"): the provider that holds a recording, or a stream's live
 * window, cuts a range without re-encoding (its contract's createClip URL) and keeps it as a VOD of its own.
 * The clip is kept here with its contract, so deleting its Video asks that provider's deleteVod as for a
 * recording. The content subgraph's createClip checks the request and makes the clip a Video.
 */
import type { StreamProviderContract } from '../../shared/db/generated/sqlite';
import { appError, badInput, conflict, ErrorCode, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { SubgraphContext } from '../../shared/subgraph';
import { isHttpUrl, unexpectedAnswer } from './providerCalls';
import { callContract, findContract } from './streamProviders';

export interface CutClipRequest {
  vodId?: string | null;
  streamId?: string | null;
  startSecond: number;
  durationSeconds: number;
}

/** The provider's VOD `vodId` of the site (a delivered recording or a clip) with its contract and stream; null when none. */
export async function providerVod(ctx: SubgraphContext, siteId: string, vodId: string) {
  const broadcast = await ctx.db.liveBroadcast.findFirst({ where: { siteId, vodId }, include: { stream: { include: { contract: true } } } });
  if (broadcast)
    return { contract: broadcast.stream.contract, streamId: broadcast.streamId, liveBroadcastId: broadcast.liveBroadcastId, deletedAt: broadcast.vodDeletedAt };
  const clip = await ctx.db.clip.findFirst({ where: { siteId, vodId } });
  if (!clip) return null;
  return {
    contract: await findContract(ctx, siteId, clip.contractId),
    streamId: clip.streamId,
    liveBroadcastId: clip.liveBroadcastId,
    deletedAt: clip.vodDeletedAt,
  };
}

/** Marks the provider's VOD deleted (deleteVod answered), a recording's or a clip's. */
export async function markVodDeleted(ctx: SubgraphContext, siteId: string, vodId: string): Promise<void> {
  const at = new Date();
  await ctx.db.liveBroadcast.updateMany({ where: { siteId, vodId }, data: { vodDeletedAt: at } });
  await ctx.db.clip.updateMany({ where: { siteId, vodId }, data: { vodDeletedAt: at } });
}

/** What createClip must answer. */
function cutClip(contract: StreamProviderContract, body: unknown) {
  const answer = (body ?? {}) as Record<string, unknown>;
  const { vodId, url, durationSeconds } = answer;
  if (typeof vodId !== 'string' || vodId === '' || typeof url !== 'string' || !isHttpUrl(url) || typeof durationSeconds !== 'number' || !(durationSeconds >= 0))
    throw appError(ErrorCode.BAD_GATEWAY, `the streaming provider "${contract.name}"'s createClip answer has no vodId, http(s) url and durationSeconds`);
  return { vodId, url, durationSeconds };
}

/**
 * Cuts a clip at the provider of the source: a delivered recording or clip (`vodId`), or the live window of a
 * stream that records (`streamId`). A provider without a createClip URL is a CONFLICT; its 422 (a range it
 * does not hold) is the caller's BAD_USER_INPUT naming startSecond; anything else is BAD_GATEWAY. Nothing is
 * kept unless the provider cut the clip.
 */
export async function cutProviderClip(ctx: SubgraphContext, siteId: string, input: CutClipRequest) {
  if (Boolean(input.vodId) === Boolean(input.streamId)) throw badInput('exactly one of vodId and streamId is required', 'vodId');
  let source: { contract: StreamProviderContract; streamId: string; liveBroadcastId: string | null; payload: object };
  if (input.vodId) {
    const vod = await providerVod(ctx, siteId, input.vodId);
    if (!vod || vod.deletedAt) throw notFound(`VOD ${input.vodId}`);
    source = { ...vod, payload: { sourceVodId: input.vodId } };
  } else {
    // Not streams.ts's findStream: streams.ts asks this module about VODs, and imports run one way.
    const stream = await ctx.db.stream.findFirst({ where: { id: input.streamId as string, siteId }, include: { contract: true } });
    if (!stream) throw notFound(`stream ${input.streamId}`);
    if (!stream.recording) throw badInput(`stream ${stream.id} is not recording: a live clip is cut from its recording's window`, 'channelId');
    source = { contract: stream.contract, streamId: stream.id, liveBroadcastId: stream.liveBroadcastId, payload: { id: stream.providerStreamId } };
  }
  const { contract } = source;
  if (!(contract.urls as Record<string, unknown>).createClip) throw conflict(`the streaming provider "${contract.name}" does not cut clips`);
  const answer = await callContract(ctx, contract, 'createClip', { ...source.payload, startSecond: input.startSecond, durationSeconds: input.durationSeconds });
  if (answer.status === 422) {
    const message = (answer.body as { message?: unknown } | null)?.message;
    throw badInput(`startSecond: ${typeof message === 'string' ? message.slice(0, 300) : 'the provider does not hold that range'}`, 'startSecond');
  }
  if (answer.status >= 300) throw unexpectedAnswer('createClip', answer, contract.name);
  const clip = cutClip(contract, answer.body);
  await ctx.db.clip.create({
    data: {
      id: newId(),
      siteId,
      contractId: contract.id,
      streamId: source.streamId,
      vodId: clip.vodId,
      url: clip.url,
      durationSeconds: clip.durationSeconds,
      sourceVodId: input.vodId ?? null,
      liveBroadcastId: source.liveBroadcastId,
      createdAt: new Date(),
    },
  });
  return { ...clip, streamId: source.streamId, liveBroadcastId: source.liveBroadcastId };
}
