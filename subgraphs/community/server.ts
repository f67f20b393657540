/** The community subgraph, built and not listening: accounts and everything people hold. */
import { subgraphTypeDefs } from '..';
import { buildSubgraphServer, type ServiceDeps } from '../../shared/subgraph';
import type { Logger } from '../../shared/logger';
import { announceAccessChanges } from './accessChanges';
import { createResolvers } from './resolvers';
import { createRuntime } from './runtime';

export const typeDefs = subgraphTypeDefs('community');

/** The community subgraph server (not listening) with its runtime. */
export function createCommunitySubgraph(logger: Logger, deps: Pick<ServiceDeps, 'config' | 'database' | 'bus' | 'now'>) {
  const runtime = createRuntime(logger, deps);
  return buildSubgraphServer(typeDefs, createResolvers(runtime), logger, [runtime.plugin, announceAccessChanges()]);
}
