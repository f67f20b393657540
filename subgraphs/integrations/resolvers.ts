/** Resolvers of the integrations subgraph, one file per area, merged type by type. */
import { mergeResolvers } from '../../shared/subgraph';
import type { Resolvers } from './resolvers.generated';
import { dataProviderResolvers } from './resolvers/dataProviders';
import { streamResolvers } from './resolvers/streams';
import type { IntegrationsRuntime } from './runtime';

export function createResolvers(runtime: IntegrationsRuntime): Resolvers {
  return mergeResolvers<Resolvers>(dataProviderResolvers(runtime), streamResolvers);
}
