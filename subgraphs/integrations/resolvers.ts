/** Resolvers of the integrations subgraph: data providers. */
import { requireAdmin } from '../../shared/auth/access';
import { stringList } from '../../shared/json';
import type { Resolvers } from './resolvers.generated';
import { schemaFacts } from './facts';

export const resolvers: Resolvers = {
  Query: {
    dataProviders: (_root, _args, { identity, db }) => {
      const siteId = requireAdmin(identity, 'DataProviders', { write: false });
      return db.dataProvider.findMany({ where: { siteId, removedAt: null }, orderBy: { createdAt: 'asc' } });
    },
  },
  DataProvider: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.dataProvider.findFirst({ where: { id: reference.id, siteId: identity.siteId, removedAt: null } }) : null,
    facts: (provider) => schemaFacts(provider.schema),
    tags: (provider) => stringList(provider.tags),
    created: (provider) => provider.createdAt.getTime(),
    modified: (provider) => provider.updatedAt.getTime(),
  },
};
