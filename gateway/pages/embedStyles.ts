/**
 * The overlay layer's stylesheet (inlined in `/embed/v1/overlays`). The layer sits over any video, bright
 * or dark: text stands on a nearly opaque panel, so its contrast holds whatever is under it (WCAG AA,
 * 4.5:1, measured in test/polls/embed-poll-states.part.ts over white and over black). Right and wrong are told
 * in words and by the shape of the row's edge, with colour on top, never by colour alone.
 */

/** A poll's card (embed/pollCard.ts), in an overlay or in a watch page's multiple-choice panel. */
export const POLL_STYLE = `
.sg-poll { width: 360px; max-width: 100%; margin-top: 8px; }
.sg-poll-question { margin: 0 0 8px; font-size: 18px; font-weight: 700; line-height: 1.3; }
.sg-poll-results { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.sg-poll-line { display: grid; grid-template-columns: minmax(0, 1fr) auto; grid-template-areas: "text figures" "tag tag" "track track";
  align-items: baseline; column-gap: 12px; padding: 6px 10px 8px; border: 2px solid rgba(255, 255, 255, 0.22); border-radius: 8px; text-align: left; }
.sg-poll-text { grid-area: text; font-weight: 600; overflow-wrap: anywhere; }
.sg-poll-figures { grid-area: figures; white-space: nowrap; }
.sg-poll-share { font-weight: 700; font-variant-numeric: tabular-nums; }
.sg-poll-count { margin-left: 6px; font-size: 13px; color: #c8ccd8; font-variant-numeric: tabular-nums; }
.sg-poll-tag { grid-area: tag; justify-self: start; margin-top: 4px; padding: 1px 8px; border-radius: 999px; font-size: 13px; font-weight: 700; }
.sg-poll-icon:not(:empty) { margin-right: 4px; }
.sg-poll-track { grid-area: track; display: block; height: 8px; margin-top: 6px; border-radius: 4px; background: rgba(255, 255, 255, 0.16); overflow: hidden; }
.sg-poll-bar { display: block; height: 100%; width: 0; background: #ffd466; border-radius: 4px; transition: width 0.4s ease-out; }
.sg-poll-result[data-mine] .sg-poll-line { border-color: #9ed0ff; }
.sg-poll-result[data-mine] .sg-poll-tag { color: #0b2540; background: #9ed0ff; }
.sg-poll-result[data-mine] .sg-poll-bar { background: #9ed0ff; }
.sg-poll[data-state="revealed"] .sg-poll-bar { background: rgba(255, 255, 255, 0.45); }
.sg-poll-result[data-correct] .sg-poll-line { border: 3px solid #6fe39a; }
.sg-poll-result[data-correct] .sg-poll-tag { color: #06301a; background: #6fe39a; }
.sg-poll[data-state="revealed"] .sg-poll-result[data-correct] .sg-poll-bar { background: #6fe39a; }
.sg-poll-result[data-verdict="wrong"] .sg-poll-line { border: 3px dashed #ffa3a3; }
.sg-poll-result[data-verdict="wrong"] .sg-poll-tag { color: #450a0a; background: #ffa3a3; }
.sg-poll[data-state="revealed"] .sg-poll-result[data-verdict="wrong"] .sg-poll-bar { background: #ffa3a3; }
.sg-poll-choice { display: block; width: 100%; padding: 0; font: inherit; color: inherit; background: none; border: 0; border-radius: 8px; cursor: pointer; }
.sg-poll-choice .sg-poll-line { border-color: #ffd466; background: rgba(255, 212, 102, 0.1); }
.sg-poll-choice:hover .sg-poll-line { background: rgba(255, 212, 102, 0.2); }
.sg-poll-choice[aria-disabled="true"] { cursor: progress; }
.sg-poll-total { margin: 8px 0 0; font-size: 13px; color: #c8ccd8; }
.sg-poll-status { margin: 4px 0 0; font-weight: 600; }
.sg-poll-status[data-poll-status="right"] { color: #7ee2a0; }
.sg-poll-status[data-poll-status="wrong"] { color: #ffb3b3; }
.sg-poll-status[data-poll-status="right"]::before { content: "✓ "; }
.sg-poll-status[data-poll-status="wrong"]::before { content: "✗ "; }
.sg-poll-announce { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }`;

/** Inlined as the page's only `<style>` (the page's CSP allows inline styles, never inline script). */
export const OVERLAY_STYLE = `
html, body { margin: 0; height: 100%; background: transparent; overflow: hidden; font: 15px/1.4 system-ui, sans-serif; }
#sg-overlays { position: fixed; inset: 0; pointer-events: none; display: flex; flex-direction: column; justify-content: flex-end;
  align-items: flex-start; gap: 10px; padding: 5%; box-sizing: border-box; }
#sg-overlays [hidden] { display: none !important; }
.sg-overlay { pointer-events: auto; max-width: 70%; color: #fff; background: rgba(10, 13, 26, 0.92); border-left: 4px solid #ffb400;
  border-radius: 10px; padding: 12px 16px; box-shadow: 0 6px 24px rgba(0, 0, 0, 0.35); animation: sg-in 0.25s ease-out; }
.sg-overlay img { max-width: 100%; }
.sg-overlay a { color: #ffd466; }
.sg-overlay button:focus-visible, .sg-poll:focus-visible { outline: 3px solid #fff; outline-offset: 2px; }
${POLL_STYLE}
.sg-cta { margin-top: 10px; font: inherit; font-weight: 600; color: #111; background: #ffb400; border: 0; border-radius: 6px; padding: 6px 14px; cursor: pointer; }
@keyframes sg-in { from { opacity: 0; transform: translateY(12px); } to { opacity: 1; transform: none; } }
@media (prefers-reduced-motion: reduce) { .sg-overlay { animation: none; } .sg-poll-bar { transition: none; } }`;
