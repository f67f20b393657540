/**
 * Live subscriptions over multipart HTTP, Apollo's protocol (what Apollo Client's HttpLink, Apollo
 * Router and Hive Gateway speak): `POST /graphql` with `Accept: multipart/mixed;subscriptionSpec=1.0,
 * application/json` answers `multipart/mixed;boundary="graphql";subscriptionSpec=1.0`, each part
 * `{"payload": <result>}`, a `{}` part every 5 s while idle. Each part is followed at once by the next
 * boundary, so a client reads it as soon as it arrives. A drain ends the stream with a transport error
 * (`{"payload": null, "errors": […]}`) and the closing boundary: the client subscribes again.
 *
 * Also here: the answer to a subscription sent to /graphql without a streaming Accept, a 400 that names
 * the transports (@apollo/gateway would throw, a 500).
 */
import type { Request, RequestHandler } from 'express';
import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { ErrorCode } from '../../../shared/errors';
import type { Logger } from '../../../shared/logger';
import type { LiveServer } from '../liveServer';
import { CLOSE_SERVICE_RESTART, CLOSE_UNAUTHORIZED } from '../viewerChannel';
import { Heartbeats, HttpStream, serveOperation, type StreamFormat } from './streamChannel';

const BOUNDARY = '\r\n--graphql';
const part = (json: string) => `\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${json}${BOUNDARY}`;
/** After the last part's boundary: the closing delimiter. */
const FINAL = '--\r\n';

export const MULTIPART_FORMAT: StreamFormat = {
  transport: 'multipart',
  contentType: 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0',
  opening: BOUNDARY + part('{}'),
  heartbeat: part('{}'),
  encodeNext: (json) => Buffer.from(part(`{"payload":${json}}`)),
  errors: (errors: readonly GraphQLFormattedError[]) => part(JSON.stringify({ payload: { errors } })) + FINAL,
  result: (result: ExecutionResult) => part(JSON.stringify({ payload: result })) + FINAL,
  closing: (code) =>
    part(
      JSON.stringify({
        payload: null,
        errors: [
          code === CLOSE_UNAUTHORIZED
            ? { message: 'the developer key of this subscription was revoked', extensions: { code: ErrorCode.UNAUTHENTICATED } }
            : {
                message: code === CLOSE_SERVICE_RESTART ? 'this instance is restarting; subscribe again' : 'this instance is shutting down; subscribe again',
                extensions: { code: ErrorCode.SERVICE_UNAVAILABLE },
              },
        ],
      }),
    ) + FINAL,
};

/** Whether an Accept header asks for Apollo's multipart subscriptions (`multipart/mixed` with a `subscriptionSpec`). */
export function acceptsMultipartSubscription(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((type) => /^\s*multipart\/mixed\s*;/i.test(type) && /;\s*subscriptionSpec\s*=\s*"?1\.0"?\s*(;|$)/i.test(type));
}

export interface MultipartTransportOptions {
  live: LiveServer;
  logger: Logger;
  /** Milliseconds between heartbeat parts (config.multipartHeartbeatMs). */
  heartbeatMs: number;
  /** The document of a query string, within the document limits (null when it is refused: Apollo Server answers that). */
  parse: (query: string) => DocumentNode | null;
}

const SUBSCRIPTION_WORD = /\bsubscription\b/;

/** Whether a GraphQL request body (one operation) asks for a subscription. */
function isSubscription(body: unknown, parse: (query: string) => DocumentNode | null): boolean {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  // Cheap first: most requests never say the word (a field `subscriptions` is no match).
  if (typeof query !== 'string' || !SUBSCRIPTION_WORD.test(query)) return false;
  const document = parse(query);
  if (!document) return false;
  return getOperationAST(document, typeof operationName === 'string' ? operationName : undefined)?.operation === OperationTypeNode.SUBSCRIPTION;
}

function requestsSubscription(req: Request, parse: (query: string) => DocumentNode | null): boolean {
  if (req.method === 'GET') return isSubscription(req.query, parse);
  return Array.isArray(req.body) ? req.body.some((body) => isSubscription(body, parse)) : isSubscription(req.body, parse);
}

const TRANSPORTS_MESSAGE =
  'subscriptions are not served as a single HTTP answer: use graphql-ws (WebSocket) on /graphql, ' +
  'Server-Sent Events on /graphql/stream (Accept: text/event-stream), or multipart HTTP on POST /graphql (Accept: multipart/mixed;subscriptionSpec=1.0)';

/**
 * For /graphql, before Apollo Server: a subscription POSTed with the multipart Accept is served here;
 * any other subscription over HTTP is answered 400 naming the transports; everything else goes on.
 */
export function multipartTransport({ live, logger, heartbeatMs, parse }: MultipartTransportOptions): RequestHandler {
  const heartbeats = new Heartbeats(MULTIPART_FORMAT.heartbeat, heartbeatMs);
  live.onClose(() => heartbeats.close());
  return (req, res, next) => {
    if (!requestsSubscription(req, parse)) {
      next();
      return;
    }
    if (req.method !== 'POST' || Array.isArray(req.body) || !acceptsMultipartSubscription(req.header('accept'))) {
      res.status(400).json({ errors: [{ message: TRANSPORTS_MESSAGE, extensions: { code: ErrorCode.BAD_USER_INPUT } }] });
      return;
    }
    serveOperation(live, new HttpStream(res, MULTIPART_FORMAT, heartbeats), req, res, logger).catch(next);
  };
}
