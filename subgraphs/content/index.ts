/** The content subgraph as its own process, on SUBGRAPH_PORT_BASE + its number. */
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createContentSubgraph } from './server';

runService('content', (deps) => listenSubgraph('content', createContentSubgraph(deps.logger), deps, subgraphPort(deps.config, 'content')));
