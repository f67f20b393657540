/** The integrations subgraph, built and not listening: partners (streaming and data providers). */
import { subgraphTypeDefs } from '..';
import { buildSubgraphServer } from '../../shared/subgraph';
import type { Logger } from '../../shared/logger';
import { resolvers } from './resolvers';

export const typeDefs = subgraphTypeDefs('integrations');
export { resolvers };

export function createIntegrationsSubgraph(logger: Logger) {
  return buildSubgraphServer(typeDefs, resolvers, logger);
}
