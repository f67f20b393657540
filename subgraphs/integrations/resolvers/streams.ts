/** Resolvers of streaming provider contracts, streams, and the provider's own calls (webhooks, VOD). */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import { serviceIdentity } from '../../../shared/auth/identity';
import type { ShowState } from '../../../shared/contracts/channelStatus';
import { liveCheckOf } from '../../../shared/liveSwitches';
import type { ProviderOperation } from '../providerCalls';
import type { Resolvers } from '../resolvers.generated';
import { deliverVod, receiveStreamWebhook } from '../providerCallbacks';
import { findContract, registerStreamProvider, updateStreamProvider } from '../streamProviders';
import { stateOf } from '../streamStates';
import { STREAMS_SCOPE as SCOPE } from '../../../shared/contracts/liveEvents';
import { channelShow } from '../channelShows';
import { cutProviderClip } from '../clips';
import { channelRecording, recordingOfVideo } from '../recordings';
import { simulcastTargetsOf } from '../simulcast';
import {
  activateStream,
  createStream,
  deleteProviderStream,
  deleteProviderVod,
  findStream,
  startStream,
  stopStream,
  updateStream,
  verifyAccount,
} from '../streams';

const read = { write: false };

/** The channel's page document, as the service reads it; a list, so a channel deleted since reads as none. */
const CHANNEL_DOCUMENT = /* GraphQL */ `query StreamChannelDocument($ids: [ID!]) { pages(ids: $ids) { document } }`;
const write = { write: true };

export const streamResolvers: Resolvers = {
  Query: {
    streamProviderContracts: (_root, _args, { identity, db }) =>
      db.streamProviderContract.findMany({ where: { siteId: requireAdmin(identity, SCOPE, read) }, orderBy: { createdAt: 'asc' } }),
    streamProviderContract: (_root, { id }, ctx) => findContract(ctx, requireAdmin(ctx.identity, SCOPE, read), id),
    streams: (_root, { pageId }, { identity, db }) =>
      db.stream.findMany({ where: { siteId: requireAdmin(identity, SCOPE, read), ...(pageId ? { pageId } : {}) }, orderBy: { createdAt: 'asc' } }),
    stream: (_root, { id }, ctx) => findStream(ctx, requireAdmin(ctx.identity, SCOPE, read), id),
    channelRecording: (_root, { channelId }, ctx) => channelRecording(ctx, requireSite(ctx.identity), channelId),
    recordingOfVideo: (_root, { videoId }, ctx) => recordingOfVideo(ctx, requireSite(ctx.identity), videoId),
    channelShow: (_root, { streamId }, ctx) => channelShow(ctx, requireAdmin(ctx.identity, SCOPE, read), streamId),
  },
  Mutation: {
    registerStreamProvider: (_root, { input }, ctx) => registerStreamProvider(ctx, requireAdmin(ctx.identity, SCOPE, write), input),
    updateStreamProvider: (_root, { id, authorization, input }, ctx) => updateStreamProvider(ctx, id, authorization, input),
    verifyStreamProviderAccount: (_root, { contractId, accountCredentials }, ctx) =>
      verifyAccount(ctx, requireAdmin(ctx.identity, SCOPE, write), contractId, accountCredentials),
    createStream: (_root, { input }, ctx) => createStream(ctx, requireAdmin(ctx.identity, SCOPE, write), input),
    startStream: (_root, { id }, ctx) => startStream(ctx, requireAdmin(ctx.identity, SCOPE, write), id),
    stopStream: (_root, { id }, ctx) => stopStream(ctx, requireAdmin(ctx.identity, SCOPE, write), id),
    activateStream: (_root, { id }, ctx) => activateStream(ctx, requireAdmin(ctx.identity, SCOPE, write), id),
    updateStream: (_root, { id, input }, ctx) => updateStream(ctx, requireAdmin(ctx.identity, SCOPE, write), id, input),
    deleteProviderStream: (_root, { streamId }, ctx) => deleteProviderStream(ctx, requireAdmin(ctx.identity, SCOPE, write), streamId),
    deleteProviderVod: (_root, { vodId }, ctx) => deleteProviderVod(ctx, requireAdmin(ctx.identity, SCOPE, write), vodId),
    cutProviderClip: (_root, { input }, ctx) => cutProviderClip(ctx, requireAdmin(ctx.identity, SCOPE, write), input),
    receiveStreamWebhook: (_root, { authorization, input }, ctx) => receiveStreamWebhook(ctx, authorization, input),
    deliverVod: (_root, { authorization, input }, ctx) => deliverVod(ctx, authorization, input),
  },
  StreamProviderContract: {
    urls: (contract) => contract.urls as Record<ProviderOperation, string>,
    accountCredentials: (contract) => contract.accountCredentials,
    signedPlayback: (contract) => contract.playbackKeyId !== null,
    playbackSigning: (contract) => contract.playbackSigning ?? null,
    created: (contract) => contract.createdAt.getTime(),
    modified: (contract) => contract.updatedAt.getTime(),
  },
  Stream: {
    state: (stream) => stateOf(stream),
    liveCheck: async (stream, _args, ctx) => {
      const { pages } = await ctx.supergraph.execute<{ pages: { document: unknown }[] }>(
        CHANNEL_DOCUMENT,
        { ids: [stream.pageId] },
        serviceIdentity(stream.siteId),
      );
      return liveCheckOf(stream.id, stream.showState as ShowState, pages[0]?.document ?? null);
    },
    broadcasts: (stream, _args, { db }) => db.liveBroadcast.findMany({ where: { streamId: stream.id }, orderBy: { startedAt: 'desc' } }),
    created: (stream) => stream.createdAt.getTime(),
    modified: (stream) => stream.updatedAt.getTime(),
    simulcastTargets: (stream, _args, ctx) => simulcastTargetsOf(ctx, stream.id),
  },
  LiveBroadcast: {
    started: (broadcast) => broadcast.startedAt.getTime(),
    stopped: (broadcast) => broadcast.stoppedAt?.getTime() ?? null,
    durationSeconds: (broadcast) => broadcast.vodDurationSeconds,
    vodDeleted: (broadcast) => broadcast.vodDeletedAt !== null,
  },
};
