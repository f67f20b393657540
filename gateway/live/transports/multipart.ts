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

/** Answers of `isSubscription` kept by document (a join storm sends one document thousands of times). */
const KIND_CACHE_LIMIT = 1000;
/** Longer documents are looked at every time, so the cache cannot be made to hold much memory. */
const CACHED_QUERY_MAX_LENGTH = 16 * 1024;

/**
 * Whether a GraphQL request's operation is a subscription: parsed (within the document limits) once per
 * document and operation name, then a map lookup.
 */
class SubscriptionTest {
  private readonly kinds = new Map<string, boolean>();

  constructor(private readonly parse: (query: string) => DocumentNode | null) {}

  /** Whether a GraphQL request body (one operation) asks for a subscription. */
  of(body: unknown): boolean {
    const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
    // Cheap first: most requests never say the word (a field `subscriptions` is no match).
    if (typeof query !== 'string' || !SUBSCRIPTION_WORD.test(query)) return false;
    const name = typeof operationName === 'string' ? operationName : undefined;
    const key = `${name ?? ''}\u0000${query}`;
    let kind = this.kinds.get(key);
    if (kind !== undefined) return kind;
    const document = this.parse(query);
    kind = document !== null && getOperationAST(document, name)?.operation === OperationTypeNode.SUBSCRIPTION;
    // A refused document is not kept: a stream of distinct hostile documents must not fill the cache.
    if (document && key.length <= CACHED_QUERY_MAX_LENGTH) {
      if (this.kinds.size >= KIND_CACHE_LIMIT) this.kinds.delete(this.kinds.keys().next().value as string);
      this.kinds.set(key, kind);
    }
    return kind;
  }

  /** Whether a request (GET parameters, or a POST body of one operation or a batch) asks for a subscription. */
  request(req: Request): boolean {
    if (req.method === 'GET') return this.of(req.query);
    return Array.isArray(req.body) ? req.body.some((body) => this.of(body)) : this.of(req.body);
  }
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
  const subscriptions = new SubscriptionTest(parse);
  live.onClose(() => heartbeats.close());
  return (req, res, next) => {
    if (!subscriptions.request(req)) {
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
