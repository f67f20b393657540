/** Resolvers of the show: channelStatus (C), a channel's videos (C) and their admin (D or a Videos role: change, delete), channel ↔ stream. */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import type { Resolvers } from '../resolvers.generated';
import { channelStatus } from '../show/channelStatus';
import { attachChannelStream } from '../show/channelStream';
import { createClip } from '../show/clips';
import { channelVideos, updateVideo } from '../show/channelVideos';
import { deleteVideo, forgetDeletedRecording } from '../show/videoDeletion';
import { readerOf, type ViewerReads } from '../viewerReads';
import { Scopes } from '../scopes';
import type { AccountAccessCache } from '../checkInputs';
import type { WebhookWaker } from '../webhookDispatcher';

/**
 * `reads`: the runtime's kept reads (pages, shows, recordings); `access`: the accounts' entitlements kept (what a
 * listing weighs); `webhooks`: woken when an attach wrote admin.channelUpdated.
 */
export const showResolvers = (reads: ViewerReads, access: AccountAccessCache, webhooks: WebhookWaker): Resolvers => ({
  Query: {
    channelStatus: (_root, { channelId }, ctx) => channelStatus(readerOf(ctx, reads), requireSite(ctx.identity), channelId),
    channelVideos: (_root, { channelId, limit, offset, deviceId }, ctx) =>
      channelVideos({ ...readerOf(ctx, reads), access }, requireSite(ctx.identity), channelId, limit ?? 50, offset ?? 0, deviceId ?? null),
  },
  Mutation: {
    updateVideo: (_root, { id, input }, ctx) => updateVideo(readerOf(ctx, reads), requireAdmin(ctx.identity, Scopes.videos, { write: true }), id, input),
    createClip: (_root, { input }, ctx) => createClip(readerOf(ctx, reads), requireAdmin(ctx.identity, Scopes.videos, { write: true }), input),
    deleteVideo: (_root, { id }, ctx) => deleteVideo(ctx, requireAdmin(ctx.identity, Scopes.videos, { write: true }), id),
    forgetDeletedRecording: (_root, { vodId }, ctx) => forgetDeletedRecording(ctx, requireAdmin(ctx.identity, Scopes.videos, { write: true }), vodId),
    attachChannelStream: async (_root, { channelId, streamId }, ctx) => {
      const attached = await attachChannelStream(ctx.db, requireAdmin(ctx.identity, Scopes.pages, { write: true, pageId: channelId }), channelId, streamId);
      if (attached.changed) webhooks.kick();
      return attached.page;
    },
  },
});
