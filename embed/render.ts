/**
 * One overlay as an element of the embed: `[data-overlay-id][data-broadcast-id]` holding the template's
 * HTML after DOMPurify, and its CTA as `button[data-cta]`. Whoever wrote the template, nothing in it runs:
 * DOMPurify drops scripts, event-handler attributes and `javascript:` URLs (and the page's CSP blocks
 * inline script besides). Variables arrive already HTML-escaped by the server.
 */
import DOMPurify from 'dompurify';
import type { BroadcastOverlay } from '../shared/contracts/viewerProtocol';

// Links in an overlay open outside the player's frame, never inside it, and cannot reach back (opener).
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** A template's HTML as safe markup: no script, no handler, no form, no frame, no javascript: URL. */
export function sanitizeTemplate(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'base', 'meta', 'link'],
    FORBID_ATTR: ['srcdoc', 'formaction'],
  });
}

const CTA_LABELS: Record<string, string> = { login: 'Log in', show_panel: 'Open', social_share: 'Share' };

/** What a CTA click asks of the page around the embed. */
export interface CtaRequest {
  type: string;
  data: unknown;
  overlayId: string;
}

/**
 * The CTA button of an overlay: `data-cta` is its type; a show_panel CTA names its panel in `data-panel-id`.
 * A poll CTA has none: the poll itself is shown instead (polls.ts).
 */
function ctaButton(overlay: BroadcastOverlay, onCta: (request: CtaRequest) => void): HTMLButtonElement | null {
  const cta = overlay.cta;
  if (!cta || typeof cta.type !== 'string' || cta.type === '' || cta.type === 'poll') return null;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'sg-cta';
  button.dataset.cta = cta.type;
  if (cta.type === 'show_panel' && typeof cta.data === 'string') button.dataset.panelId = cta.data;
  // textContent: a label is never markup.
  button.textContent = CTA_LABELS[cta.type] ?? cta.type;
  button.addEventListener('click', () => onCta({ type: cta.type, data: cta.data ?? null, overlayId: overlay.id }));
  return button;
}

/** The element of one shown overlay. */
export function renderOverlay(overlay: BroadcastOverlay, broadcastId: string, origin: 'live' | 'timecode', onCta: (request: CtaRequest) => void): HTMLElement {
  const element = document.createElement('div');
  element.className = 'sg-overlay';
  element.dataset.overlayId = overlay.id;
  element.dataset.broadcastId = broadcastId;
  element.dataset.origin = origin;
  element.dataset.overlayType = overlay.type;
  const body = document.createElement('div');
  body.className = 'sg-overlay-body';
  const contents = overlay.contents as { html?: unknown } | null;
  if (contents && typeof contents.html === 'string') body.appendChild(sanitizeTemplate(contents.html));
  element.appendChild(body);
  const button = ctaButton(overlay, onCta);
  if (button) element.appendChild(button);
  return element;
}
