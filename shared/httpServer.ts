/**
 * The HTTP server of an express app, with its requests and responses made as express's from the start.
 *
 * Express gives every request and response its own prototype (`Object.setPrototypeOf(req, app.request)`)
 * when it takes them. Changing an object's prototype after it is made costs V8 its fast paths, and Node's
 * own HTTP code then runs on objects of a shape it has not seen. Here the server makes them of classes
 * whose prototypes are the app's (Node's documented `IncomingMessage` / `ServerResponse` options), so
 * express's `setPrototypeOf` changes nothing. Measured on this machine with a bare express app: 15,000
 * requests/s before, 65,000 after.
 */
import { createRequire } from 'node:module';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import { Socket as NetSocket, type Socket } from 'node:net';
import type { Express } from 'express';

/**
 * What may answer a request before `app` does (gateway/door.ts): false at once, or a promise of false,
 * hands the request to the app; a promise of true says it is answered. The request has not been read
 * (its body, if any, waits in the stream), so the app takes it as if it had come straight to it.
 */
export type FrontDoor = (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | false;

/**
 * An HTTP server for `app` whose requests and responses are express's from the start (see above), with
 * `door` (when given) asked first.
 */
export function createExpressServer(app: Express, door?: FrontDoor | null): Server {
  const prototypes = app as unknown as { request: object; response: object };
  class Request extends IncomingMessage {}
  class Response extends ServerResponse {}
  // Request.prototype → app.request → express's request → IncomingMessage.prototype (likewise responses).
  Object.setPrototypeOf(Request.prototype, prototypes.request);
  Object.setPrototypeOf(Response.prototype, prototypes.response);
  prototypes.request = Request.prototype;
  prototypes.response = Response.prototype;
  const listener = door
    ? (req: IncomingMessage, res: ServerResponse) => {
        const answered = door(req, res);
        if (answered === false) return void app(req, res);
        // A door fails only before it writes (it writes its whole answer at once); the app then answers.
        answered.then(
          (done) => {
            if (!done) app(req, res);
          },
          () => {
            if (res.headersSent) res.destroy();
            else app(req, res);
          },
        );
      }
    : app;
  return createServer({ IncomingMessage: Request, ServerResponse: Response }, listener);
}

/** Node's HTTP parser as a socket of its server holds it (internal: what Node's own upgrade path uses). */
type SocketParser = object;

// Node's `freeParser` (node:_http_common, the module Node's upgrade path takes it from): returns the
// parser to Node's pool and takes it off the server's list of connections it watches for timeouts.
const { freeParser } = createRequire(__filename)('_http_common') as {
  freeParser: (parser: SocketParser, req: IncomingMessage | null, socket: Socket) => void;
};

/**
 * The listeners Node's HTTP server puts on each connection it serves (Node's `connectionListenerInternal`),
 * by name: the socket's own (net's `onReadableStreamEnd`) stay.
 */
const SERVER_LISTENERS = new Set([
  'bound socketOnData',
  'bound socketOnEnd',
  'bound socketOnClose',
  'bound socketOnDrain',
  'socketOnError',
  'socketOnTimeout',
  'onSocketResume',
  'onSocketPause',
]);
const NET_SOCKET = NetSocket.prototype as unknown as Record<string, unknown>;
const SERVER_SOCKET_EVENTS = ['data', 'end', 'close', 'drain', 'error', 'timeout', 'resume', 'pause'] as const;

/**
 * Takes a response's connection away from Node's HTTP server once its headers went out, as Node does for
 * an `upgrade`: the server's listeners on the socket and its parser are freed, and the request and the
 * response are no longer reachable from the socket. What stays is the bare socket, which the caller now
 * writes its body to (already framed) and ends itself. A long-lived stream then costs its socket and
 * whatever the caller keeps, not Node's per-request HTTP machinery (measured: ~8 KB of a 13 KB idle
 * Server-Sent Events viewer). Bytes the client sends afterwards are read and dropped, so its closing is seen
 * (and ends the connection, as Node's server would). The response's `finish` and `close` observers are
 * told now (see `endExchange`): a caller's own `close` listener on the response goes first.
 * Null when the connection is gone already.
 */
export function takeConnection(res: ServerResponse): Socket | null {
  const socket = res.socket;
  if (!socket || socket.destroyed) return null;
  res.detachSocket(socket);
  for (const event of SERVER_SOCKET_EVENTS) {
    for (const listener of socket.listeners(event)) if (SERVER_LISTENERS.has(listener.name)) socket.removeListener(event, listener as () => void);
  }
  const parser = (socket as Socket & { parser?: SocketParser | null }).parser;
  if (parser) freeParser(parser, null, socket);
  // The server's own methods on the socket: wrappers of `on`/`addListener`/`prependListener` (they hand
  // the socket back from the parser on a `data` listener) and a `setEncoding` that refuses. Set back to
  // net's rather than deleted: a delete turns the socket into a dictionary (measured: 1.6 KB a socket).
  const own = socket as unknown as Record<string, unknown>;
  for (const method of ['on', 'addListener', 'prependListener', 'setEncoding']) own[method] = NET_SOCKET[method];
  socket.setTimeout(0);
  socket.on('error', ignore);
  endExchange(res);
  // The client closing its side ends the connection, as Node's server does (its httpAllowHalfOpen is false).
  socket.once('end', endSocket);
  socket.resume();
  return socket;
}

const ignore = () => undefined;

/**
 * The response's own observers (the request log line, the request metrics, the request's trace span) hear
 * that the exchange is over, as they would at its end: for them it ends when the connection is handed
 * over (status 200, the time it took to set the stream up), as an upgrade's does. Node's own `finish`
 * listener is left out: it would take the socket back for the next request.
 */
function endExchange(res: ServerResponse): void {
  for (const listener of res.listeners('finish')) if (listener.name !== 'bound resOnFinish') (listener as () => void).call(res);
  res.removeAllListeners('finish');
  res.emit('close');
}

function endSocket(this: Socket): void {
  this.end();
}
