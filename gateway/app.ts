/**
 * The public HTTP surface on one port: /graphql (gateway; graphql-ws upgrades are taken by the live
 * server), every REST path of the route table, /openapi.json, /health and /ready, the viewer side
 * (/embed/v1/*, /sdk/v1/*.js) and GraphiQL (/graphiql).
 */
import { timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import type { EventBus } from '../shared/bus';
import type { Database } from '../shared/db/client';
import { ErrorCode, restErrorBody } from '../shared/errors';
import { jsonValueProblem, parseJsonInput, stringProblem } from '../shared/jsonInput';
import { newId } from '../shared/ids';
import type { Logger } from '../shared/logger';
import { instanceRegistry } from '../shared/instanceMetrics';
import { countHttpRequests, metricsHandler, routeTemplate } from '../shared/metrics';
import { currentTraceId, traceRequests } from '../shared/tracing';
import type { RestBridge } from '../rest-bridge/server';
import type { Drain } from './drain';
import { createEmbedRouter } from './pages/embed';
import { createGraphiqlRouter } from './pages/graphiql';
import type { Gateway } from './server';

export interface PublicAppOptions {
  gateway: Gateway;
  rest: RestBridge;
  database: Database;
  bus: EventBus;
  logger: Logger;
  bodyLimitBytes: number;
  /** Opens /metrics off loopback (config.metricsToken). */
  metricsToken: string | null;
  /** The deployment's internal secret: it opens the internal counters to the bench. */
  internalSecret: string;
  /** This instance's drain (SIGTERM): /ready turns 503 and answers close their connections. */
  drain: Drain;
  /** How long a drain answers before the port closes (config.shutdownGraceMs), reported in /metrics. */
  shutdownGraceMs: number;
  /** Serves GraphiQL at /graphiql (config.graphiql). */
  graphiql: boolean;
}

/** The request's id: the caller's x-request-id when it is a plain token of at most 64 characters, else a new one. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : newId();
}

/** An answered request as the request log writes it (at info). */
export interface AnsweredRequest {
  requestId: string;
  traceId: string | undefined;
  method: string;
  path: string;
  status: number;
  /** process.hrtime.bigint() when the request arrived. */
  started: bigint;
}

/** The request log's line for an answered request. */
export function logAnswered(logger: Logger, { requestId, traceId, method, path, status, started }: AnsweredRequest): void {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  logger.info({ requestId, trace_id: traceId, method, path, status, ms: Math.round(ms * 10) / 10 }, 'request');
}

/** Gives every request an id (or keeps the caller's x-request-id) and logs it when it ends. */
function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = requestIdOf(req.headers['x-request-id']);
    (req as { id?: string }).id = id;
    res.setHeader('x-request-id', id);
    // The level is fixed at start (LOG_LEVEL); below info there is no line to build when the request ends.
    if (!logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    const traceId = currentTraceId();
    res.on('finish', () => {
      // A route whose path carries a credential leaves a redacted path to log (rest-bridge/router.ts).
      const path = (res.locals.logPath as string | undefined) ?? req.path;
      logAnswered(logger, { requestId: id, traceId, method: req.method, path, status: res.statusCode, started });
    });
    next();
  };
}

/** The first problem in a GraphQL request's input (JSON body, or GET parameters), naming the field. */
function graphqlInputProblem(req: Request): string | null {
  if (req.method !== 'GET') return jsonValueProblem(req.body, '');
  for (const [name, value] of Object.entries(req.query)) {
    if (typeof value !== 'string') continue;
    if (name === 'variables' || name === 'extensions') {
      const parsed = parseJsonInput(value, name);
      if ('error' in parsed) return parsed.error;
    } else {
      const problem = stringProblem(value);
      if (problem) return `${name} ${problem}`;
    }
  }
  return null;
}

/**
 * Input no resolver could store and read back (lone surrogates, NUL, unsafe or non-finite numbers,
 * nesting deeper than 64) is refused before GraphQL sees it, as the REST bridge does (shared/jsonInput).
 */
