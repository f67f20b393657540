/** The overlays subgraph, built and not listening: overlays, broadcasts, the viewers' Subscription type. */
import { subgraphTypeDefs } from '..';
import { buildSubgraphServer } from '../../shared/subgraph';
import type { Logger } from '../../shared/logger';
import { resolvers } from './resolvers';

export const typeDefs = subgraphTypeDefs('overlays');
export { resolvers };

export function createOverlaysSubgraph(logger: Logger) {
  return buildSubgraphServer(typeDefs, resolvers, logger);
}
