/**
 * The viewer side served by the gateway (docs/design.md "Viewers in the browser"): the overlay embed page
 * `/embed/v1/overlays` (made to be framed by any site, over its player), the chat panel page
 * `/embed/v1/chat`, the watch page `/embed/v1/watch` (also served as the demo, `/embed/v1/demo`), and the
 * browser scripts `/sdk/v1/embed.js`, `/sdk/v1/chat.js`, `/sdk/v1/player.js` and `/sdk/v1/watch.js` bundled
 * from embed/ at build time. The pages are static (their scripts read the query string), so nothing a
 * caller sends is echoed into HTML except the watch page's IDs, which are checked and escaped. The scripts
 * hold nothing secret: any origin may load them.
 */
import express, { type Response, type Router } from 'express';
import { restErrorBody } from '../../shared/errors';
import { readFile } from 'node:fs/promises';
import { faviconPath } from '../../shared/paths';
import { routeTemplate } from '../../shared/metrics';
import { bundleServer } from './bundles';
import { OVERLAY_STYLE } from './embedStyles';
import { watchPage } from './watchPage';

/** The bundles by the name they are served under. */
const SCRIPTS = ['embed.js', 'chat.js', 'player.js', 'watch.js'] as const;

// Pages: only the page's own scripts run (inline script is refused whatever a template holds), images and
// media from anywhere, and any site may frame the embed.
const PAGE_POLICY: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'connect-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': '* data: blob:',
  'media-src': '* blob:',
  'font-src': '* data:',
  'frame-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': '*',
};
const cspOf = (policy: Record<string, string>) =>
  Object.entries(policy)
    .map(([directive, sources]) => `${directive} ${sources}`)
    .join('; ');
const PAGE_CSP = cspOf(PAGE_POLICY);
// The watch page's player loads a stream from any http(s) host: hls.js fetches the manifest and segments,
// and plays them from a `blob:` source through a worker of its own.
const WATCH_CSP = cspOf({ ...PAGE_POLICY, 'connect-src': "'self' http: https:", 'media-src': 'http: https: blob:', 'worker-src': 'blob:' });

const ID = /^[\w-]{1,128}$/;

