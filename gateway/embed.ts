/**
 * The viewer side served by the gateway (DESIGN "Viewers in the browser"): the overlay embed page
 * `/embed/v1/overlays` (made to be framed by any site, over its player), the chat panel page
 * `/embed/v1/chat`, the demo page `/embed/v1/demo`, and the browser scripts `/sdk/v1/embed.js`,
 * `/sdk/v1/chat.js` and `/sdk/v1/player.js` bundled from embed/ at build time.
 * The pages are static (their scripts read the query string), so nothing a caller sends is echoed into
 * HTML except the demo's, which is escaped. The scripts hold nothing secret: any origin may load them.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type Response, type Router } from 'express';
import { restErrorBody } from '../shared/errors';
import { sdkBuildDir } from '../shared/paths';
import { routeTemplate } from '../shared/metrics';

/** The bundles by the name they are served under. */
const SCRIPTS = ['embed.js', 'chat.js', 'player.js'] as const;

// Pages: only the page's own scripts run (inline script is refused whatever a template holds), images and
// media from anywhere, and any site may frame the embed.
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob:',
  'media-src * blob:',
  'font-src * data:',
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors *',
].join('; ');

const ID = /^[\w-]{1,128}$/;

const OVERLAY_STYLE = `
html, body { margin: 0; height: 100%; background: transparent; overflow: hidden; font: 15px/1.4 system-ui, sans-serif; }
#sg-overlays { position: fixed; inset: 0; pointer-events: none; display: flex; flex-direction: column; justify-content: flex-end;
  align-items: flex-start; gap: 10px; padding: 5%; box-sizing: border-box; }
.sg-overlay { pointer-events: auto; max-width: 70%; color: #fff; background: rgba(12, 16, 32, 0.86); border-left: 4px solid #ffb400;
  border-radius: 10px; padding: 12px 16px; box-shadow: 0 6px 24px rgba(0, 0, 0, 0.35); animation: sg-in 0.25s ease-out; }
.sg-overlay img { max-width: 100%; }
.sg-overlay a { color: #ffd466; }
.sg-poll-answers { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 10px; }
.sg-poll-answer { font: inherit; color: #111; background: #ffd466; border: 0; border-radius: 6px; padding: 6px 12px; cursor: pointer; }
.sg-poll-answer:disabled { cursor: default; opacity: 0.55; }
.sg-poll-answer[aria-pressed="true"] { opacity: 1; outline: 2px solid #fff; }
.sg-poll-results { list-style: none; margin: 10px 0 0; padding: 0; min-width: 240px; }
.sg-poll-result { position: relative; isolation: isolate; display: flex; justify-content: space-between; gap: 12px; padding: 3px 8px; margin-top: 4px; border-radius: 4px; overflow: hidden; }
.sg-poll-bar { position: absolute; inset: 0 auto 0 0; background: rgba(255, 180, 0, 0.3); z-index: -1; transition: width 0.3s; }
.sg-poll-result[data-mine] .sg-poll-text::after { content: " ✓ you"; color: #ffd466; }
.sg-poll-result[data-correct] { outline: 2px solid #3ccf6e; }
.sg-poll-total { margin: 6px 0 0; font-size: 12px; color: #aab; }
.sg-cta { margin-top: 10px; font: inherit; font-weight: 600; color: #111; background: #ffb400; border: 0; border-radius: 6px; padding: 6px 14px; cursor: pointer; }
@keyframes sg-in { from { opacity: 0; transform: translateY(12px); } to { opacity: 1; transform: none; } }`;

const OVERLAYS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph overlays</title><style>${OVERLAY_STYLE}</style></head>
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
#sg-chat-login { margin: 8px 12px; }`;

