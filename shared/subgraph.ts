/**
 * What the four subgraphs share: the resolver context, the Apollo server built from SDL + resolvers,
 * and the express app that serves it on an internal port. Requests are refused unless they carry the
 * identity the gateway signed.
 */
import { ApolloServer, type ApolloServerPlugin, type GraphQLRequest } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { refuseNullForRequiredUpdates } from './updateInputs';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { graphqlMiddleware } from './graphqlMiddleware';
import express from 'express';
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { Server } from 'node:http';
import { createExpressServer } from './httpServer';
import { subgraphDoor } from './subgraphDoor';
import type { AddressInfo } from 'node:net';
import type { Config } from './config';
import type { Database, Db } from './db/client';
import { databaseUnavailable, isDatabaseUnavailable, unauthenticated, withHttpStatus, ErrorCode } from './errors';
import type { EventBus } from './bus';
import { IDENTITY_HEADER, verifyIdentity, type Identity } from './auth/identity';
import type { Logger } from './logger';
import { metricsHandler, routeTemplate } from './metrics';
import { traceRequests, withSpan } from './tracing';
import type { SupergraphClient } from './supergraph';
import type { QuickAnswerRegistry } from './quickAnswers';

/** Everything a service needs from the outside world, created once at start. */
export interface ServiceDeps {
  config: Config;
  database: Database;
  bus: EventBus;
  logger: Logger;
  /** Operations on data other subgraphs own. */
  supergraph: SupergraphClient;
  /**
   * The clock of time-based rules (milliseconds since the epoch; default Date.now): when a recurring
   * pass's period has ended. Tests give their own to move time without sleeping.
   */
  now?: () => number;
  /** Where subgraphs of this process offer answers given without executing (shared/quickAnswers.ts); absent: none. */
  quickAnswers?: QuickAnswerRegistry;
}

/** The context of every subgraph resolver. */
export interface SubgraphContext {
  identity: Identity;
  db: Db;
  bus: EventBus;
  config: Config;
  logger: Logger;
  supergraph: SupergraphClient;
}

/** Hides unexpected errors (logged with the request id) and maps database conflicts to CONFLICT. */
export function formatSubgraphError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = (error as { originalError?: unknown })?.originalError ?? error;
    if ((original as { code?: string })?.code === 'P2002') {
      return { ...formatted, message: 'a resource with these unique fields already exists', extensions: { code: ErrorCode.CONFLICT } };
    }
    // A transaction that could not finish in its time (Prisma's P2028) is the database being slow, not a bug:
    // the caller may try again shortly, as when the database is away.
    if (isDatabaseUnavailable(original) || (original as { code?: string })?.code === 'P2028') {
      logger.warn({ path: formatted.path }, 'database unavailable');
      return { message: databaseUnavailable().message, path: formatted.path, extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } };
    }
    const code = formatted.extensions?.code;
    if (!code || code === ErrorCode.INTERNAL_SERVER_ERROR) {
      logger.error({ err: original, path: formatted.path }, 'unexpected resolver error');
      return { message: 'internal server error', path: formatted.path, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
    }
    const { stacktrace: _stack, http: _http, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  };
}

export function buildSubgraphServer(
  typeDefs: DocumentNode,
  resolvers: object,
  logger: Logger,
  plugins: ApolloServerPlugin<SubgraphContext>[] = [],
): ApolloServer<SubgraphContext> {
  return new ApolloServer<SubgraphContext>({
    schema: refuseNullForRequiredUpdates(buildSubgraphSchema({ typeDefs, resolvers: resolvers as GraphQLResolverMap<unknown> })),
    includeStacktraceInErrorResponses: false,
    // Signals are handled once, by the process that runs the services.
    stopOnTerminationSignals: false,
    formatError: formatSubgraphError(logger),
    csrfPrevention: false,
    logger,
    // No per-request federated tracing: nothing here reports traces, so it would be pure overhead. No
    // cache-control hints either (no @cacheControl in any schema): the plugin would visit every resolved
    // field of every request to compute `no-store`, which the gateway reads the same as no header.
    plugins: [ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginCacheControlDisabled(), ...plugins],
  });
}