const OVERLAYS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph overlays</title><link rel="icon" href="/favicon.ico"><style>${OVERLAY_STYLE}</style></head>
<body><div id="sg-overlays" aria-live="polite"></div><script src="/sdk/v1/embed.js"></script></body></html>
`;

const CHAT_STYLE = `
html, body { margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; color: #e6e8f0; background: #10131d; }
#sg-chat { display: flex; flex-direction: column; height: 100%; }
#sg-chat-system { padding: 10px 12px; border-bottom: 1px solid #262b3d; }
#sg-chat-welcome { margin: 0 0 4px; }
#sg-chat-rules { color: #ffd466; font-size: 12px; }
#sg-chat-messages { flex: 1; overflow-y: auto; list-style: none; margin: 0; padding: 8px 12px; }
.sg-chat-message { margin: 3px 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.sg-chat-name { font-weight: 600; color: #9fb4ff; margin-right: 6px; }
.sg-chat-message[data-admin] .sg-chat-name { color: #ffb400; }
#sg-chat-refusal { margin: 0; padding: 6px 12px; color: #ffb4b4; background: #3a1620; font-size: 13px; }
#sg-chat-send { display: flex; gap: 6px; padding: 8px 12px; border-top: 1px solid #262b3d; }
#sg-chat-send[hidden] { display: none; }
#sg-chat-text { flex: 1; font: inherit; color: inherit; background: #1a1f2e; border: 1px solid #2f3650; border-radius: 6px; padding: 6px 8px; }
#sg-chat-submit, #sg-chat-login { font: inherit; font-weight: 600; color: #111; background: #ffb400; border: 0; border-radius: 6px; padding: 6px 14px; cursor: pointer; }
#sg-chat-submit:disabled { opacity: 0.5; cursor: default; }
#sg-chat-login { margin: 8px 12px; }
.sg-chat-pending { opacity: 0.6; }
.sg-chat-held { margin-left: 6px; font-size: 12px; color: #ffd466; }
#sg-chat-closed { margin: 0; padding: 10px 12px; border-top: 1px solid #262b3d; color: #9fb4ff; font-weight: 600; text-align: center; }
#sg-chat-warning { display: flex; gap: 8px; align-items: center; padding: 8px 12px; color: #ffe2a8; background: #3a2a10; font-size: 13px; }
#sg-chat-warning[hidden] { display: none; }
#sg-chat-ack { font: inherit; font-weight: 600; color: #111; background: #ffb400; border: 0; border-radius: 6px; padding: 4px 10px; cursor: pointer; }

#sg-chat-viewers { margin: 4px 0 0; color: #8b93ad; font-size: 12px; }
#sg-chat-pinned { margin: 8px 0 0; padding: 6px 8px; background: #1f2638; border-left: 3px solid #ffb400; border-radius: 4px; overflow-wrap: anywhere; }
.sg-chat-pinned-label { margin-right: 6px; }
.sg-chat-reply-to { display: block; font-size: 12px; color: #8b93ad; border-left: 2px solid #3a4260; padding-left: 6px; margin-bottom: 2px; }
.sg-chat-reply-name { font-weight: 600; margin-right: 4px; }
.sg-chat-reply { margin-left: 6px; font: inherit; font-size: 11px; color: #8b93ad; background: none; border: 0; cursor: pointer; padding: 0; }
#sg-chat-replying { margin: 0; padding: 4px 12px; font-size: 12px; color: #9fb4ff; background: #161b29; }
#sg-chat-reply-cancel { font: inherit; color: inherit; background: none; border: 0; cursor: pointer; }
#sg-chat-reactions { display: flex; flex-wrap: wrap; gap: 4px; padding: 6px 12px 0; }
#sg-chat-reactions[hidden] { display: none; }
.sg-chat-react { font-size: 18px; background: #1a1f2e; border: 1px solid #2f3650; border-radius: 6px; padding: 2px 6px; cursor: pointer; }
#sg-chat-floats { position: relative; height: 0; overflow: visible; pointer-events: none; }
.sg-chat-float { position: absolute; bottom: 0; font-size: 20px; animation: sg-float 2.5s ease-out forwards; }
@keyframes sg-float { from { transform: translateY(0); opacity: 1; } to { transform: translateY(-160px); opacity: 0; } }`;

const CHAT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph chat</title><style>${CHAT_STYLE}</style></head>
<body><div id="sg-chat">
<header id="sg-chat-system"><p id="sg-chat-welcome" hidden></p><a id="sg-chat-rules" target="_blank" rel="noopener noreferrer" hidden>Chat rules</a>
<p id="sg-chat-viewers" hidden></p><div id="sg-chat-pinned" role="note" hidden></div></header>
<ol id="sg-chat-messages" aria-live="polite"></ol>
<div id="sg-chat-floats" aria-hidden="true"></div>
<p id="sg-chat-refusal" role="alert" hidden></p>
<div id="sg-chat-warning" role="alert" hidden><span id="sg-chat-warning-text"></span><button id="sg-chat-ack" type="button">Acknowledge</button></div>
<p id="sg-chat-closed" hidden></p>
<div id="sg-chat-reactions" role="group" aria-label="Reactions" hidden></div>
<p id="sg-chat-replying" hidden><span id="sg-chat-replying-text"></span> <button id="sg-chat-reply-cancel" type="button" aria-label="Cancel the reply">×</button></p>
<form id="sg-chat-send" hidden><input id="sg-chat-text" maxlength="500" autocomplete="off" aria-label="Message"><button id="sg-chat-submit" type="submit">Send</button></form>
<button id="sg-chat-login" type="button" hidden></button>
</div><script src="/sdk/v1/chat.js"></script></body></html>
`;

/** The page's query: siteId required, channelId optional, both IDs; else 400 naming the field. */
function readIds(query: Record<string, unknown>, res: Response): { siteId: string; channelId: string | null } | null {
  const { siteId, channelId } = query;
  if (typeof siteId !== 'string' || !ID.test(siteId)) {
    res.status(400).json(restErrorBody('siteId is required (the site ID, letters, digits, - and _)'));
    return null;
  }
  if (channelId !== undefined && (typeof channelId !== 'string' || !ID.test(channelId))) {
    res.status(400).json(restErrorBody('channelId must be a channel ID'));
    return null;
  }
  return { siteId, channelId: channelId ?? null };
}

/** The router of the embed, the demo and the SDK scripts. */
export function createEmbedRouter(): Router {
  const router = express.Router();
  const serveBundle = bundleServer();

  const page = (res: Response, html: string, csp = PAGE_CSP) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('html').send(html);
  };

  router.get('/embed/v1/overlays', routeTemplate('/embed/v1/overlays'), (req, res) => {
    if (readIds(req.query, res)) page(res, OVERLAYS_PAGE);
  });
  router.get('/embed/v1/chat', routeTemplate('/embed/v1/chat'), (req, res) => {
    const { panelId } = req.query;
    if (!readIds(req.query, res)) return;
    if (typeof panelId !== 'string' || !ID.test(panelId)) {
      res.status(400).json(restErrorBody('panelId is required (the chat panel ID)'));
      return;
    }
    page(res, CHAT_PAGE);
  });
  // The demo grew into the watch page: the same page at both paths, so the demo's old links still work.
  for (const path of ['/embed/v1/watch', '/embed/v1/demo']) {
    router.get(path, routeTemplate(path), (req, res) => {
      const ids = readIds(req.query, res);
      if (!ids) return;
      if (!ids.channelId) {
        res.status(400).json(restErrorBody('channelId is required (the channel to watch)'));
        return;
      }
      page(res, watchPage(ids.siteId, ids.channelId), WATCH_CSP);
    });
  }
  // Browsers ask every origin for its icon; without one, each page visit logs a 404 in the console.
  let favicon: Promise<Buffer> | null = null;
  router.get('/favicon.ico', routeTemplate('/favicon.ico'), async (_req, res) => {
    favicon ??= readFile(faviconPath).catch((error: Error) => {
      favicon = null;
      throw error;
    });
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('image/x-icon').send(await favicon);
  });
  for (const name of SCRIPTS) {
    router.get(`/sdk/v1/${name}`, routeTemplate(`/sdk/v1/${name}`), async (req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
      await serveBundle(req, res, name, 'application/javascript; charset=utf-8');
    });
  }
  return router;
}
