/**
 * Overlay broadcasts: filling a template's variables, the event live viewers receive, and the bus
 * message that carries it to every instance. The stored broadcast keeps the SHOW event, so a viewer
 * who joins later receives exactly what the others received, with the time left.
 */
import { Topics } from '../../shared/bus';
import type { Overlay, Prisma } from '../../shared/db/generated/sqlite';
import { appError, ErrorCode } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { SubgraphContext } from '../../shared/subgraph';
import { streamSecondAt } from '../../shared/contracts/viewerProtocol';
import type { BroadcastOverlaySnapshot, OverlayBroadcastEvent, OverlayBroadcastMessage } from '../../shared/contracts/liveEvents';
import { recordingOfChannel, timelineOf } from './timecode';

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
  const contents =
    overlay.type === 'template' && filled && typeof filled === 'object' && !Array.isArray(filled) ? { ...filled, templateId: overlay.id, variables } : filled;
  return {
    id: overlay.id,
    name: overlay.name,
    type: overlay.type,
    contents,
    cta: (overlay.cta as BroadcastOverlaySnapshot['cta']) ?? null,
    duration: overlay.duration,
  };
}

/** Who a broadcast is for and for how long. */
export interface BroadcastTarget {
  /** Seconds it stays up. */
  duration: number;
  /** null = every channel of the site. */
  channelId: string | null;
  /** The one tag of POST /broadcast/{id}/tag/{tagId}, kept as given. */
  tagId: string | null;
  /** Viewers with any of these tags; empty = every viewer. */
  tags: string[];
  variables: Record<string, string>;
}

/** Tells every instance (and so every live viewer) about a broadcast event. */
export async function publishBroadcastEvent(ctx: SubgraphContext, siteId: string, event: OverlayBroadcastEvent): Promise<void> {
  const message: OverlayBroadcastMessage = { siteId, event };
  await ctx.bus.publish(Topics.overlayBroadcasts, message);
}

/**
 * How a broadcast reaches other instances: `now` (an admin's call, answered 503 while the bus is away so
 * the admin knows it was not sent) or `held` (an automation rule's, for a data event accepted already:
 * this instance's viewers get it at once and the others once Redis is back, shared/bus/announcer.ts).
 */
export type BroadcastDelivery = 'now' | 'held';

/**
 * Shows an overlay: stores the broadcast, then tells every instance. Delivered `now`, a broadcast the
 * bus refuses is withdrawn so no late joiner gets what live viewers never saw.
 */
export async function showOverlay(
  ctx: SubgraphContext,
  siteId: string,
  overlay: Overlay,
  target: BroadcastTarget,
  delivery: BroadcastDelivery = 'now',
): Promise<OverlayBroadcastEvent> {
  const recording = await recordingOfChannel(ctx, siteId, target.channelId);
  const startedAt = Date.now();
  const streamSecond = recording ? streamSecondAt(recording, startedAt) : null;
  const event: OverlayBroadcastEvent = {
    kind: 'SHOW',
    broadcastId: newId(),
    overlay: snapshotOverlay(overlay, target.variables),
    channelId: target.channelId,
    tagId: target.tagId,
    tags: target.tags,
    variables: target.variables,
    startedAt,
    expiresAt: startedAt + target.duration * 1000,
    remainingSeconds: target.duration,
    streamSecond,
  };
  await ctx.db.overlayBroadcast.create({
    data: {
      id: event.broadcastId,
      siteId,
      overlayId: overlay.id,
      channelId: target.channelId,
      tagId: target.tagId,
      variables: target.variables,
      event: event as unknown as Prisma.InputJsonValue,
      startedAt: new Date(startedAt),
      expiresAt: new Date(event.expiresAt),
      liveBroadcastId: timelineOf(recording, target.tags, target.tagId),
      streamSecond,
    },
  });
  if (delivery === 'held') {
    ctx.bus.announce<OverlayBroadcastMessage>(Topics.overlayBroadcasts, event.broadcastId, 'every', { siteId, event });
    return event;
  }
  try {
    await publishBroadcastEvent(ctx, siteId, event);
  } catch (error) {
    await ctx.db.overlayBroadcast.update({ where: { id: event.broadcastId }, data: { clearedAt: new Date() } });
    ctx.logger.error({ err: (error as Error).message }, 'event bus refused a broadcast');
    throw appError(ErrorCode.SERVICE_UNAVAILABLE, 'live delivery is unavailable; the broadcast was not sent');
  }
  return event;
}
