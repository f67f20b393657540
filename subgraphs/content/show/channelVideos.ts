/**
 * A channel's videos for its admins (ours, docs/design.md "The show"): the list newest first, and what an admin
 * changes in one — title, description and the entitlements the content check then asks of viewers.
 */
import { serviceIdentity } from '../../../shared/auth/identity';
import type { Prisma } from '../../../shared/db/generated/sqlite';
import { badInput, notFound } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import type { WithViewerReads } from '../viewerReads';
import { checkText } from '../checks';
import type { UpdateVideoInput } from '../resolvers.generated';
import { viewsForCaller, type ViewReader } from '../videoViews';
import { findChannel } from './channelStatus';

type Ctx = Pick<SubgraphContext, 'bus' | 'db' | 'supergraph'> & WithViewerReads;

const SITE_SKUS = /* GraphQL */ `query VideoEntitlementSkus { entitlements { sku } }`;

/** The channel's videos, newest first, each as the caller may see it (a URL only where the caller may play it: videoViews.ts). */
export async function channelVideos(ctx: Ctx & ViewReader, siteId: string, channelId: string, limit: number, offset: number, deviceId: string | null = null) {
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw badInput('limit must be from 1 to 500', 'limit');
  if (!Number.isInteger(offset) || offset < 0) throw badInput('offset must not be negative', 'offset');
  const channel = await findChannel(ctx, siteId, channelId);
  const where = { siteId, pageId: channel.id };
  const [results, totalCount] = await Promise.all([
    ctx.db.video.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
    ctx.db.video.count({ where }),
  ]);
  return { results: await viewsForCaller(ctx, siteId, results, deviceId), pagination: { limit, offset, totalCount } };
}

/** Each SKU must be an entitlement of the site: an unknown one is refused by name, and nothing is written. */
async function checkSkus(ctx: Ctx, siteId: string, skus: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(skus)];
  if (wanted.length === 0) return [];
  if (wanted.length > 50) throw badInput('subscriptions may name at most 50 SKUs', 'subscriptions');
  const { entitlements } = await ctx.supergraph.execute<{ entitlements: { sku: string }[] }>(SITE_SKUS, {}, serviceIdentity(siteId));
  const known = new Set(entitlements.map((entitlement) => entitlement.sku));
  const unknown = wanted.find((sku) => !known.has(sku));
  if (unknown !== undefined) throw badInput(`subscriptions: no entitlement of this site has SKU "${unknown}"`, 'subscriptions');
  return wanted;
}

export async function updateVideo(ctx: Ctx, siteId: string, id: string, input: UpdateVideoInput) {
  const video = await ctx.db.video.findFirst({ where: { id, siteId } });
  if (!video) throw notFound(`video ${id}`);
  const data: Prisma.VideoUpdateInput = { updatedAt: new Date() };
  if (input.title !== undefined && input.title !== null) data.title = checkText(input.title, 'title', 200);
  if (input.description !== undefined && input.description !== null) {
    if (input.description.length > 5000) throw badInput('description must be at most 5000 characters', 'description');
    data.description = input.description;
  }
  if (input.subscriptions !== undefined && input.subscriptions !== null) data.requiredSkus = await checkSkus(ctx, siteId, input.subscriptions);
  return ctx.db.video.update({ where: { id: video.id }, data });
}
