/** Resolvers of the content subgraph: the site and its pages. */
import { requireSite } from '../../shared/auth/access';
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
    pages: (_root, { type }, { identity, db }) =>
      db.page.findMany({ where: { siteId: requireSite(identity), ...(type ? { type } : {}) }, orderBy: { createdAt: 'asc' } }),
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
