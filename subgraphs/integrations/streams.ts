/**
 * Service-side stream control: creating a channel's stream at its provider, starting and stopping VOD
 * recording, re-enabling ingest, verifying a customer account, and the two test triggers (deleteStream,
 * deleteVod). State changes are claimed in the database first (a conditional update), so two callers
 * cannot both start a recording, and undone if the provider refuses.
 */
import { randomUUID } from 'node:crypto';
import { serviceIdentity } from '../../shared/auth/identity';
import type { Stream, StreamProviderContract } from '../../shared/db/generated/sqlite';
import { appError, badInput, conflict, ErrorCode, forbidden, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { SubgraphContext } from '../../shared/subgraph';
import { isHttpUrl, messageOf, unexpectedAnswer, type ProviderAnswer, type ProviderOperation } from './providerCalls';
import { announceChannelShow } from './channelShows';
import { markVodDeleted, providerVod } from './clips';
import { announceSimulcast, checkSimulcastTargets, requireSimulcast, simulcastKeys, simulcastRows, type SimulcastTargetInput } from './simulcast';
import { announceStreamState } from './streamStates';
import { callContract, checkAccountCredentials, findContract } from './streamProviders';

const CHANNEL = /* GraphQL */ `query StreamChannel($id: ID!) { page(id: $id) { id type data } }`;

/** Whether the channel's data has an active gate (password, login or subscription): its stream then plays signed only. */
function gated(data: unknown): boolean {
  const gate = data !== null && typeof data === 'object' ? (data as { gate?: { active?: unknown; kind?: unknown } }).gate : undefined;
  return gate?.active === true && (gate.kind === 'password' || gate.kind === 'login' || gate.kind === 'subscription');
}
const ATTACH = /* GraphQL */ `mutation AttachChannelStream($channelId: ID!, $streamId: ID!) { attachChannelStream(channelId: $channelId, streamId: $streamId) { id } }`;

/** A stream of the site with its contract, or NOT_FOUND. */
export async function findStream(ctx: SubgraphContext, siteId: string, id: string): Promise<Stream & { contract: StreamProviderContract }> {
  const stream = await ctx.db.stream.findFirst({ where: { id, siteId }, include: { contract: true } });
  if (!stream) throw notFound(`stream ${id}`);
  return stream;
}

/** Calls the contract and accepts only 2xx; any 4xx left is the provider's failure. */
async function expectDone(ctx: SubgraphContext, contract: StreamProviderContract, operation: ProviderOperation, payload: object): Promise<ProviderAnswer> {
  const answer = await callContract(ctx, contract, operation, payload);
  if (answer.status >= 300) throw unexpectedAnswer(operation, answer, contract.name);
  return answer;
}

const providerSays = (answer: ProviderAnswer) => (messageOf(answer.body) ? `: ${messageOf(answer.body)}` : '');

/** What createStream must answer, each a non-empty string. */
function createdStream(answer: ProviderAnswer) {
  const body = (answer.body ?? {}) as Record<string, unknown>;
  const fields = ['ingestUrl', 'streamKey', 'playbackUrl', 'providerStreamId'] as const;
  for (const field of fields) {
    if (typeof body[field] !== 'string' || body[field] === '') {
      throw appError(ErrorCode.BAD_GATEWAY, `the streaming provider's createStream answer has no ${field}`);
    }
  }
  // Ours, beside the seed's fields: the provider's rewind window; a provider that says nothing (or nonsense) has none.
  const dvr = body.dvrSeconds;
  const dvrSeconds = typeof dvr === 'number' && Number.isInteger(dvr) && dvr >= 0 && dvr <= 86_400 ? dvr : 0;
  return { ...(body as Record<(typeof fields)[number], string>), dvrSeconds };
}

export interface CreateStreamRequest {
  pageId: string;
  contractId: string;
  accountCredentials?: unknown;
  fallbackImageUrl?: string | null;
  simulcastTargets?: SimulcastTargetInput[] | null;
}

/** Creates a stream for a channel at the contract's provider and keeps what the provider answered. */
export async function createStream(ctx: SubgraphContext, siteId: string, request: CreateStreamRequest): Promise<Stream> {
  const simulcastTargets = checkSimulcastTargets(ctx, request.simulcastTargets ?? []);
  const contract = await findContract(ctx, siteId, request.contractId);
  if (simulcastTargets.length > 0) requireSimulcast(contract);
  const { page } = await ctx.supergraph.execute<{ page: { id: string; type: string; data: unknown } }>(CHANNEL, { id: request.pageId }, ctx.identity);
  if (page.type !== 'channel') throw badInput('pageId must name a channel', 'pageId');
  const accountCredentials = checkAccountCredentials(contract, request.accountCredentials);
  const fallbackImageUrl = request.fallbackImageUrl ?? ctx.config.streamFallbackImageUrl;
  if (!fallbackImageUrl) throw badInput('fallbackImageUrl is required (no STREAM_FALLBACK_IMAGE_URL is configured)', 'fallbackImageUrl');
  if (!isHttpUrl(fallbackImageUrl)) throw badInput('fallbackImageUrl must be an http(s) URL', 'fallbackImageUrl');

  const id = newId();
  const title = `stagegraph-${id}`;
  // A gated channel's stream, at a provider that takes signed playback, plays through signed URLs only (ours).
  const signedOnly = contract.playbackKeyId !== null && gated(page.data);
  const answer = await callContract(ctx, contract, 'createStream', {
    title,
    fallbackImageUrl,
    ...(accountCredentials ? { accountCredentials } : {}),
    ...(signedOnly ? { playbackPolicy: 'signed' } : {}),
    // Ours: the provider relays to them from the stream's first show (docs/show.md, "Simulcast").
    ...(simulcastTargets.length > 0 ? { simulcastTargets } : {}),
  });
  if (answer.status === 401 && contract.useAccount) {
    throw badInput(`the streaming provider rejected accountCredentials (401${providerSays(answer)})`, 'accountCredentials');
  }
  if (answer.status === 403) throw forbidden(`the streaming provider cannot create a stream for this account (403${providerSays(answer)})`);
  if (answer.status >= 300) throw unexpectedAnswer('createStream', answer, contract.name);
  const created = createdStream(answer);
  const now = new Date();
  const stream = await ctx.db.stream.create({
    data: {
      id,
      siteId,
      contractId: contract.id,
      pageId: page.id,
      title,
      fallbackImageUrl,
      providerStreamId: created.providerStreamId,
      ingestUrl: created.ingestUrl,
      streamKey: created.streamKey,
      playbackUrl: created.playbackUrl,
      dvrSeconds: created.dvrSeconds,
      signedOnly,
      createdAt: now,
      updatedAt: now,
      simulcastTargets: { create: simulcastRows(ctx, siteId, simulcastTargets) },
    },
  });
  announceStreamState(ctx, stream, 'created');
  // The channel's first stream becomes its stream (content owns the page); one it already names stays.
  await ctx.supergraph.execute(ATTACH, { channelId: page.id, streamId: stream.id }, serviceIdentity(siteId));
  return stream;
}

/** Starts VOD recording under a new liveBroadcastId, which the provider returns with the VOD. */
export async function startStream(ctx: SubgraphContext, siteId: string, id: string): Promise<Stream> {
  const stream = await findStream(ctx, siteId, id);
  const liveBroadcastId = randomUUID();
  const claimed = await ctx.db.stream.updateMany({
    where: { id: stream.id, recording: false },
    data: { recording: true, liveBroadcastId, updatedAt: new Date() },
  });
  if (claimed.count === 0) throw conflict(`stream ${id} is already recording (liveBroadcastId ${stream.liveBroadcastId})`);
  try {
    await expectDone(ctx, stream.contract, 'startStream', { id: stream.providerStreamId, liveBroadcastId });
  } catch (error) {
    await ctx.db.stream.updateMany({ where: { id: stream.id, liveBroadcastId }, data: { recording: false, liveBroadcastId: stream.liveBroadcastId } });
    throw error;
  }
  const [, started] = await ctx.db.$transaction([
    ctx.db.liveBroadcast.create({
      data: { id: newId(), siteId, contractId: stream.contractId, streamId: stream.id, liveBroadcastId, startedAt: new Date() },
    }),
    ctx.db.stream.findUniqueOrThrow({ where: { id: stream.id } }),
  ]);
  announceStreamState(ctx, started, 'started');
  await announceChannelShow(ctx, started);
  return started;
}

/**
 * Ends the recording; the provider then delivers its VOD (matched by the broadcast's own row, so the
 * stream lets go of its liveBroadcastId at once: the next show starts without one).
 */
export async function stopStream(ctx: SubgraphContext, siteId: string, id: string): Promise<Stream> {
  const stream = await findStream(ctx, siteId, id);
  const claimed = await ctx.db.stream.updateMany({
    where: { id: stream.id, recording: true, liveBroadcastId: stream.liveBroadcastId },
    data: { recording: false, liveBroadcastId: null, updatedAt: new Date() },
  });
  if (claimed.count === 0) throw conflict(`stream ${id} is not recording`);
  try {
    await expectDone(ctx, stream.contract, 'stopStream', { id: stream.providerStreamId });
  } catch (error) {
    await ctx.db.stream.updateMany({
      where: { id: stream.id, recording: false, liveBroadcastId: null },
      data: { recording: true, liveBroadcastId: stream.liveBroadcastId },
    });
    throw error;
  }
  const [, stopped] = await ctx.db.$transaction([
    ctx.db.liveBroadcast.updateMany({ where: { liveBroadcastId: stream.liveBroadcastId as string, stoppedAt: null }, data: { stoppedAt: new Date() } }),
    ctx.db.stream.findUniqueOrThrow({ where: { id: stream.id } }),
  ]);
  announceStreamState(ctx, stopped, 'stopped');
  await announceChannelShow(ctx, stopped);
  return stopped;
}

/**
 * Changes a stream (ours): its simulcast targets replace the list, handed first to the provider's
 * setSimulcastTargets (which answers their states), then kept; a target named without a key keeps its own. The
 * answered states carry no time, so the provider's next report of each applies whatever the two clocks say.
 */
export async function updateStream(ctx: SubgraphContext, siteId: string, id: string, input: { simulcastTargets?: SimulcastTargetInput[] | null }) {
  const stream = await findStream(ctx, siteId, id);
  if (!input.simulcastTargets) return stream;
  const targets = checkSimulcastTargets(ctx, input.simulcastTargets, await simulcastKeys(ctx, stream.id));
  requireSimulcast(stream.contract);
  const answer = await expectDone(ctx, stream.contract, 'setSimulcastTargets', { id: stream.providerStreamId, simulcastTargets: targets });
  const reported = (answer.body as { simulcastTargets?: unknown } | null)?.simulcastTargets;
  const [, , updated] = await ctx.db.$transaction([
    ctx.db.simulcastTarget.deleteMany({ where: { streamId: stream.id } }),
    ctx.db.simulcastTarget.createMany({
      data: simulcastRows(ctx, siteId, targets, Array.isArray(reported) ? reported : []).map((row) => ({ ...row, streamId: stream.id })),
    }),
    ctx.db.stream.update({ where: { id: stream.id }, data: { updatedAt: new Date() } }),
  ]);
  await announceSimulcast(ctx, updated, 'updated', Date.now());
  return updated;
}

/** Asks the provider to enable or block a stream's ingest, then records it. */
async function switchIngest(ctx: SubgraphContext, siteId: string, id: string, enabled: boolean): Promise<Stream> {
  const stream = await findStream(ctx, siteId, id);
  await expectDone(ctx, stream.contract, enabled ? 'activateStream' : 'deleteStream', { id: stream.providerStreamId });
  const switched = await ctx.db.stream.update({ where: { id: stream.id }, data: { ingestEnabled: enabled, updatedAt: new Date() } });
  announceStreamState(ctx, switched, enabled ? 'activated' : 'deleted');
  return switched;
}

/** Enables ingest again (the provider answers 200 for a stream that is already active). */
export const activateStream = (ctx: SubgraphContext, siteId: string, id: string) => switchIngest(ctx, siteId, id, true);

/** Test trigger of deleteStream: the provider blocks the stream's ingest. */
export const deleteProviderStream = (ctx: SubgraphContext, siteId: string, id: string) => switchIngest(ctx, siteId, id, false);

const FORGET_RECORDING = /* GraphQL */ `mutation ForgetDeletedRecording($vodId: ID!) { forgetDeletedRecording(vodId: $vodId) { id } }`;

/**
 * deleteVod (the seed's test trigger, and what deleting a recording's Video asks): the provider removes a
 * delivered recording's assets, then the Video it became is removed from the content subgraph, never
 * offered or listed again. Asked again, the provider is not called a second time (its assets are gone)
 * but the Video is removed all the same, so a removal that failed halfway is finished by a retry.
 */
export async function deleteProviderVod(ctx: SubgraphContext, siteId: string, vodId: string) {
  // A delivered recording, or a clip the provider cut (clips.ts): both are VODs of a contract.
  const vod = await providerVod(ctx, siteId, vodId);
  if (!vod) throw notFound(`VOD ${vodId}`);
  if (vod.deletedAt === null) {
    await expectDone(ctx, vod.contract, 'deleteVod', { id: vodId });
    await markVodDeleted(ctx, siteId, vodId);
  }
  await ctx.supergraph.execute(FORGET_RECORDING, { vodId }, serviceIdentity(siteId));
  return { success: true, vodId };
}

/** Asks the provider whether customer credentials are valid: 200 valid, 401 not. */
export async function verifyAccount(ctx: SubgraphContext, siteId: string, contractId: string, given: unknown) {
  const contract = await findContract(ctx, siteId, contractId);
  if (!contract.useAccount) throw conflict(`the streaming provider "${contract.name}" does not use customer accounts (useAccount is false)`);
  const accountCredentials = checkAccountCredentials(contract, given);
  const answer = await callContract(ctx, contract, 'verifyAccount', { accountCredentials });
  if (answer.status === 401) return { valid: false, message: `the provider rejected the account${providerSays(answer)}` };
  if (answer.status >= 300) throw unexpectedAnswer('verifyAccount', answer, contract.name);
  return { valid: true, message: 'the provider accepted the account' };
}
