/**
 * Live subscriptions over Server-Sent Events: the graphql-sse protocol in its "distinct connections"
 * mode at /graphql/stream. `POST` (a JSON body) or `GET` (query parameters) with
 * `Accept: text/event-stream`; each result is an event `next`, the end of the operation an event
 * `complete`, and an idle stream gets a comment line every 12 s. Credentials are the request's headers
 * (x-service-client-id, Authorization: Bearer, x-service-developer-key), with the socket's rules.
 * A drain ends the stream without `complete`, which graphql-sse's client takes as a network error and
 * retries (through the balancer, elsewhere).
 */
import type { RequestHandler } from 'express';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { ErrorCode } from '../../../shared/errors';
import type { Logger } from '../../../shared/logger';
import type { LiveServer } from '../liveServer';
import { Heartbeats, HttpStream, serveOperation, type StreamFormat } from './streamChannel';

const event = (name: 'next' | 'complete', data?: string) => `event: ${name}\ndata:${data === undefined ? '' : ` ${data}`}\n\n`;
const COMPLETE = event('complete');

/** graphql-sse's framing (its `print`): JSON has no raw line breaks, so each result is one `data` line. */
export const SSE_FORMAT: StreamFormat = {
  transport: 'sse',
  contentType: 'text/event-stream; charset=utf-8',
  opening: ':\n\n',
  heartbeat: ':\n\n',
  encodeNext: (json) => Buffer.from(event('next', json)),
  errors: (errors: readonly GraphQLFormattedError[]) => event('next', JSON.stringify({ errors })) + COMPLETE,
  result: (result: ExecutionResult) => event('next', JSON.stringify(result)) + COMPLETE,
  closing: () => '',
};

/** Whether a request asks for an event stream. */
export const acceptsEventStream = (accept: string | undefined) => /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? '');

export interface SseTransportOptions {
  live: LiveServer;
  logger: Logger;
  /** Milliseconds between heartbeat comments (config.sseHeartbeatMs). */
  heartbeatMs: number;
}

/** The /graphql/stream handler (after the JSON body parser); its heartbeats stop when the live server closes. */
export function sseTransport({ live, logger, heartbeatMs }: SseTransportOptions): RequestHandler {
  const heartbeats = new Heartbeats(SSE_FORMAT.heartbeat, heartbeatMs);
  live.onClose(() => heartbeats.close());
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('allow', 'GET, POST');
      res.status(405).json({ errors: [{ message: 'use POST (or GET) with Accept: text/event-stream', extensions: { code: ErrorCode.BAD_USER_INPUT } }] });
      return;
    }
    if (!acceptsEventStream(req.header('accept'))) {
      res.status(406).json({
        errors: [{ message: 'Accept must include text/event-stream (graphql-sse, distinct connections)', extensions: { code: ErrorCode.BAD_USER_INPUT } }],
      });
      return;
    }
    serveOperation(live, new HttpStream(res, SSE_FORMAT, heartbeats), req, res, logger).catch(next);
  };
}
