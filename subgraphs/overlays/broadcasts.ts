/**
 * Overlay broadcasts: filling a template's variables, the event live viewers receive, and the bus
 * message that carries it to every instance. The stored broadcast keeps the SHOW event, so a viewer
 * who joins later receives exactly what the others received, with the time left.
 */
import type { Overlay } from '../../shared/db/generated/sqlite';

export interface BroadcastOverlaySnapshot {
  id: string;
  name: string;
  type: string;
  contents: unknown;
  cta: { type: string; data: unknown } | null;
  duration: number;
}

export interface OverlayBroadcastEvent {
  kind: 'SHOW' | 'CLEAR';
  broadcastId: string;
  overlay: BroadcastOverlaySnapshot;
  channelId: string | null;
  tagId: string | null;
  variables: Record<string, string>;
  startedAt: number;
  expiresAt: number;
  remainingSeconds: number;
}

/** What travels on the bus: the site it belongs to and the event. */
export interface OverlayBroadcastMessage {
  siteId: string;
  event: OverlayBroadcastEvent;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

// `${name}` or `{name}`; a name is letters, digits, _ . and -.
const VARIABLE = /\$\{\s*([\w.-]+)\s*\}|\{\s*([\w.-]+)\s*\}/g;

/** Replaces the variables it has values for in one string; unknown variables stay as written. */
export function fillText(text: string, variables: Record<string, string>, html: boolean): string {
  return text.replace(VARIABLE, (match: string, dollar: string | undefined, plain: string | undefined) => {
    const value = variables[(dollar ?? plain) as string];
    if (value === undefined) return match;
    return html ? escapeHtml(value) : value;
  });
}

/**
 * Fills variables in every string of an overlay's contents. Values are HTML-escaped inside `html` so
 * data from a provider cannot inject markup into viewers' pages.
 */
export function fillContents(contents: unknown, variables: Record<string, string>, key = ''): unknown {
  if (typeof contents === 'string') return fillText(contents, variables, key === 'html');
  if (Array.isArray(contents)) return contents.map((item) => fillContents(item, variables, key));
  if (contents && typeof contents === 'object') {
    return Object.fromEntries(Object.entries(contents).map(([name, value]) => [name, fillContents(value, variables, name)]));
  }
  return contents;
}

export function snapshotOverlay(overlay: Overlay, variables: Record<string, string>): BroadcastOverlaySnapshot {
  const filled = fillContents(overlay.contents, variables);
  const contents = overlay.type === 'template' && filled && typeof filled === 'object' && !Array.isArray(filled)
    ? { ...filled, templateId: overlay.id, variables }
    : filled;
  return {
    id: overlay.id,
    name: overlay.name,
    type: overlay.type,
    contents,
    cta: (overlay.cta as BroadcastOverlaySnapshot['cta']) ?? null,
    duration: overlay.duration,
  };
}

/** The event with the seconds it has left at `now`. */
export function withRemaining(event: OverlayBroadcastEvent, now = Date.now()): OverlayBroadcastEvent {
  return { ...event, remainingSeconds: event.kind === 'CLEAR' ? 0 : Math.max(0, (event.expiresAt - now) / 1000) };
}

export function clearEventOf(show: OverlayBroadcastEvent): OverlayBroadcastEvent {
  return { ...show, kind: 'CLEAR', remainingSeconds: 0 };
}
