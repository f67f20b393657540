/**
 * `GET /graphiql`: GraphiQL for the people who build on stagegraph, from this origin alone: the page, its
 * script and its CSS (fonts inlined) are bundled from embed/graphiql.ts at build time and served here,
 * and the IDE talks only to this origin's /graphql (HTTP, and graphql-ws for subscriptions). The page
 * holds no credential: the developer's site ID and developer key go in its headers editor, and the
 * gateway's own rule (gateway/documentLimits.ts) answers introspection to callers with D or J only.
 * `GRAPHIQL=off` leaves it out.
 */
import express, { type Router } from 'express';
import { routeTemplate } from '../../shared/metrics';
import { bundleServer } from './bundles';

// This origin only: no inline script, no framing (an IDE holding a developer key is no widget); GraphiQL
// and its editor set inline styles, and its icons and fonts are data: URLs.
const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph GraphiQL</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/graphiql/graphiql.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style></head>
<body><div id="graphiql"></div><script src="/graphiql/graphiql.js"></script></body></html>
`;

export function createGraphiqlRouter(): Router {
  const router = express.Router();
  const serveBundle = bundleServer();
  router.get('/graphiql', routeTemplate('/graphiql'), (_req, res) => {
    res.setHeader('Content-Security-Policy', GRAPHIQL_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(GRAPHIQL_PAGE);
  });
  router.get('/graphiql/graphiql.js', routeTemplate('/graphiql/graphiql.js'), (req, res) =>
    serveBundle(req, res, 'graphiql.js', 'application/javascript; charset=utf-8'),
  );
  router.get('/graphiql/graphiql.css', routeTemplate('/graphiql/graphiql.css'), (req, res) => serveBundle(req, res, 'graphiql.css', 'text/css; charset=utf-8'));
  return router;
}
