/** The community subgraph as its own process, on SUBGRAPH_PORT_BASE + its number. */
// First: compiled code kept for the next start, and graphql-js in production mode (see the modules).
import '../../shared/compileCache';
import '../../shared/graphqlProduction';
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createCommunitySubgraph } from './server';

runService('community', (deps) => listenSubgraph('community', createCommunitySubgraph(deps.logger, deps), deps, subgraphPort(deps.config, 'community')));