export interface RunningService {
  url: string;
  port: number;
  close(): Promise<void>;
  /**
   * Runs an operation on this subgraph in-process, through its whole Apollo pipeline (same errors,
   * same formatting) but without the HTTP hop: what the gateway does when the subgraph runs beside it.
   */
  execute(request: GraphQLRequest, identity: Identity): Promise<ExecutionResult>;
}

/**
 * A resolver context. Its logger is made when a resolver first logs: most requests log nothing, and a
 * child logger per request is not free. The getter sits on the prototype, so Apollo's copy of the
 * context for each operation does not call it.
 */
class RequestContext implements SubgraphContext {
  readonly db: Db;
  readonly bus: EventBus;
  readonly config: Config;
  readonly supergraph: SupergraphClient;
  private requestLogger: Logger | undefined;

  constructor(
    readonly identity: Identity,
    deps: ServiceDeps,
    private readonly serviceLogger: Logger,
  ) {
    this.db = deps.database.prisma;
    this.bus = deps.bus;
    this.config = deps.config;
    this.supergraph = deps.supergraph;
  }

  get logger(): Logger {
    return (this.requestLogger ??= this.serviceLogger.child({ requestId: this.identity.requestId }));
  }
}

/** Serves a built subgraph on `port` (0 = any free port). */
export async function listenSubgraph(name: string, server: ApolloServer<SubgraphContext>, deps: ServiceDeps, port: number): Promise<RunningService> {
  const app = express();
  // No ETag: only the gateway reads these answers, always with a POST that nothing caches, and express would
  // hash every answer for it (a deep plan's answers are tens of KB each).
  app.set('etag', false);
  const logger = deps.logger.child({ subgraph: name });
  const contextFor = (identity: Identity): SubgraphContext => new RequestContext(identity, deps, logger);
  const signedContext = async (header: string | string[] | undefined): Promise<SubgraphContext> => {
    const identity = verifyIdentity(typeof header === 'string' ? header : undefined, deps.config.internalSecret);
    if (!identity) throw withHttpStatus(unauthenticated('subgraphs accept only requests signed by the gateway'));
    return contextFor(identity);
  };
  // The gateway's fetches are answered at the door; the app serves the rest (shared/subgraphDoor.ts).
  const door = subgraphDoor(server, { limitBytes: deps.config.bodyLimitBytes, context: (headers) => signedContext(headers[IDENTITY_HEADER]) });
  const httpServer: Server = createExpressServer(app, door);
  httpServer.keepAliveTimeout = 65_000;
  server.addPlugin(ApolloServerPluginDrainHttpServer({ httpServer }));
  await server.start();
  // A call from the gateway continues the gateway's trace (its traceparent header).
  app.use(traceRequests({ 'stagegraph.subgraph': name }));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', subgraph: name, runtime: process.version });
  });
  // This process's metrics, for a subgraph running as its own process.
  app.get('/metrics', metricsHandler(deps.config.metricsToken));
  app.use(
    '/graphql',
    routeTemplate('/graphql'),
    express.json({ limit: deps.config.bodyLimitBytes }),
    graphqlMiddleware(server, {
      context: ({ req }) => signedContext(req.header(IDENTITY_HEADER)),
    }),
  );
  await new Promise<void>((resolve) => httpServer.listen(port, deps.config.subgraphHost, resolve));
  const actual = (httpServer.address() as AddressInfo).port;
  let open = true;
  return {
    port: actual,
    url: `http://${deps.config.subgraphHost}:${actual}/graphql`,
    async close() {
      open = false;
      await server.stop();
    },
    async execute(request, identity) {
      if (!open) {
        return { errors: [new GraphQLError(`the ${name} service is unavailable, try again shortly`, { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } })] };
      }
      return withSpan(`subgraph ${name}`, { 'stagegraph.subgraph': name, 'graphql.operation.name': request.operationName ?? '' }, async () => {
        const response = await server.executeOperation(request, { contextValue: contextFor(identity) });
        if (response.body.kind !== 'single') throw new Error('incremental delivery is not supported');
        return response.body.singleResult as ExecutionResult;
      });
    },
  };
}

/** Resolver maps of several areas of one subgraph merged type by type (fields of a type from every area). */
export function mergeResolvers<R extends object>(...areas: R[]): R {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const area of areas) {
    for (const [typeName, fields] of Object.entries(area)) merged[typeName] = { ...merged[typeName], ...(fields as object) };
  }
  return merged as R;
}