const CHAT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph chat</title><style>${CHAT_STYLE}</style></head>
<body><div id="sg-chat">
<header id="sg-chat-system"><p id="sg-chat-welcome" hidden></p><a id="sg-chat-rules" target="_blank" rel="noopener noreferrer" hidden>Chat rules</a></header>
<ol id="sg-chat-messages" aria-live="polite"></ol>
<p id="sg-chat-refusal" role="alert" hidden></p>
<form id="sg-chat-send" hidden><input id="sg-chat-text" maxlength="500" autocomplete="off" aria-label="Message"><button id="sg-chat-submit" type="submit">Send</button></form>
<button id="sg-chat-login" type="button" hidden></button>
</div><script src="/sdk/v1/chat.js"></script></body></html>
`;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

function demoPage(siteId: string, channelId: string | null, videoSrc: string | null): string {
  const query = new URLSearchParams({ siteId, ...(channelId ? { channelId } : {}) });
  const source = videoSrc ? ` src="${escapeHtml(videoSrc)}" controls autoplay loop` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph demo</title><style>
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #0b0d14; color: #d8dbe6; font: 15px/1.4 system-ui, sans-serif; }
main { width: min(960px, 94vw); }
h1 { font-size: 18px; font-weight: 600; margin: 0 0 12px; }
.stage { position: relative; aspect-ratio: 16 / 9; border-radius: 12px; overflow: hidden;
  background: radial-gradient(circle at 30% 30%, #2b3a67, #11162a 70%); }
.stage video { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; }
.stage iframe { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; }
.live { position: absolute; top: 14px; left: 14px; background: #e5263f; color: #fff; font-weight: 700; font-size: 12px; padding: 3px 8px; border-radius: 4px; letter-spacing: 0.06em; }
p { color: #8d93a8; font-size: 13px; }
code { color: #ffd466; }
</style></head>
<body><main>
<h1>stagegraph — overlays over a player</h1>
<div class="stage"><video id="player" muted playsinline${source}></video><span class="live">LIVE</span>
<iframe id="overlays" title="overlays" src="/embed/v1/overlays?${escapeHtml(query.toString())}"></iframe></div>
<p>Site <code>${escapeHtml(siteId)}</code>${channelId ? `, channel <code>${escapeHtml(channelId)}</code>` : ' (site-wide broadcasts)'}: broadcast an overlay with
<code>POST /overlay/v1/broadcast/{id}</code> and it appears here.</p>
</main></body></html>
`;
}

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
  return { siteId, channelId: (channelId as string | undefined) ?? null };
}

const isHttpUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\//i.test(value) && value.length <= 2048;

interface Bundle {
  body: Buffer;
  etag: string;
}

/** The router of the embed, the demo and the SDK scripts. */
export function createEmbedRouter(): Router {
  const router = express.Router();
  const bundles = new Map<string, Promise<Bundle>>();
  const bundle = (name: string) => {
    let loaded = bundles.get(name);
    if (!loaded) {
      loaded = readFile(join(sdkBuildDir, name)).then((body) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }));
      // A missing bundle is read again next time (after `npm run generate`), not remembered as missing.
      loaded.catch(() => bundles.delete(name));
      bundles.set(name, loaded);
    }
    return loaded;
  };

  const page = (res: Response, html: string) => {
    res.setHeader('Content-Security-Policy', PAGE_CSP);
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
  router.get('/embed/v1/demo', routeTemplate('/embed/v1/demo'), (req, res) => {
    const ids = readIds(req.query, res);
    if (!ids) return;
    if (req.query.src !== undefined && !isHttpUrl(req.query.src)) {
      res.status(400).json(restErrorBody('src must be an http(s) URL of a video'));
      return;
    }
    page(res, demoPage(ids.siteId, ids.channelId, (req.query.src as string | undefined) ?? null));
  });
  for (const name of SCRIPTS) {
    router.get(`/sdk/v1/${name}`, routeTemplate(`/sdk/v1/${name}`), async (req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      let loaded: Bundle;
      try {
        loaded = await bundle(name);
      } catch {
        res.status(503).json(restErrorBody(`${name} is not built: run npm run generate`));
        return;
      }
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.setHeader('ETag', loaded.etag);
      if (req.headers['if-none-match'] === loaded.etag) {
        res.status(304).end();
        return;
      }
      res.type('application/javascript; charset=utf-8').send(loaded.body);
    });
  }
  return router;
}
