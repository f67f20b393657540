/**
 * The watch page's stylesheet (inlined in `/embed/v1/watch`): the stage and its screens, the bar under it,
 * the channel's header and welcome screen, the sidebar of panels (stacked beside the video; tabs under it
 * on narrow screens, at most 480 px), and the sign-in dialog. Text keeps WCAG AA contrast in every state
 * (checked by axe-core in test/show/watch-channel.part.ts); the channel's accent colour is a custom
 * property the script sets, with the text on it chosen by its luminance.
 */
import { POLL_STYLE } from './embedStyles';

export const WATCH_STYLE = `
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
#sg-watch[data-state="live"] #sg-watch-status { background: #c8102e; }
#sg-watch[data-state="reconnecting"] #sg-watch-status, #sg-watch[data-state="starting"] #sg-watch-status { background: #7c5210; }
.sg-watch-bar { display: flex; gap: 12px; align-items: center; margin-top: 10px; color: #8d93a8; font-size: 13px; }
#sg-watch-title { flex: 1; margin: 0; font-size: 16px; font-weight: 600; color: #d8dbe6; }
#sg-watch-note { margin: 0; color: #ffd466; }
button { font: inherit; font-weight: 600; color: #111; background: #ffb400; border: 0; border-radius: 6px; padding: 6px 14px; cursor: pointer; }
button:focus-visible, input:focus-visible { outline: 3px solid #fff; outline-offset: 2px; }
#sg-watch-password { display: flex; gap: 8px; justify-content: center; }
#sg-watch-password[hidden], #sg-watch-login[hidden], #sg-watch-sound[hidden], #sg-watch-seek[hidden], #sg-watch-live[hidden] { display: none; }
#sg-watch-seek { flex: 1; }
#sg-watch-password input { font: inherit; color: inherit; background: #1a1f2e; border: 1px solid #2f3650; border-radius: 6px; padding: 6px 8px; }
a { color: #9fc2ff; }
#sg-watch-page { --sg-accent: #ffb400; --sg-on-accent: #111; --sg-accent-2: #9fb4ff; }
#sg-watch-page button:not(.sg-poll-choice):not([role="tab"]) { color: var(--sg-on-accent); background: var(--sg-accent); }
#sg-watch-page { background-size: cover; background-position: center; min-height: 100vh; }
#sg-watch-header { box-sizing: border-box; width: min(1280px, 100%); margin: 0 auto; padding: 12px 16px 0; display: flex; gap: 12px; align-items: center; }
#sg-watch-header[hidden] { display: none; }
#sg-watch-logo { max-height: 40px; max-width: 200px; }
#sg-watch-logo:not([src]) { display: none; }
#sg-watch-account { margin-left: auto; display: flex; gap: 8px; align-items: center; }
#sg-watch-account [hidden] { display: none; }
#sg-watch-sidebar { width: 360px; flex: none; display: flex; flex-direction: column; gap: 12px; }
#sg-watch-sidebar[hidden] { display: none; }
#sg-watch-tabs { display: none; gap: 4px; overflow-x: auto; }
#sg-watch-tabs button { color: #d8dbe6; background: #1a1f2e; border-radius: 6px 6px 0 0; white-space: nowrap; }
#sg-watch-tabs button[aria-selected="true"] { color: var(--sg-on-accent); background: var(--sg-accent); box-shadow: inset 0 -3px 0 var(--sg-accent-2); }
.sg-panel { border-radius: 12px; overflow: hidden; color: #1a1d29; background: #f4f5f9; }
.sg-panel[data-dark] { color: #d8dbe6; background: #141826; }
.sg-panel[hidden] { display: none; }
.sg-panel > h2 { margin: 0; padding: 10px 14px; font-size: 15px; display: flex; gap: 6px; align-items: center; }
.sg-panel-icon:empty { display: none; }
.sg-panel-body { padding: 0 14px 14px; }
.sg-panel-body ul, .sg-panel-body ol { margin: 0; padding: 0; list-style: none; display: grid; gap: 8px; }
.sg-panel a { color: #1d4fd8; }
.sg-panel[data-dark] a { color: #9fc2ff; }
.sg-panel img { max-width: 100%; border-radius: 8px; display: block; }
.sg-panel[data-kind="chat"] .sg-panel-body, .sg-panel[data-kind="live-stream chat"] .sg-panel-body { padding: 0; height: min(60vh, 560px); }
.sg-panel iframe { width: 100%; height: 100%; min-height: 240px; border: 0; display: block; }
.sg-panel-note { margin: 0; font-size: 13px; }
.sg-person { display: grid; grid-template-columns: 56px 1fr; gap: 10px; align-items: start; }
.sg-person img { width: 56px; height: 56px; object-fit: cover; border-radius: 50%; }
.sg-person p { margin: 0; }
.sg-links { display: flex !important; flex-wrap: wrap; gap: 8px !important; margin-top: 4px !important; }
.sg-board li, .sg-schedule li, .sg-quest-action, .sg-store li, .sg-playlist li { display: flex; gap: 8px; align-items: baseline; justify-content: space-between; }
.sg-board li[data-me] { font-weight: 700; }
.sg-schedule li[data-next] { font-weight: 700; }
.sg-countdown { font-variant-numeric: tabular-nums; }
.sg-quest { display: grid; gap: 6px; }
.sg-quest h3, .sg-store h3 { margin: 0; font-size: 15px; }
.sg-quest p { margin: 0; }
.sg-quest-claimed { padding: 6px 8px; border-radius: 6px; color: #06301a; background: #bdf0cf; }
.sg-qa { display: grid; gap: 8px; }
.sg-qa-ask { display: grid; gap: 4px; }
.sg-qa-ask textarea { font: inherit; padding: 6px 8px; border: 1px solid #5a6078; border-radius: 6px; resize: vertical; }
.sg-qa-ask-row { display: flex; justify-content: space-between; align-items: center; gap: 8px; font-size: 12px; }
.sg-qa-error { margin: 0; color: #a1001a; font-size: 13px; }
.sg-qa-error:empty, .sg-qa-status:empty { display: none; }
.sg-qa-status { margin: 0; font-size: 12px; }
.sg-qa-question { display: grid; grid-template-columns: 1fr auto; gap: 2px 8px; padding: 8px; border-radius: 8px; border: 1px solid #c9cddb; }
.sg-qa-question[data-highlighted] { border: 2px solid currentColor; }
.sg-qa-question[data-status="held"] { border-style: dashed; }
.sg-qa-text { margin: 0; grid-column: 1 / -1; overflow-wrap: anywhere; }
.sg-qa-author, .sg-qa-votes { font-size: 12px; }
.sg-qa-marks { display: flex; gap: 4px; flex-wrap: wrap; }
.sg-qa-mark { font-size: 12px; font-weight: 700; padding: 1px 8px; border-radius: 999px; color: #1a1d29; background: #e4e6ee; }
.sg-qa-mark[data-mark="answered"] { color: #06301a; background: #bdf0cf; }
.sg-qa-mark[data-mark="highlighted"] { color: #3d2600; background: #ffe2a8; }
.sg-qa-vote[aria-pressed="true"] { font-weight: 700; }
.sg-held { font-size: 12px; font-weight: 700; padding: 1px 8px; border-radius: 999px; color: #06301a; background: #bdf0cf; }
.sg-channel-choice[aria-current="page"] { outline: 2px solid currentColor; }
.sg-channel-choice img { max-height: 24px; display: inline-block; vertical-align: middle; }
.sg-poll-box { padding: 10px; border-radius: 10px; color: #fff; background: #141826; }
.sg-poll-box + .sg-poll-box { margin-top: 8px; }
#sg-watch-welcome { position: fixed; inset: 0; z-index: 10; display: grid; place-items: center; background: #0b0d14; }
#sg-watch-welcome[hidden] { display: none; }
#sg-watch-welcome img { max-width: 100%; max-height: 100vh; }
#sg-watch-welcome button { position: absolute; top: 16px; right: 16px; }
#sg-watch-signin { color: #1a1d29; background: #fff; border: 0; border-radius: 12px; padding: 20px; width: min(360px, 90vw); }
#sg-watch-signin::backdrop { background: rgba(0, 0, 0, 0.6); }
#sg-watch-signin form { display: grid; gap: 10px; }
#sg-watch-signin h2 { margin: 0; font-size: 18px; }
#sg-watch-signin p { margin: 0; }
#sg-watch-signin input { font: inherit; padding: 6px 8px; border: 1px solid #5a6078; border-radius: 6px; }
#sg-watch-signin-error { color: #a1001a; }
#sg-watch-signin-error:empty { display: none; }
#sg-watch-signin .sg-dialog-actions { display: flex; gap: 8px; justify-content: flex-end; }
#sg-watch-signin button[value="cancel"] { color: #1a1d29; background: #e4e6ee; }
#sg-watch-toast { position: fixed; bottom: 16px; left: 50%; transform: translateX(-50%); padding: 8px 14px; border-radius: 8px; color: #111; background: #fff; }
#sg-watch-toast:empty { display: none; }
@media (max-width: 800px) { #sg-watch { flex-direction: column; align-items: stretch; } #sg-watch-sidebar { width: 100%; } }
@media (max-width: 480px) {
  #sg-watch { padding: 8px; gap: 8px; }
  #sg-watch-sidebar { gap: 0; }
  #sg-watch-tabs { display: flex; }
  .sg-panel { border-radius: 0 0 12px 12px; }
  .sg-panel:not([data-selected]) { display: none; }
  .sg-panel > h2 { display: none; }
  .sg-panel-body { padding-top: 12px; }
}
${POLL_STYLE}`;
