/** The community subgraph, built and not listening: accounts and everything people hold. */
import { subgraphTypeDefs } from '..';
import { buildSubgraphServer } from '../../shared/subgraph';
import type { Logger } from '../../shared/logger';
import { resolvers } from './resolvers';

export const typeDefs = subgraphTypeDefs('community');
export { resolvers };

export function createCommunitySubgraph(logger: Logger) {
  return buildSubgraphServer(typeDefs, resolvers, logger);
}
