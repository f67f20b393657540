/**
 * Apollo Server on express 5, for the gateway and every subgraph: what @as-integrations/express5 does,
 * without its `url.parse(req.url)` per request. That legacy parser, and the deprecation check Node runs
 * on each call (a walk of the stack), cost about 5 % of the CPU of a simple query through the gateway;
 * the query string is all Apollo Server needs from the URL.
 */
import { HeaderMap, type ApolloServer, type BaseContext, type ContextFunction } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import { nextTurn } from './turns';

/** What the context function is given: express's request and response. */
export interface ExpressContextArgument {
  req: Request;
  res: Response;
}

/** `?…` of a request URL, or '' (what `url.parse(url).search ?? ''` gives, fragment excluded). */
export function searchOf(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return '';
  const hash = url.indexOf('#', start);
  return hash < 0 ? url.slice(start) : url.slice(start, hash);
}

/** Serves `server` (started) at the mount point; express.json() must run first. */
export function graphqlMiddleware<TContext extends BaseContext>(
  server: ApolloServer<TContext>,
  options: { context: ContextFunction<[ExpressContextArgument], TContext> },
): RequestHandler {
  server.assertStarted('graphqlMiddleware()');
  return async (req, res) => {
    if (!('body' in req)) {
      res.status(500).send('`req.body` is not set: the json middleware must run before Apollo Server.');
      return;
    }
    // The request runs in its own turn of the event loop, after those that came before it (shared/turns.ts).
    await nextTurn();
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: searchOf(req.url), body: req.body },
      context: () => options.context({ req, res }),
    });
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status || 200;
    if (response.body.kind === 'complete') {
      res.send(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) {
      res.write(chunk);
      if (typeof (res as { flush?: unknown }).flush === 'function') (res as unknown as { flush(): void }).flush();
    }
    res.end();
  };
}
