/**
 * The watch page (`/embed/v1/watch`, and `/embed/v1/demo`, which grew into it): the channel's player, the
 * show's moments over it (countdown, reconnecting, ended), the overlay layer over both (a broadcast before
 * the show shows over its countdown), a refusal over everything (its form stays reachable), and the
 * channel's chat panel beside it. The markup is static but for the two IDs (checked
 * against a strict pattern, and escaped besides); `/sdk/v1/watch.js` (embed/watch.ts) does the rest.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

const WATCH_STYLE = `
html, body { margin: 0; min-height: 100%; background: #0b0d14; color: #d8dbe6; font: 15px/1.4 system-ui, sans-serif; }
#sg-watch { box-sizing: border-box; width: min(1280px, 100%); margin: 0 auto; padding: 16px; display: flex; gap: 16px; align-items: flex-start; }
.sg-watch-main { flex: 1; min-width: 0; }
.stage { position: relative; aspect-ratio: 16 / 9; border-radius: 12px; overflow: hidden;
  background: radial-gradient(circle at 30% 30%, #2b3a67, #11162a 70%); }
.stage video { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; background: #000; }
.stage video:not([data-source]) { visibility: hidden; }
.stage iframe { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; }
.sg-watch-screen { position: absolute; inset: 0; display: grid; place-content: center; gap: 10px; padding: 24px; text-align: center; }
#sg-watch[data-state="reconnecting"] #sg-watch-message, #sg-watch-refusal { background: rgba(11, 13, 20, 0.82); }
.sg-watch-screen[hidden] { display: none; }
.sg-watch-screen h2 { margin: 0; font-size: 22px; color: #fff; }
.sg-watch-screen p { margin: 0; }
#sg-watch-countdown [data-countdown-left] { font-size: 40px; font-weight: 700; color: #ffd466; font-variant-numeric: tabular-nums; }
#sg-watch-status { position: absolute; top: 14px; left: 14px; z-index: 1; pointer-events: none; color: #fff; font-weight: 700; font-size: 12px;
  padding: 3px 8px; border-radius: 4px; letter-spacing: 0.06em; text-transform: uppercase; background: #3a4160; }
#sg-watch-status:empty { display: none; }
#sg-watch[data-state="live"] #sg-watch-status { background: #e5263f; }
#sg-watch[data-state="reconnecting"] #sg-watch-status, #sg-watch[data-state="starting"] #sg-watch-status { background: #b7791f; }
.sg-watch-bar { display: flex; gap: 12px; align-items: center; margin-top: 10px; color: #8d93a8; font-size: 13px; }
#sg-watch-title { flex: 1; margin: 0; font-size: 16px; font-weight: 600; color: #d8dbe6; }
#sg-watch-note { margin: 0; color: #ffd466; }
button { font: inherit; font-weight: 600; color: #111; background: #ffb400; border: 0; border-radius: 6px; padding: 6px 14px; cursor: pointer; }
button:focus-visible, input:focus-visible { outline: 3px solid #fff; outline-offset: 2px; }
#sg-watch-password { display: flex; gap: 8px; justify-content: center; }
#sg-watch-password[hidden], #sg-watch-login[hidden], #sg-watch-sound[hidden] { display: none; }
#sg-watch-password input { font: inherit; color: inherit; background: #1a1f2e; border: 1px solid #2f3650; border-radius: 6px; padding: 6px 8px; }
#sg-watch-chat { width: 340px; flex: none; height: min(70vh, 640px); border-radius: 12px; overflow: hidden; }
#sg-watch-chat[hidden] { display: none; }
#sg-watch-chat iframe { width: 100%; height: 100%; border: 0; }
@media (max-width: 800px) { #sg-watch { flex-direction: column; } #sg-watch-chat { width: 100%; } }`;

/** The watch page of `channelId` on `siteId` (both already checked to be IDs). */
export function watchPage(siteId: string, channelId: string): string {
  const overlays = new URLSearchParams({ siteId, channelId }).toString();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph — watch</title><link rel="icon" href="/favicon.ico"><style>${WATCH_STYLE}</style></head>
<body><main id="sg-watch" data-state="loading">
<div class="sg-watch-main">
<div class="stage">
<video id="player" muted autoplay playsinline></video>
<section id="sg-watch-countdown" class="sg-watch-screen" hidden><h2 data-countdown-title></h2><p data-countdown-left></p></section>
<section id="sg-watch-message" class="sg-watch-screen" role="status" hidden><h2></h2></section>
<iframe id="overlays" title="overlays" src="/embed/v1/overlays?${escapeHtml(overlays)}"></iframe>
<section id="sg-watch-refusal" class="sg-watch-screen" role="alert" hidden><h2></h2><p id="sg-watch-refusal-message"></p>
<form id="sg-watch-password" hidden><input type="password" aria-label="Channel password" autocomplete="current-password" required><button type="submit">Watch</button></form>
<p><button id="sg-watch-login" type="button" hidden>Sign in</button></p></section>
<span id="sg-watch-status"></span>
</div>
<div class="sg-watch-bar"><p id="sg-watch-title"></p><p id="sg-watch-note" role="status"></p><button id="sg-watch-sound" type="button" hidden>Sound on</button></div>
</div>
<aside id="sg-watch-chat" hidden><iframe title="chat"></iframe></aside>
</main><script src="/sdk/v1/watch.js"></script></body></html>
`;
}
