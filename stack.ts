/**
 * The whole system in one process: the four subgraphs on internal ports, the gateway with the REST
 * bridge and live viewers on the public port. `npm start` and the tests both start it from here.
 */
import type { ApolloServer } from '@apollo/server';
import type { Server } from 'node:http';
import { createExpressServer } from './shared/httpServer';
import { followedSiteCache } from './shared/viewerReads';
import type { AddressInfo } from 'node:net';
import { createAuthenticator, type Authenticator } from './shared/auth/authenticate';
import type { Identity } from './shared/auth/identity';
import { createEventBus, waitForBus, type EventBus } from './shared/bus';
import { subgraphPort, type Config, type SubgraphName } from './shared/config';
import { openDatabase, type Database } from './shared/db/client';
import { createLogger, type Logger } from './shared/logger';
import { configureMetrics, measuredSubgraphOperation, registerOperationNames } from './shared/metrics';
import { flushTracing, startTracing } from './shared/tracing';
import { lateBoundSupergraph } from './shared/supergraph';
import { quickAnswerRegistry, type QuickAnswerRegistry } from './shared/quickAnswers';
import { listenSubgraph, type RunningService, type ServiceDeps, type SubgraphContext } from './shared/subgraph';
import { createPublicApp } from './gateway/app';
import { Drain, DRAIN_CLOSE_CODE } from './gateway/drain';
import { createGateway, type Gateway } from './gateway/server';
import { trustedDocumentStore } from './gateway/trustedDocuments';
import type { Executor } from './rest-bridge/router';
import { createRestBridge, routes } from './rest-bridge/server';
import { createCommunitySubgraph } from './subgraphs/community/server';
import { createContentSubgraph } from './subgraphs/content/server';
import { createIntegrationsSubgraph } from './subgraphs/integrations/server';
import { createOverlaysSubgraph } from './subgraphs/overlays/server';
import { recordViewerPresence } from './subgraphs/overlays/presence';
import { questDepsOf } from './subgraphs/content/quests/deps';
import { recordWatchTime } from './subgraphs/content/quests/watchTime';

export interface Stack {
  url: string;
  port: number;
  config: Config;
  database: Database;
  bus: EventBus;
  gateway: Gateway;
  authenticator: Authenticator;
  subgraphs: Record<SubgraphName, RunningService>;
  /** What the services were started with (to start one of them again). */
  deps: ServiceDeps;
  httpServer: Server;
  /** Graceful stop: refuse new work, close viewers with 1001, let in-flight requests finish. */
  close(): Promise<void>;
  /**
   * The drain of SIGTERM (gateway/drain.ts): /ready 503 at once, answers go on for `config.shutdownGraceMs`
   * (with `Connection: close`), then the port closes, in-flight requests finish and viewers get 1012.
   */
  drain(): Promise<void>;
}

/** How each subgraph is built, by name, from its logger and the deployment's dependencies (also used to restart one). */
export const SUBGRAPH_FACTORIES: Record<SubgraphName, (logger: Logger, deps: ServiceDeps) => ApolloServer<SubgraphContext>> = {
  content: createContentSubgraph,
  community: createCommunitySubgraph,
  overlays: createOverlaysSubgraph,
  integrations: createIntegrationsSubgraph,
};

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
    quick: async (name, variables, identity) => (quickAnswers?.[name] ? quickAnswers[name](variables, identity) : null),
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

export interface StackOptions {
  logger?: Logger;
  /** An event bus shared with other stacks in this process (tests of several instances); not closed by the stack. */
  bus?: EventBus;
  /** The gateway calls the subgraphs over HTTP, as it does when they run as their own processes (tests). */
  subgraphsOverHttp?: boolean;
  /** The clock of time-based rules (ServiceDeps.now); tests move it instead of sleeping. */
  now?: () => number;
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
  const authenticator = createAuthenticator(database.prisma, config.jwtSecret, config.internalSecret, bus);
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
  const httpServer = createExpressServer(app);
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

export async function startStack(config: Config, options: StackOptions = {}): Promise<Stack> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // Before the database opens: with tracing on, its queries get spans.
  startTracing(config.otlpEndpoint);
  configureMetrics(config.metricsEnabled);
  const database = await openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
  const bus = options.bus ?? createEventBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger, maxLength: config.busStreamMaxLength });
  const supergraph = lateBoundSupergraph();
  const deps: ServiceDeps = { config, database, bus, logger, supergraph, now: options.now, quickAnswers: quickAnswerRegistry() };

  const subgraphs = {} as Record<SubgraphName, RunningService>;
  for (const [name, create] of Object.entries(SUBGRAPH_FACTORIES) as [SubgraphName, (typeof SUBGRAPH_FACTORIES)[SubgraphName]][]) {
    subgraphs[name] = await listenSubgraph(name, create(logger.child({ subgraph: name }), deps), deps, subgraphPort(config, name));
  }
  // Webhook delivery and the quest outbox are the content subgraph's (its runtime).
  const workers = [recordViewerPresence(deps)];
  // The subgraphs run in this process: the gateway executes their parts of a plan in-process.
  const served = await serveGateway(deps, (name) => subgraphs[name].url, options.subgraphsOverHttp ? undefined : (name) => subgraphs[name]);
  supergraph.bind((request, identity) => served.gateway.execute(request, identity));

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await served.close();
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all(Object.values(subgraphs).map((subgraph) => subgraph.close()));
      if (!options.bus) await bus.close();
      await database.close();
      await flushTracing();
    })());

  let draining: Promise<void> | null = null;
  const drain = () =>
    (draining ??= (async () => {
      served.drain.start();
      logger.info({ graceMs: config.shutdownGraceMs }, 'draining: /ready answers 503, serving until the grace period ends');
      await new Promise((resolve) => setTimeout(resolve, config.shutdownGraceMs));
      await close();
    })());

  return {
    drain,
    url: `http://127.0.0.1:${served.port}`,
    port: served.port,
    config,
    database,
    bus,
    gateway: served.gateway,
    authenticator: served.authenticator,
    subgraphs,
    deps,
    httpServer: served.httpServer,
    close,
  };
}
