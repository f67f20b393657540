/** The community subgraph as its own process, on SUBGRAPH_PORT_BASE + its number. */
// First: graphql-js loads in production mode (see the module).
import '../../shared/graphqlProduction';
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createCommunitySubgraph } from './server';

runService('community', (deps) => listenSubgraph('community', createCommunitySubgraph(deps.logger, deps), deps, subgraphPort(deps.config, 'community')));
