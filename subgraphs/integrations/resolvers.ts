/** Resolvers of the integrations subgraph, one file per area, merged type by type. */
import type { Resolvers } from './resolvers.generated';
import { dataProviderResolvers } from './resolvers/dataProviders';
import { streamResolvers } from './resolvers/streams';
import type { IntegrationsRuntime } from './runtime';

export function createResolvers(runtime: IntegrationsRuntime): Resolvers {
  const dataProviders = dataProviderResolvers(runtime);
  return {
    ...dataProviders,
    ...streamResolvers,
    Query: { ...dataProviders.Query, ...streamResolvers.Query },
    Mutation: { ...dataProviders.Mutation, ...streamResolvers.Mutation },
  };
}
