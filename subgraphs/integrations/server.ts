/** The integrations subgraph, built and not listening: partners (streaming and data providers). */
import type { ApolloServerPlugin } from '@apollo/server';
import { subgraphTypeDefs } from '..';
import { buildSubgraphServer, type ServiceDeps, type SubgraphContext } from '../../shared/subgraph';
import type { Logger } from '../../shared/logger';
import { createResolvers } from './resolvers';
import { createIntegrationsRuntime } from './runtime';

export const typeDefs = subgraphTypeDefs('integrations');

export function createIntegrationsSubgraph(logger: Logger, deps: ServiceDeps) {
  const runtime = createIntegrationsRuntime(deps);
  // The runtime (caches, bus subscriptions, rate limiter, sweeper) ends with the server.
  const stopRuntime: ApolloServerPlugin<SubgraphContext> = {
    async serverWillStart() {
      return { serverWillStop: () => runtime.stop() };
    },
  };
  return buildSubgraphServer(typeDefs, createResolvers(runtime), logger, [stopRuntime]);
}
