/** The integrations subgraph as its own process, on SUBGRAPH_PORT_BASE + its number. */
// First: graphql-js loads in production mode (see the module).
import '../../shared/graphqlProduction';
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createIntegrationsSubgraph } from './server';

runService('integrations', (deps) =>
  listenSubgraph('integrations', createIntegrationsSubgraph(deps.logger, deps), deps, subgraphPort(deps.config, 'integrations')),
);
