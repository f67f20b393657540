/** Resolvers of entitlements, the subscriptions accounts hold, and bundles. */
import { requireAdmin, requireReader, requireSite } from '../../../shared/auth/access';
import { notFound } from '../../../shared/errors';
import { stringList } from '../../../shared/json';
import { activeUntil, createBundle, createEntitlement, findEntitlement, pricesOf, statusOf, updateEntitlement } from '../entitlements';
import { Scope } from '../scopes';
import type { CommunityRuntime } from '../runtime';
import type { Resolvers } from '../resolvers.generated';

/** Resolvers of entitlements, account subscriptions (their status read by the runtime's clock) and bundles. */
export function entitlementResolvers(runtime: CommunityRuntime): Resolvers {
  return {
    Query: {
      // The catalog (SKUs and prices) is what viewers buy from: the site ID is enough to read it.
      entitlements: (_root, _args, { identity, db }) =>
        db.entitlement.findMany({ where: { siteId: requireReader(identity) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
      entitlement: (_root, { id }, { identity, db }) => findEntitlement(db, requireReader(identity), id),
      bundles: (_root, _args, { identity, db }) =>
        db.bundle.findMany({ where: { siteId: requireReader(identity) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
      bundle: async (_root, { id }, { identity, db }) => {
        const bundle = await db.bundle.findFirst({ where: { id, siteId: requireSite(identity) } });
        if (!bundle) throw notFound(`bundle ${id}`);
        return bundle;
      },
    },
    Mutation: {
      createEntitlement: (_root, { input }, { identity, db }) => createEntitlement(db, requireAdmin(identity, Scope.entitlements, { write: true }), input),
      updateEntitlement: (_root, { id, input }, { identity, db }) =>
        updateEntitlement(db, requireAdmin(identity, Scope.entitlements, { write: true }), id, input),
      createBundle: (_root, { input }, { identity, db }) => createBundle(db, requireAdmin(identity, Scope.entitlements, { write: true }), input),
    },
    Entitlement: {
      __resolveReference: (reference, { identity, db }) =>
        identity.siteId ? db.entitlement.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
      prices: (entitlement) => pricesOf(entitlement),
      tags: (entitlement) => stringList(entitlement.tags),
      created: (entitlement) => entitlement.createdAt.getTime(),
      modified: (entitlement) => entitlement.updatedAt.getTime(),
    },
    AccountSubscription: {
      status: (subscription) => statusOf(subscription, runtime.now()),
      activeUntil: (subscription) => activeUntil(subscription, runtime.now()),
      dateGranted: (subscription) => subscription.dateGranted.toISOString(),
      created: (subscription) => subscription.createdAt.getTime(),
      modified: (subscription) => subscription.updatedAt.getTime(),
    },
    Bundle: {
      items: (bundle) => (Array.isArray(bundle.items) ? (bundle.items as { id: string; type: string }[]) : []),
      tags: (bundle) => stringList(bundle.tags),
      created: (bundle) => bundle.createdAt.getTime(),
      modified: (bundle) => bundle.updatedAt.getTime(),
    },
  };
}
