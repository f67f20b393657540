/** Resolvers of data providers (registration, the provider's signed calls, availability) and their events. */
import { requireAdmin, requireReader, requireSite } from '../../../shared/auth/access';
import { notFound } from '../../../shared/errors';
import { stringList } from '../../../shared/json';
import type { Resolvers } from '../resolvers.generated';
import { ingestDataEvent, listDataEvents } from '../dataEvents';
import { registerDataProvider, removeDataProvider, updateDataProvider } from '../dataProviders';
import { schemaFacts } from '../facts';
import type { IntegrationsRuntime } from '../runtime';

const SCOPE = 'DataProviders';
const activeOf = (siteId: string) => ({ siteId, removedAt: null });

export function dataProviderResolvers(runtime: IntegrationsRuntime): Resolvers {
  return {
    Query: {
      dataProviders: (_root, _args, { identity, db }) => {
        const siteId = requireAdmin(identity, SCOPE, { write: false });
        return db.dataProvider.findMany({ where: activeOf(siteId), orderBy: { createdAt: 'asc' } });
      },
      // Seed 000, Authentication 4: the availability listing uses only the site ID.
      availableDataProviders: (_root, _args, { identity, db }) =>
        db.dataProvider.findMany({ where: activeOf(requireSite(identity)), orderBy: { createdAt: 'asc' } }),
      dataProvider: async (_root, { id }, { identity, db }) => {
        const provider = await db.dataProvider.findFirst({ where: { id, ...activeOf(requireReader(identity)) } });
        if (!provider) throw notFound(`data provider ${id}`);
        return provider;
      },
      dataEvents: (_root, { dataProviderId, limit, offset }, { identity, db }) =>
        listDataEvents(db, requireAdmin(identity, SCOPE, { write: false }), dataProviderId, limit ?? 50, offset ?? 0),
    },
    Mutation: {
      registerDataProvider: (_root, { input }, ctx) => registerDataProvider(ctx, requireAdmin(ctx.identity, SCOPE, { write: true }), input),
      updateDataProvider: (_root, { id, signature, rawBody }, ctx) => updateDataProvider(ctx, runtime, id, signature, rawBody),
      removeDataProvider: (_root, { id, signature }, ctx) => removeDataProvider(ctx, runtime, id, signature),
      ingestDataEvent: (_root, { dataProviderId, signature, rawBody }, ctx) => ingestDataEvent(ctx, runtime, { dataProviderId, signature, rawBody }),
    },
    DataProvider: {
      __resolveReference: (reference, { identity, db }) =>
        identity.siteId ? db.dataProvider.findFirst({ where: { id: reference.id, ...activeOf(identity.siteId) } }) : null,
      facts: (provider) => schemaFacts(provider.schema),
      tags: (provider) => stringList(provider.tags),
      schema: (provider, _args, { identity }) => {
        requireAdmin(identity, SCOPE, { write: false });
        return provider.schema;
      },
      ownerName: (provider, _args, { identity }) => {
        requireAdmin(identity, SCOPE, { write: false });
        return provider.ownerName;
      },
      ownerEmail: (provider, _args, { identity }) => {
        requireAdmin(identity, SCOPE, { write: false });
        return provider.ownerEmail;
      },
      created: (provider) => provider.createdAt.getTime(),
      modified: (provider) => provider.updatedAt.getTime(),
    },
    DataEvent: {
      received: (event) => event.receivedAt.getTime(),
      expires: (event) => event.expiresAt?.getTime() ?? null,
    },
  };
}
