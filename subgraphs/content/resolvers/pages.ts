/** Resolvers of pages: reads (C), writes (D or a Pages role), configuration and the content check. */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import { stringList } from '../../../shared/json';
import { checkContent } from '../contentCheck';
import { findConfiguredPage, pageConfiguration } from '../configuration';
import { clonePage, createPage, deletePage, findPage, listPages, pagePart, readGate, updatePage } from '../pages';
import { createPageFromTemplate } from '../templateUse';
import { found } from '../checks';
import { announceChannelChange, deleteChannelStream } from '../show/channelStream';
import { showOf, streamIdOf } from '../show/channelShow';
import { liveCheckOf } from '../../../shared/liveSwitches';
import { readerOf, viewerRead, type ViewerReads } from '../viewerReads';
import type { Resolvers } from '../resolvers.generated';
import type { WebhookWaker } from '../webhookDispatcher';
import type { AccountAccessCache } from '../checkInputs';
import { Scopes, timestamps } from '../scopes';

/**
 * `webhooks`: woken after a write (a change of pages may have written deliveries); `reads`: the runtime's kept
 * reads; `access`: the accounts' entitlements and devices the content check keeps.
 */
export const pageResolvers = (webhooks: WebhookWaker, reads: ViewerReads, access: AccountAccessCache): Resolvers => ({
  Query: {
    // Every read of "Pages and channels" is the seed's C: the site ID alone reads it (legacy clients, the embedded SDK).
    page: (_root, { id }, { identity, db }) => findPage(db, requireSite(identity), id),
    pageBySlug: async (_root, { slug }, { identity, db }) =>
      found(await db.page.findUnique({ where: { siteId_slug: { siteId: requireSite(identity), slug } } }), `page ${slug}`),
    pages: (_root, { type, types, ...query }, { identity, db }) => listPages(db, requireSite(identity), { ...query, types: types ?? (type ? [type] : null) }),
    pageConfiguration: (_root, { pageId, metadata }, ctx) => {
      const siteId = requireSite(ctx.identity);
      // The same for every viewer of the site: kept until the site's content changes.
      return viewerRead({ reads }, siteId, `configuration:${pageId ?? ''}:${metadata ?? ''}`, async () =>
        pageConfiguration(ctx.db, ctx.config.internalSecret, await findConfiguredPage(ctx.db, siteId, pageId, metadata)),
      );
    },
    contentCheck: (_root, args, ctx) => checkContent({ ...readerOf(ctx, reads), access }, requireSite(ctx.identity), args),
  },
  Mutation: {
    createPage: async (_root, { input: { templateId, ...input } }, ctx) => {
      const siteId = requireAdmin(ctx.identity, Scopes.pages, { write: true });
      const page = templateId ? await createPageFromTemplate(ctx, siteId, input, templateId) : await createPage(ctx.db, siteId, input);
      webhooks.kick();
      return page;
    },
    updatePage: async (_root, { id, input }, ctx) => {
      const page = await updatePage(ctx.db, requireAdmin(ctx.identity, Scopes.pages, { write: true }), id, input);
      webhooks.kick();
      await announceChannelChange(ctx, page);
      return page;
    },
    deletePage: async (_root, { id }, ctx) => {
      const page = await deletePage(ctx.db, requireAdmin(ctx.identity, Scopes.pages, { write: true }), id);
      webhooks.kick();
      await deleteChannelStream(ctx, page);
      await announceChannelChange(ctx, page);
      return { id: page.id, success: true };
    },
    clonePage: async (_root, { id, localizedTitle, localizedSlug }, ctx) => {
      const page = await clonePage(ctx.db, requireAdmin(ctx.identity, Scopes.pages, { write: true }), id, localizedTitle, localizedSlug);
      webhooks.kick();
      return page;
    },
  },
  ChannelConcurrents: {
    // Only the gateway makes these references, from insights it already authorized (super API key).
    __resolveReference: async (reference, { db }) => {
      const page = await db.page.findFirst({ where: { id: reference.channelId, siteId: reference.siteId }, select: { slug: true } });
      return { siteId: reference.siteId, channelId: reference.channelId, slug: page?.slug ?? null };
    },
  },
  Page: {
    __resolveReference: (reference, { identity, db }) => (identity.siteId ? db.page.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null),
    type: (page) => page.type as 'channel' | 'landing',
    collection: () => 'pages',
    activeRenderers: (page) => pagePart(page, 'activeRenderers'),
    renderers: (page) => pagePart(page, 'renderers'),
    seo: (page) => pagePart(page, 'seo'),
    style: (page) => pagePart(page, 'style'),
    data: (page) => pagePart(page, 'data'),
    metadata: (page) => pagePart(page, 'metadata'),
    tags: (page) => stringList(page.tags),
    gateSkus: (page) => {
      const gate = readGate(page.document);
      return gate.kind === 'none' ? [] : gate.requiredSkus;
    },
    liveCheck: async (page, _args, ctx) => {
      requireAdmin(ctx.identity, Scopes.pages, { write: false, pageId: page.id });
      const streamId = page.type === 'channel' ? streamIdOf(page.document) : null;
      const show = streamId ? await showOf(readerOf(ctx, reads), page) : null;
      return streamId && show ? { streamId, ...liveCheckOf(streamId, show.state, page.document) } : null;
    },
    ...timestamps,
    lastModified: timestamps.modified,
  },
});
