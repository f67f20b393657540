/**
 * The gateway's public port in one call, for `npm start` (stack.ts, with the subgraphs in the same process) and
 * for the gateway as its own process (gateway/index.ts): GraphQL, the REST bridge, live viewers, the
 * operational endpoints, and watch time written with the content subgraph's own code.
 */
import type { AddressInfo } from 'node:net';
import { createExpressServer } from '../shared/httpServer';
import { followedSiteCache } from '../shared/viewerReads';
import { createAuthenticator, type Authenticator } from '../shared/auth/authenticate';
import type { Identity } from '../shared/auth/identity';
import { waitForBus } from '../shared/bus';
import type { SubgraphName } from '../shared/config';
import { measuredSubgraphOperation, registerOperationNames } from '../shared/metrics';
import type { QuickAnswerRegistry } from '../shared/quickAnswers';
import type { RunningService, ServiceDeps } from '../shared/subgraph';
import type { Executor } from '../rest-bridge/executor';
import { createRestBridge, routes } from '../rest-bridge/server';
import { questDepsOf } from '../subgraphs/content/quests/deps';
import { recordWatchTime } from '../subgraphs/content/quests/watchTime';
import { createPublicApp } from './app';
import { createDoor } from './door';
import { Drain, DRAIN_CLOSE_CODE } from './drain';
import { createGateway, type Gateway } from './server';
import { trustedDocumentStore } from './trustedDocuments';

/**
 * The REST bridge's way to the gateway inside one process: no HTTP hop, the same authentication; an
 * operation one subgraph answers whole goes straight to that subgraph when it runs here too.
 */
export function inProcessExecutor(
  authenticator: Authenticator,
  gateway: Gateway,
  localSubgraph?: (name: SubgraphName) => RunningService | undefined,
  quickAnswers?: QuickAnswerRegistry,
): Executor<Identity> {
  return {
    // Without quick answers here there is none to offer, and no door to open (rest-bridge/quickRoutes.ts).
    quick: quickAnswers ? async (name, variables, identity) => (quickAnswers[name] ? quickAnswers[name](variables, identity) : null) : undefined,
    quickAnswered: (name) => {
      if (quickAnswers) quickAnswers.answered[name] += 1;
    },
    authenticate: (headers) => authenticator.authenticate(headers),
    execute: (request, identity) => gateway.execute(request, identity),
    executeOn: (name, request, identity) => {
      const subgraph = localSubgraph?.(name);
      return subgraph ? measuredSubgraphOperation(name, request.operationName, () => subgraph.execute(request, identity)) : null;
    },
  };
}

/**
 * The gateway with the REST bridge and live viewers on the public port, for subgraphs at `subgraphUrl`.
 */
export async function serveGateway(
  deps: ServiceDeps,
  subgraphUrl: (name: SubgraphName) => string,
  localSubgraph?: (name: SubgraphName) => RunningService | undefined,
) {
  const { config, database, bus, logger } = deps;
  const authenticator = createAuthenticator(database.prisma, config.jwtSecret, config.internalSecret, bus, config.authCacheTtlMs);
  // Watch time is counted where the viewers' sockets are, and written with content's own code (its tables),
  // reading a site's quests through kept reads of the gateway's own.
  const questReads = followedSiteCache<unknown>(bus);
  const quests = { ...questDepsOf(deps, questReads.cache), provider: database.provider };
  const gateway = await createGateway({
    config,
    logger,
    authenticator,
    bus,
    subgraphUrl,
    localSubgraph,
    trustedDocuments: trustedDocumentStore(database.prisma, bus),
    quickAnswers: localSubgraph ? deps.quickAnswers : undefined,
    recordWatchTime: config.watchTimeEnabled ? (batch) => recordWatchTime(quests, batch) : undefined,
  });
  // In process the executor verifies every credential, so shared answers may be kept here (see `cache` in rest-bridge/table.ts).
  // Quick answers are the local subgraphs' own: only where the operation would go to them straight.
  const executor = inProcessExecutor(authenticator, gateway, localSubgraph, localSubgraph ? deps.quickAnswers : undefined);
  const rest = createRestBridge({ executor, logger, bodyLimitBytes: config.bodyLimitBytes, bus });
  registerOperationNames(routes.map((route) => route.document));
  const drain = new Drain();
  const app = createPublicApp({
    gateway,
    rest,
    database,
    bus,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    metricsToken: config.metricsToken,
    internalSecret: config.internalSecret,
    drain,
    shutdownGraceMs: config.shutdownGraceMs,
    graphiql: config.graphiql,
  });

  if (!(await waitForBus(bus))) logger.warn('event bus not reachable yet; live delivery starts when it is');
  const door = createDoor(rest.quickDoor, logger, drain, () => {
    if (deps.quickAnswers) deps.quickAnswers.answeredAtDoor += 1;
  });
  const httpServer = createExpressServer(app, door);
  httpServer.keepAliveTimeout = 65_000;
  gateway.attach(httpServer);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, resolve);
  });
  const port = (httpServer.address() as AddressInfo).port;
  return {
    gateway,
    authenticator,
    httpServer,
    port,
    drain,
    /** Starts the drain: /ready 503, answers with Connection: close (a separate gateway process's SIGTERM). */
    beginDrain: () => drain.start(),
    /** Refuses new work, closes viewers with 1001 (1012 after a drain) and lets in-flight requests finish. */
    async close() {
      const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Keep-alive connections go as soon as their in-flight request is answered; stragglers after 10 s.
      const idle = setInterval(() => httpServer.closeIdleConnections(), 50);
      const force = setTimeout(() => httpServer.closeAllConnections(), 10_000);
      await gateway.live.close(drain.draining ? DRAIN_CLOSE_CODE : 1001);
      await stopped;
      clearInterval(idle);
      clearTimeout(force);
      await gateway.stop();
      questReads.stop();
    },
  };
}
