/**
 * The public HTTP surface on one port: /graphql (gateway; graphql-ws upgrades are taken by the live
 * server), every REST path of the route table, /openapi.json, /health and /ready.
 */
import { timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { EventBus } from '../shared/bus';
import type { Database } from '../shared/db/client';
import { restErrorBody } from '../shared/errors';
import { newId } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { RestBridge } from '../rest-bridge/server';
import type { Gateway } from './server';

export interface PublicAppOptions {
  gateway: Gateway;
  rest: RestBridge;
  database: Database;
  bus: EventBus;
  logger: Logger;
  bodyLimitBytes: number;
  /** The deployment's internal secret: it opens the internal counters to the bench. */
  internalSecret: string;
}

/** Gives every request an id (or keeps the caller's x-request-id) and logs it when it ends. */
function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.header('x-request-id');
    const id = given && /^[\w.-]{1,64}$/.test(given) ? given : newId();
    (req as { id?: string }).id = id;
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // A route whose path carries a credential leaves a redacted path to log (rest-bridge/router.ts).
      const path = (res.locals.logPath as string | undefined) ?? req.path;
      logger.info({ requestId: id, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}

export function createPublicApp({ gateway, rest, database, bus, logger, bodyLimitBytes, internalSecret }: PublicAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLog(logger));

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    const [databaseReady, busReady] = await Promise.all([database.ping(), bus.ready()]);
    const ready = databaseReady && busReady;
    res.status(ready ? 200 : 503).json({ ready, database: databaseReady, bus: busReady });
  });
  // Statements sent to the database by this process, for the bench's storms; only with the internal secret.
  app.get('/internal/v1/database-queries', (req, res) => {
    const given = Buffer.from(req.header('x-internal-secret') ?? '');
    const secret = Buffer.from(internalSecret);
    if (given.length !== secret.length || !timingSafeEqual(given, secret)) {
      res.status(401).json(restErrorBody('credentials required: x-internal-secret'));
      return;
    }
    res.json({ queries: database.queryCount() });
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(rest.openapi);
  });
  app.use('/graphql', express.json({ limit: bodyLimitBytes }), gateway.middleware);
  app.use(rest.router);

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
