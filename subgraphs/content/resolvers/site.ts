/** Resolvers of the site (its settings, theme and device limit) and of videos. */
import { requireAdmin, requireReader } from '../../../shared/auth/access';
import type { Prisma } from '../../../shared/db/generated/sqlite';
import { badInput } from '../../../shared/errors';
import { stringList } from '../../../shared/json';
import { checkText, found, isRecord } from '../checks';
import type { Resolvers } from '../resolvers.generated';
import { checkTheme, siteTheme } from '../theme';
import { recordVod } from '../videos';
import { Scopes, timestamps } from '../scopes';
import type { AccountAccessCache } from '../checkInputs';
import { viewsForCaller } from '../videoViews';
import { readerOf, type ViewerReads } from '../viewerReads';

/**
 * `settings.checkout_url`: the site's own checkout, where a viewer's "Buy" goes (money stays with the site's
 * processor). An https URL, or absent; it may carry a query of its own (the page adds `sku`).
 */
function checkCheckoutUrl(value: unknown): void {
  if (value === undefined || value === null) return;
  let url: URL | null = null;
  try {
    url = typeof value === 'string' ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (typeof value !== 'string' || !url || url.protocol !== 'https:' || value.length > 2000)
    throw badInput('settings.checkout_url must be an https URL', 'settings.checkout_url');
}

/** `reads` and `access`: what a video's view weighs for a caller who is not its admin (videoViews.ts). */
export const siteResolvers = (reads: ViewerReads, access: AccountAccessCache): Resolvers => ({
  Query: {
    site: (_root, _args, { identity, db }) => db.site.findUnique({ where: { id: requireReader(identity) } }),
    video: async (_root, { id }, ctx) => {
      const siteId = requireReader(ctx.identity);
      const video = found(await ctx.db.video.findFirst({ where: { id, siteId } }), `video ${id}`);
      return (await viewsForCaller({ ...readerOf(ctx, reads), access }, siteId, [video]))[0];
    },
  },
  Mutation: {
    updateSite: (_root, { input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.site, { write: true });
      const data: Prisma.SiteUpdateInput = { updatedAt: new Date() };
      if (input.name !== undefined && input.name !== null) data.name = checkText(input.name, 'name', 200);
      if (input.deviceLimit !== undefined && input.deviceLimit !== null) {
        if (input.deviceLimit < 0 || input.deviceLimit > 1000) throw badInput('deviceLimit must be from 0 (no limit) to 1000', 'deviceLimit');
        data.deviceLimit = input.deviceLimit;
      }
      // null removes the settings (a read answers null for a site without any).
      if (input.settings === null) data.settings = {};
      else if (input.settings !== undefined) {
        if (!isRecord(input.settings)) throw badInput('settings must be an object', 'settings');
        checkTheme(input.settings.theme);
        checkCheckoutUrl(input.settings.checkout_url);
        data.settings = input.settings as Prisma.InputJsonValue;
      }
      return db.site.update({ where: { id: siteId }, data });
    },
    recordVod: (_root, { input }, { identity, db }) => recordVod(db, requireAdmin(identity, Scopes.videos, { write: true }), input),
  },
  Site: {
    __resolveReference: (reference, { identity, db }) => (reference.id === identity.siteId ? db.site.findUnique({ where: { id: reference.id } }) : null),
    theme: (site) => siteTheme(site.settings),
    checkoutUrl: (site) => (isRecord(site.settings) && typeof site.settings.checkout_url === 'string' ? site.settings.checkout_url : null),
    ...timestamps,
  },
  Video: {
    __resolveReference: async (reference, ctx) => {
      const siteId = ctx.identity.siteId;
      const video = siteId ? await ctx.db.video.findFirst({ where: { id: reference.id, siteId } }) : null;
      return video && siteId ? (await viewsForCaller({ ...readerOf(ctx, reads), access }, siteId, [video]))[0] : null;
    },
    requiredSkus: (video) => stringList(video.requiredSkus),
    requiredEntitlements: (video) => stringList(video.requiredSkus).map((sku) => ({ sku })),
    tags: (video) => stringList(video.tags),
    ...timestamps,
  },
});
