/** Resolvers of the community subgraph: accounts. */
import { requireAdmin, requireSite } from '../../shared/auth/access';
import type { AccountRole } from '../../shared/auth/identity';
import { notFound, unauthenticated } from '../../shared/errors';
import { stringList } from '../../shared/json';
import type { EntitlementPrice, Resolvers } from './resolvers.generated';

export const resolvers: Resolvers = {
  Query: {
    me: async (_root, _args, { identity, db }) => {
      const siteId = requireSite(identity);
      if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> is required');
      return db.account.findFirst({ where: { id: identity.account.id, siteId } });
    },
    account: async (_root, { id }, { identity, db }) => {
      const siteId = identity.account?.id === id ? requireSite(identity) : requireAdmin(identity, 'Accounts', { write: false });
      const account = await db.account.findFirst({ where: { id, siteId } });
      if (!account) throw notFound(`account ${id}`);
      return account;
    },
  },
  Account: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.account.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
    roles: (account) => (Array.isArray(account.roles) ? (account.roles as unknown as AccountRole[]) : []),
    tags: (account) => stringList(account.tags),
    lastLogin: (account) => account.lastLoginAt?.getTime() ?? null,
    subscriptions: (account, _args, { db }) =>
      db.subscription.findMany({ where: { accountId: account.id, siteId: account.siteId }, include: { entitlement: true }, orderBy: { createdAt: 'asc' } }),
    created: (account) => account.createdAt.getTime(),
    modified: (account) => account.updatedAt.getTime(),
  },
  Entitlement: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.entitlement.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
    prices: (entitlement) => (Array.isArray(entitlement.prices) ? (entitlement.prices as unknown as EntitlementPrice[]) : []),
    tags: (entitlement) => stringList(entitlement.tags),
    created: (entitlement) => entitlement.createdAt.getTime(),
    modified: (entitlement) => entitlement.updatedAt.getTime(),
  },
  AccountSubscription: {
    dateGranted: (subscription) => subscription.dateGranted.toISOString(),
    created: (subscription) => subscription.createdAt.getTime(),
    modified: (subscription) => subscription.updatedAt.getTime(),
  },
};
