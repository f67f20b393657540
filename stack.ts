/**
 * The whole system in one process: the four subgraphs on internal ports, the gateway with the REST
 * bridge and live viewers on the public port. `npm start` and the tests both start it from here.
 */
import type { ApolloServer } from '@apollo/server';
import type { Server } from 'node:http';
import type { Authenticator } from './shared/auth/authenticate';
import { createEventBus, type EventBus } from './shared/bus';
import { subgraphPort, type Config, type SubgraphName } from './shared/config';
import { openDatabase, type Database } from './shared/db/client';
import { createLogger, type Logger } from './shared/logger';
import { configureMetrics } from './shared/metrics';
import { configurePasswordHashing } from './shared/auth/credentials';
import { flushTracing, startTracing } from './shared/tracing';
import { lateBoundSupergraph } from './shared/supergraph';
import { quickAnswerRegistry } from './shared/quickAnswers';
import { listenSubgraph, type RunningService, type ServiceDeps, type SubgraphContext } from './shared/subgraph';
import { serveGateway } from './gateway/serve';
import type { Gateway } from './gateway/server';
import { createCommunitySubgraph } from './subgraphs/community/server';
import { createContentSubgraph } from './subgraphs/content/server';
import { createIntegrationsSubgraph } from './subgraphs/integrations/server';
import { createOverlaysSubgraph } from './subgraphs/overlays/server';
import { recordViewerPresence } from './subgraphs/overlays/presence';

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

export interface StackOptions {
  logger?: Logger;
  /** An event bus shared with other stacks in this process (tests of several instances); not closed by the stack. */
  bus?: EventBus;
  /** The gateway calls the subgraphs over HTTP, as it does when they run as their own processes (tests). */
  subgraphsOverHttp?: boolean;
  /** The clock of time-based rules (ServiceDeps.now); tests move it instead of sleeping. */
  now?: () => number;
}

export async function startStack(config: Config, options: StackOptions = {}): Promise<Stack> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // Before the database opens: with tracing on, its queries get spans.
  startTracing(config.otlpEndpoint);
  configureMetrics(config.metricsEnabled);
  configurePasswordHashing(config.passwordHashCost);
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
