/**
 * A subgraph's `POST /graphql` answered at the door of its HTTP server (shared/httpServer.ts), before express:
 * the body read and parsed once, the operation run by the same Apollo Server pipeline (the same context, errors
 * and status), the answer written whole. Only the gateway calls a subgraph, and a deep plan sends each subgraph
 * several fetches per request: express's router, its JSON body parser and its response helpers (which also hash
 * every answer for an ETag nothing reads) were a part of the subgraph process's work the gateway's peers pay too,
 * and it is the busier process of the two when subgraphs run on their own (docs/benchmarks.md, the deep query).
 *
 * Everything else goes on to the express app untouched: other paths and methods, a body that is not JSON or is
 * larger than the limit (express answers those as before), and every request while tracing is on (the app's
 * middleware opens the request's span).
 */
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { searchOf } from './graphqlMiddleware';
import type { FrontDoor } from './httpServer';
import { runUntraced, tracingEnabled } from './tracing';
import { nextTurn } from './turns';

/** Reads a request's whole body, or null when it grows past `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limit) chunks.push(chunk);
    });
    req.once('end', () => resolve(length > limit ? null : Buffer.concat(chunks, length).toString('utf8')));
    req.once('error', reject);
  });
}

function answer(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Iterable<[string, string]> = [['content-type', 'application/json; charset=utf-8']],
): void {
  for (const [key, value] of headers) res.setHeader(key, value);
  // Encoded once: its length and the bytes written (answers of a deep plan are tens of KB).
  const bytes = Buffer.from(body);
  res.setHeader('content-length', bytes.length);
  res.statusCode = status;
  res.end(bytes);
}

const jsonError = (message: string) => `${JSON.stringify({ errors: [{ message }] })}\n`;

/** The door for `server` (started) at `/graphql`; `context` builds a request's context from its headers (or throws, as the app's does). */
export function subgraphDoor<TContext extends BaseContext>(
  server: ApolloServer<TContext>,
  options: { limitBytes: number; context: (headers: IncomingHttpHeaders) => Promise<TContext> },
): FrontDoor {
  return (req, res) => {
    if (req.method !== 'POST' || tracingEnabled()) return false;
    const url = req.url ?? '';
    if (url !== '/graphql' && !url.startsWith('/graphql?')) return false;
    if (!req.headers['content-type']?.startsWith('application/json')) return false;
    if (Number(req.headers['content-length'] ?? 0) > options.limitBytes) return false;
    return serve(req, res, server, options).then(() => true);
  };
}

async function serve<TContext extends BaseContext>(
  req: IncomingMessage,
  res: ServerResponse,
  server: ApolloServer<TContext>,
  options: { limitBytes: number; context: (headers: IncomingHttpHeaders) => Promise<TContext> },
): Promise<void> {
  let text: string | null;
  try {
    text = await readBody(req, options.limitBytes);
  } catch {
    res.destroy();
    return;
  }
  if (text === null) return answer(res, 413, jsonError(`the request body is larger than ${options.limitBytes} bytes`));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(res, 400, jsonError('the request body is not valid JSON'));
  }
  // The request runs in its own turn of the event loop, after those that came before it (shared/turns.ts).
  await nextTurn();
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const traceparent = req.headers.traceparent;
  const response = await runUntraced(typeof traceparent === 'string' ? traceparent : undefined, () =>
    server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: searchOf(req.url ?? ''), body },
      context: () => options.context(req.headers),
    }),
  );
  if (response.body.kind === 'complete') return answer(res, response.status ?? 200, response.body.string, response.headers);
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.statusCode = response.status ?? 200;
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
