/** Resolvers of the content subgraph: the site and its pages. */
import { requireAdmin, requireSite } from '../../shared/auth/access';
import { recordVod } from './videos';
import { notFound } from '../../shared/errors';
import { stringList } from '../../shared/json';
import type { Resolvers } from './resolvers.generated';

export const resolvers: Resolvers = {
  Query: {
    site: (_root, _args, { identity, db }) => db.site.findUnique({ where: { id: requireSite(identity) } }),
    page: async (_root, { id }, { identity, db }) => {
      const page = await db.page.findFirst({ where: { id, siteId: requireSite(identity) } });
      if (!page) throw notFound(`page ${id}`);
      return page;
    },
    video: async (_root, { id }, { identity, db }) => {
      const video = await db.video.findFirst({ where: { id, siteId: requireSite(identity) } });
      if (!video) throw notFound(`video ${id}`);
      return video;
    },
    pages: (_root, { type }, { identity, db }) =>
      db.page.findMany({ where: { siteId: requireSite(identity), ...(type ? { type } : {}) }, orderBy: { createdAt: 'asc' } }),
  },
  Mutation: {
    recordVod: (_root, { input }, { identity, db }) => recordVod(db, requireAdmin(identity, 'Videos', { write: true }), input),
  },
  Video: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.video.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
    requiredSkus: (video) => stringList(video.requiredSkus),
    tags: (video) => stringList(video.tags),
    created: (video) => video.createdAt.getTime(),
    modified: (video) => video.updatedAt.getTime(),
  },
  Site: {
    __resolveReference: (reference, { identity, db }) =>
      reference.id === identity.siteId ? db.site.findUnique({ where: { id: reference.id } }) : null,
    created: (site) => site.createdAt.getTime(),
    modified: (site) => site.updatedAt.getTime(),
  },
  Page: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.page.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
    type: (page) => page.type as 'channel' | 'landing',
    tags: (page) => stringList(page.tags),
    created: (page) => page.createdAt.getTime(),
    modified: (page) => page.updatedAt.getTime(),
  },
};
