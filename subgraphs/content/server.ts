/** The content subgraph, built and not listening: sites, pages and channels, and the content around them. */
import { subgraphTypeDefs } from '..';
import type { Logger } from '../../shared/logger';
import { buildSubgraphServer, type ServiceDeps } from '../../shared/subgraph';
import { createResolvers } from './resolvers';
import { createContentRuntime } from './runtime';
import { announceContentChanges } from './viewerReads';

export const typeDefs = subgraphTypeDefs('content');

/** The content subgraph server (not listening) with its runtime. */
export function createContentSubgraph(logger: Logger, deps: ServiceDeps) {
  const runtime = createContentRuntime(logger, deps);
  return buildSubgraphServer(typeDefs, createResolvers(runtime), logger, [runtime.plugin, announceContentChanges()]);
}
