/** Resolvers of overlays, their broadcasts, and the Site join. */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import { verifySuperApiKey } from '../../../shared/auth/credentials';
import { notFound, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { Db } from '../../../shared/db/client';
import type { Prisma } from '../../../shared/db/generated/sqlite';
import type { SubgraphContext } from '../../../shared/subgraph';
import { publishBroadcastEvent, showOverlay } from '../broadcasts';
import { checkChannelOfSite } from '../channels';
import { audienceTags, clearEventOf, withRemaining, type OverlayBroadcastEvent } from '../../../shared/contracts/liveEvents';
import { concurrentsOf } from '../presence';
import { showQaHighlight } from '../qaHighlight';
import { overlayTimeline } from '../timecode';
import type { BroadcastOverlayInput, Resolvers } from '../resolvers.generated';
import { checkContents, checkCta, checkDuration, checkName, checkOptionalId, checkSiteId, checkVariables } from '../validation';

export const SCOPE = 'Overlays';

/** The overlay of the site, or NOT_FOUND (another site's overlay is not found either). */
export async function findOverlay(db: Db, siteId: string, id: string) {
  const overlay = await db.overlay.findFirst({ where: { id, siteId } });
  if (!overlay) throw notFound(`overlay ${id}`);
  return overlay;
}

/** A broadcast asked for by an admin: to a channel or the site, optionally only to viewers with one tag. */
async function broadcast(
  ctx: SubgraphContext,
  overlayId: string,
  tagId: string | null,
  input: BroadcastOverlayInput | null | undefined,
): Promise<OverlayBroadcastEvent> {
  const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
  const overlay = await findOverlay(ctx.db, siteId, overlayId);
  const channelId = checkOptionalId(input?.channelId, 'channelId');
  if (channelId !== null) await checkChannelOfSite(ctx, siteId, channelId);
  return showOverlay(ctx, siteId, overlay, {
    duration: checkDuration(input?.duration ?? overlay.duration),
    channelId,
    tagId,
    tags: tagId === null ? [] : [tagId],
    variables: checkVariables(input?.variables),
  });
}

const activeWhere = (siteId: string, now: Date) => ({ siteId, clearedAt: null, expiresAt: { gt: now } });

export const overlayResolvers: Resolvers = {
  Query: {
    overlays: (_root, _args, { identity, db }) => {
      const siteId = requireAdmin(identity, SCOPE, { write: false });
      return db.overlay.findMany({ where: { siteId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    },
    overlay: (_root, { id }, { identity, db }) => findOverlay(db, requireAdmin(identity, SCOPE, { write: false }), id),
    concurrents: async (_root, { siteIds, superApiKey }, { identity, db, config }) => {
      const keyId = verifySuperApiKey(superApiKey, config.jwtSecret);
      const key = keyId ? await db.superApiKey.findUnique({ where: { id: keyId } }) : null;
      if (!key || key.revokedAt) throw unauthenticated('a valid super-api-key is required');
      const sites = siteIds && siteIds.length > 0 ? [...new Set(siteIds)] : [requireSite(identity)];
      return concurrentsOf(db, sites, config.presenceIntervalMs);
    },
    activeOverlayBroadcasts: async (_root, { channelId }, { identity, db }) => {
      const siteId = requireAdmin(identity, SCOPE, { write: false });
      const now = new Date();
      const rows = await db.overlayBroadcast.findMany({
        where: { ...activeWhere(siteId, now), ...(channelId ? { OR: [{ channelId }, { channelId: null }] } : {}) },
        orderBy: { startedAt: 'asc' },
      });
      return rows.map((row) => withRemaining(row.event as unknown as OverlayBroadcastEvent, now.getTime()));
    },
    overlayTimeline: (_root, { liveBroadcastId, videoId }, ctx) => overlayTimeline(ctx, requireSite(ctx.identity), { liveBroadcastId, videoId }),
  },
  Mutation: {
    createOverlay: async (_root, { input }, { identity, db }) => {
      const siteId = requireAdmin(identity, SCOPE, { write: true });
      checkSiteId(input.siteId, siteId);
      const now = new Date();
      return db.overlay.create({
        data: {
          id: newId(),
          siteId,
          name: checkName(input.name),
          description: input.description ?? '',
          type: input.type,
          contents: checkContents(input.contents, input.type) as Prisma.InputJsonValue,
          cta: (checkCta(input.cta) ?? undefined) as Prisma.InputJsonValue | undefined,
          duration: checkDuration(input.duration),
          createdAt: now,
          updatedAt: now,
        },
      });
    },
    updateOverlay: async (_root, { id, input }, { identity, db }) => {
      const siteId = requireAdmin(identity, SCOPE, { write: true });
      checkSiteId(input.siteId, siteId);
      const current = await findOverlay(db, siteId, id);
      const type = input.type ?? current.type;
      const data: Prisma.OverlayUpdateInput = { updatedAt: new Date() };
      if (input.name !== undefined && input.name !== null) data.name = checkName(input.name);
      if (input.description !== undefined && input.description !== null) data.description = input.description;
      if (input.type !== undefined && input.type !== null) data.type = input.type;
      if (input.duration !== undefined && input.duration !== null) data.duration = checkDuration(input.duration);
      if (input.cta !== undefined) data.cta = (checkCta(input.cta) ?? undefined) as Prisma.InputJsonValue | undefined;
      if ((input.contents !== undefined && input.contents !== null) || type !== current.type) {
        data.contents = checkContents(input.contents ?? current.contents, type) as Prisma.InputJsonValue;
      }
      return db.overlay.update({ where: { id: current.id }, data });
    },
    broadcastOverlay: (_root, { id, input }, ctx) => broadcast(ctx, id, null, input),
    broadcastOverlayToTag: (_root, { id, tagId, input }, ctx) => broadcast(ctx, id, checkOptionalId(tagId, 'tagId'), input),
    showQaHighlight: (_root, { panelId, channelIds, question }, ctx) =>
      showQaHighlight(ctx, requireAdmin(ctx.identity, SCOPE, { write: true }), panelId, channelIds, question ?? null),
    clearOverlayBroadcasts: async (_root, { channelId }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const target = checkOptionalId(channelId, 'targetId');
      const now = new Date();
      const where = { ...activeWhere(siteId, now), ...(target ? { channelId: target } : {}) };
      // A broadcast cleared twice at once is only told twice; CLEAR is idempotent for viewers.
      const rows = await ctx.db.overlayBroadcast.findMany({ where });
      await ctx.db.overlayBroadcast.updateMany({ where: { id: { in: rows.map((row) => row.id) } }, data: { clearedAt: now } });
      await Promise.all(rows.map((row) => publishBroadcastEvent(ctx, siteId, clearEventOf(row.event as unknown as OverlayBroadcastEvent))));
      const scope = target ? `channel ${target}` : 'the site';
      return { success: true, cleared: rows.length, message: `cleared ${rows.length} broadcast(s) of ${scope}` };
    },
  },
  Overlay: {
    __resolveReference: async (reference, { identity, db }) => {
      if (!identity.siteId) return null;
      return db.overlay.findFirst({ where: { id: reference.id, siteId: identity.siteId } });
    },
    contents: (overlay) => overlay.contents,
    cta: (overlay) => (overlay.cta as { type: string; data: unknown } | null) ?? null,
    created: (overlay) => overlay.createdAt.getTime(),
    modified: (overlay) => overlay.updatedAt.getTime(),
  },
  OverlayBroadcastEvent: {
    tags: (event) => audienceTags(event),
  },
  Site: {
    overlays: (site, _args, { identity, db }) => {
      // Only the caller's own site: a representation naming another site yields nothing.
      if (site.id !== identity.siteId) return [];
      requireAdmin(identity, SCOPE, { write: false });
      return db.overlay.findMany({ where: { siteId: site.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    },
  },
};
