/**
 * Deleting a video (docs/design.md "Paid video stays paid"): a delivered recording's assets are deleted at its
 * provider first (the integrations subgraph's deleteVod call, which then has the video forgotten here),
 * and only then is the video removed, so a provider that refuses leaves everything as it was. A removed
 * video is never offered by the content check nor listed again; its channel's viewers hear the change.
 */
import { serviceIdentity } from '../../../shared/auth/identity';
import { announceChannelStatus } from '../../../shared/contracts/channelStatus';
import type { Video } from '../../../shared/db/generated/sqlite';
import { ErrorCode, notFound } from '../../../shared/errors';
import type { Logger } from '../../../shared/logger';
import type { SubgraphContext } from '../../../shared/subgraph';

type Ctx = Pick<SubgraphContext, 'bus' | 'db' | 'supergraph'> & { logger: Logger };

const DELETE_VOD = /* GraphQL */ `mutation DeleteVideoRecording($vodId: ID!) { deleteProviderVod(vodId: $vodId) { success vodId } }`;

const codeOf = (error: unknown) => (error as { extensions?: { code?: unknown } })?.extensions?.code;

/** Removes the video and tells its channel's viewers (a bus failure is logged; the removal stands). */
async function removeVideo(ctx: Ctx, video: Video): Promise<void> {
  await ctx.db.video.deleteMany({ where: { id: video.id, siteId: video.siteId } });
  if (!video.pageId) return;
  try {
    await announceChannelStatus(ctx.bus, { siteId: video.siteId, channelId: video.pageId, acceptedAt: Date.now() });
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, videoId: video.id }, 'a deleted video was not announced to its channel’s viewers');
  }
}

/**
 * Deletes a video of the site (NOT_FOUND for another site's). A VOD a provider delivered is deleted at
 * the provider first (its errors, BAD_GATEWAY, leave the video in place); a video no provider delivered
 * is removed here alone.
 */
export async function deleteVideo(ctx: Ctx, siteId: string, id: string): Promise<{ id: string; success: true }> {
  const video = await ctx.db.video.findFirst({ where: { id, siteId } });
  if (!video) throw notFound(`video ${id}`);
  if (video.type === 'vod' && video.externalId) {
    try {
      await ctx.supergraph.execute(DELETE_VOD, { vodId: video.externalId }, serviceIdentity(siteId));
    } catch (error) {
      // No broadcast of ours delivered it (an admin's recordVod): there is nothing to delete at a provider.
      if (codeOf(error) !== ErrorCode.NOT_FOUND) throw error;
    }
  }
  await removeVideo(ctx, video);
  return { id: video.id, success: true };
}

/** The recording `vodId` was deleted at its provider (the integrations subgraph's deleteVod): its video goes too. */
export async function forgetDeletedRecording(ctx: Ctx, siteId: string, vodId: string): Promise<{ id: string; success: true }> {
  const video = await ctx.db.video.findUnique({ where: { siteId_externalId: { siteId, externalId: vodId } } });
  if (video) await removeVideo(ctx, video);
  return { id: video?.id ?? vodId, success: true };
}