const checkGraphqlInput: RequestHandler = (req, res, next) => {
  const problem = graphqlInputProblem(req);
  if (!problem) return next();
  res.status(400).json({ errors: [{ message: problem, extensions: { code: ErrorCode.BAD_USER_INPUT } }] });
};

export function createPublicApp({
  gateway,
  rest,
  database,
  bus,
  logger,
  bodyLimitBytes,
  metricsToken,
  internalSecret,
  drain,
  shutdownGraceMs,
  graphiql,
}: PublicAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(drain.closeConnections);
  // The trace first, so the request log and everything after it carry its id.
  app.use(traceRequests());
  app.use(requestLog(logger));
  app.use(countHttpRequests());
  // The REST paths first: they are most of the traffic, and one lookup in the route tree passes the rest on.
  app.use(rest.router);

  app.get(
    '/metrics',
    routeTemplate('/metrics'),
    metricsHandler(metricsToken, instanceRegistry(gateway.live, bus, { secondsDraining: () => drain.secondsDraining(), graceSeconds: shutdownGraceMs / 1000 })),
  );
  // The process is up; the details say what works (an outage of the shared Redis shows here, not in /ready).
  app.get('/health', routeTemplate('/health'), (_req, res) => {
    res.json({ status: 'ok', runtime: process.version, draining: drain.draining, bus: { connected: bus.connected() } });
  });
  // Whether THIS instance should get traffic: not draining and its database answers. The shared Redis is
  // left out on purpose: its outage would take every instance out of the balancer at once, and the whole
  // site down, while everything that needs no bus still works.
  app.get('/ready', routeTemplate('/ready'), async (_req, res) => {
    const databaseReady = drain.draining ? null : await database.ping();
    const ready = !drain.draining && databaseReady === true;
    res.status(ready ? 200 : 503).json({ ready, draining: drain.draining, database: databaseReady });
  });
  // Statements sent to the database by this process (and the reads among them), for the bench's storms; only with the internal secret.
  app.get('/internal/v1/database-queries', routeTemplate('/internal/v1/database-queries'), (req, res) => {
    const given = Buffer.from(req.header('x-internal-secret') ?? '');
    const secret = Buffer.from(internalSecret);
    if (given.length !== secret.length || !timingSafeEqual(given, secret)) {
      res.status(401).json(restErrorBody('credentials required: x-internal-secret'));
      return;
    }
    res.json({ queries: database.queryCount(), reads: database.readCount() });
  });
  app.get('/openapi.json', routeTemplate('/openapi.json'), (_req, res) => {
    res.json(rest.openapi);
  });
  // Before /graphql, whose mount would take it too.
  app.use('/graphql/stream', routeTemplate('/graphql/stream'), express.json({ limit: bodyLimitBytes }), checkGraphqlInput, gateway.streamMiddleware);
  app.use('/graphql', routeTemplate('/graphql'), express.json({ limit: bodyLimitBytes }), checkGraphqlInput, gateway.middleware);
  app.use(createEmbedRouter());
  if (graphiql) app.use(createGraphiqlRouter());

  app.use((req, res) => {
    res.status(404).json(restErrorBody(`no route for ${req.method} ${req.path}`));
  });
  const onError: ErrorRequestHandler = (error: { type?: string; status?: number }, req, res, _next) => {
    if (error.type === 'entity.too.large') {
      res.status(413).json(restErrorBody('request body too large'));
    } else if (error.type === 'entity.parse.failed') {
      res.status(400).json(restErrorBody('the body is not valid JSON'));
    } else if (error.status && error.status >= 400 && error.status < 500) {
      res.status(error.status).json(restErrorBody('bad request'));
    } else {
      const requestId = (req as { id?: string }).id;
      logger.error({ err: error, requestId }, 'unhandled request error');
      res.status(500).json(restErrorBody('internal server error', requestId));
    }
  };
  app.use(onError);
  return app;
}
