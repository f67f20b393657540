/** The content subgraph, built and not listening: sites, pages and channels. */
import { subgraphTypeDefs } from '..';
import { buildSubgraphServer } from '../../shared/subgraph';
import type { Logger } from '../../shared/logger';
import { resolvers } from './resolvers';

export const typeDefs = subgraphTypeDefs('content');
export { resolvers };

export function createContentSubgraph(logger: Logger) {
  return buildSubgraphServer(typeDefs, resolvers, logger);
}
