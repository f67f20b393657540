/**
 * The gateway as its own process on PORT: GraphQL, live viewers, the REST bridge and the operational
 * endpoints, with the subgraphs running elsewhere at SUBGRAPH_HOST:SUBGRAPH_PORT_BASE+1..4. Several
 * gateways need REDIS_URL so broadcasts reach every viewer.
 */
// First: compiled code kept for the next start, and graphql-js in production mode (see the modules).
import '../shared/compileCache';
import '../shared/graphqlProduction';
import { runService } from '../shared/service';
import { subgraphUrl } from '../shared/config';
import { serveGateway } from './serve';

runService('gateway', (deps) => serveGateway(deps, (name) => subgraphUrl(deps.config, name)));
