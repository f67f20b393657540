/**
 * The public port's door: a request the REST bridge answers from memory (its quick routes, see
 * rest-bridge/quickRoutes.ts) is answered here, before express and its middleware, with what they would
 * have given it — the request id, the route's ETag and Cache-Control, the request metrics and log line —
 * and everything else goes on to the app untouched. At a gated channel's go-live every player asks the
 * content check at once; once the answer comes from memory, express's layers are most of a request's cost.
 *
 * A draining instance and a traced one send every request through the app: the drain closes connections
 * and the tracer spans each request, neither of which the door does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { Logger } from '../shared/logger';
import { countHttpRequest } from '../shared/metrics';
import { requestTraceIdOf, tracingEnabled } from '../shared/tracing';
import type { QuickDoor } from '../rest-bridge/quickRoutes';
import { sendCacheable } from '../rest-bridge/responseCache';
import { logAnswered, requestIdOf } from './app';
import type { Drain } from './drain';

/** Answers a request at the door (true once it is answered), or hands it on (false). */
export type Door = (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | false;

/** Told each time the door answered a request (tests: proof that a request never reached express). */
export type DoorAnswered = () => void;

/** The door of `quickDoor`'s routes, or null when there are none. */
export function createDoor(quickDoor: QuickDoor | null, logger: Logger, drain: Drain, answered?: DoorAnswered): Door | null {
  if (!quickDoor) return null;
  return (req, res) => {
    if (drain.draining || tracingEnabled()) return false;
    const started = process.hrtime.bigint();
    const asked = quickDoor(req);
    if (!asked) return false;
    return asked.then((quick) => {
      if (!quick) return false;
      const requestId = requestIdOf(req.headers['x-request-id']);
      // In the order the app's middleware and the router set them.
      res.setHeader('x-request-id', requestId);
      if (quick.spec.anyOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
      sendCacheable(req as Request, res as Response, quick.spec, quick.answer);
      countHttpRequest(quick.spec.path, req.method as string, res.statusCode, started);
      if (logger.isLevelEnabled('info')) {
        const path = (req.url as string).split('?')[0];
        const traceId = requestTraceIdOf(req.headers.traceparent as string | undefined);
        logAnswered(logger, { requestId, traceId, method: req.method as string, path, status: res.statusCode, started });
      }
      answered?.();
      return true;
    });
  };
}
