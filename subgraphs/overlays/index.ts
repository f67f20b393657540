/** The overlays subgraph as its own process, on SUBGRAPH_PORT_BASE + its number. */
// First: compiled code kept for the next start, and graphql-js in production mode (see the modules).
import '../../shared/compileCache';
import '../../shared/graphqlProduction';
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createOverlaysSubgraph } from './server';
import { recordViewerPresence } from './presence';

runService('overlays', async (deps) => {
  const service = await listenSubgraph('overlays', createOverlaysSubgraph(deps.logger), deps, subgraphPort(deps.config, 'overlays'));
  const presence = recordViewerPresence(deps);
  return { close: async () => (await presence.close(), service.close()) };
});
