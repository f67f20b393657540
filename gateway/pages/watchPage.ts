/**
 * The watch page (`/embed/v1/watch`, and `/embed/v1/demo`, which grew into it): the channel's header (logo,
 * the viewer's sign-in), its player, the show's moments over it (countdown, reconnecting, ended), the
 * overlay layer over both (a broadcast before the show shows over its countdown), a refusal over everything
 * (its form stays reachable), the channel's sidebar of panels beside it (tabs under it on a narrow screen),
 * the welcome screen, and the sign-in dialog. The markup is static but for the two IDs (checked
 * against a strict pattern, and escaped besides); `/sdk/v1/watch.js` (embed/watch.ts) does the rest.
 */

import { WATCH_STYLE } from './watchStyles';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

/** The watch page of `channelId` on `siteId` (both already checked to be IDs). */
export function watchPage(siteId: string, channelId: string): string {
  const overlays = new URLSearchParams({ siteId, channelId }).toString();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stagegraph — watch</title><link rel="icon" href="/favicon.ico"><style>${WATCH_STYLE}</style></head>
<body><div id="sg-watch-page">
<header id="sg-watch-header"><img id="sg-watch-logo" alt=""><div id="sg-watch-account"><span id="sg-watch-who" hidden></span>
<button id="sg-watch-signin-open" type="button">Sign in</button><button id="sg-watch-signout" type="button" hidden>Sign out</button></div></header>
<main id="sg-watch" data-state="loading">
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
<div class="sg-watch-bar"><p id="sg-watch-title"></p><p id="sg-watch-note" role="status"></p><button id="sg-watch-sound" type="button" hidden>Sound on</button><input id="sg-watch-seek" type="range" aria-label="Rewind the live show" step="1" hidden><button id="sg-watch-live" type="button" aria-label="Go to live" hidden>Live</button></div>
</div>
<aside id="sg-watch-sidebar" aria-label="Channel panels" hidden><div id="sg-watch-tabs" role="tablist" aria-label="Panels"></div></aside>
</main></div>
<div id="sg-watch-welcome" hidden><img alt="Welcome"><button type="button">Skip</button></div>
<dialog id="sg-watch-signin" aria-labelledby="sg-watch-signin-title"><form method="dialog">
<h2 id="sg-watch-signin-title">Sign in</h2><p id="sg-watch-signin-reason"></p>
<label>E-mail <input name="email" type="email" autocomplete="email" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<p id="sg-watch-signin-error" role="alert"></p>
<div class="sg-dialog-actions"><button value="cancel" formnovalidate>Cancel</button><button value="signin">Sign in</button></div>
</form></dialog>
<p id="sg-watch-toast" role="status"></p>
<script src="/sdk/v1/watch.js"></script></body></html>
`;
}
