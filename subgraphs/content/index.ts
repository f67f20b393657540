/** The content subgraph as its own process, on SUBGRAPH_PORT_BASE + its number (its runtime delivers webhooks and runs the quest outbox). */
// First: compiled code kept for the next start, and graphql-js in production mode (see the modules).
import '../../shared/compileCache';
import '../../shared/graphqlProduction';
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createContentSubgraph } from './server';

runService('content', async (deps) => {
  const service = await listenSubgraph('content', createContentSubgraph(deps.logger, deps), deps, subgraphPort(deps.config, 'content'));
  return { close: () => service.close() };
});
