/**
 * The live events the gateway's live server pushes and the subgraphs publish: overlay broadcasts (the
 * overlays subgraph) and stream states (the integrations subgraph), with the rules every instance applies
 * to them (audience, time left), and the feed of admins' stream-state subscriptions. One module both
 * import, so the gateway knows these shapes without knowing a subgraph's internals.
 */
import { requireAdmin } from '../auth/access';
import type { Identity } from '../auth/identity';
import { Topics } from '../bus';
import type { BroadcastOverlay } from './viewerProtocol';

/** The overlay as viewers receive it (one shape with the browser side, shared/contracts/viewerProtocol.ts). */
export type BroadcastOverlaySnapshot = BroadcastOverlay;

export interface OverlayBroadcastEvent {
  kind: 'SHOW' | 'CLEAR';
  broadcastId: string;
  overlay: BroadcastOverlaySnapshot;
  channelId: string | null;
  tagId: string | null;
  /** Only viewers whose account carries one of these tags get the event; empty = every viewer. */
  tags: string[];
  variables: Record<string, string>;
  startedAt: number;
  expiresAt: number;
  remainingSeconds: number;
  /** Whole seconds into the channel's recording when it was shown; null when not recording (or site-wide). */
  streamSecond?: number | null;
}

/** What travels on the bus: the site it belongs to and the event. */
export interface OverlayBroadcastMessage {
  siteId: string;
  event: OverlayBroadcastEvent;
}

/** The tags an event is for (empty = everyone); events stored before `tags` existed name their one tag in `tagId`. */
export function audienceTags(event: OverlayBroadcastEvent): string[] {
  return event.tags ?? (event.tagId === null ? [] : [event.tagId]);
}

/** Whether a viewer whose account carries `viewerTags` (null = not signed in) is in the event's audience. */
export function inAudience(event: OverlayBroadcastEvent, viewerTags: ReadonlySet<string> | null): boolean {
  const tags = audienceTags(event);
  return tags.length === 0 || (viewerTags !== null && tags.some((tag) => viewerTags.has(tag)));
}

/** The event with the seconds it has left at `now`. */
export function withRemaining(event: OverlayBroadcastEvent, now = Date.now()): OverlayBroadcastEvent {
  return { ...event, remainingSeconds: event.kind === 'CLEAR' ? 0 : Math.max(0, (event.expiresAt - now) / 1000) };
}

export function clearEventOf(show: OverlayBroadcastEvent): OverlayBroadcastEvent {
  return { ...show, kind: 'CLEAR', remainingSeconds: 0 };
}

// ------------------------------------------------------------------ stream states

export const STREAMS_SCOPE = 'Streams';

export interface StreamState {
  ingestEnabled: boolean;
  ingestConnected: boolean;
  playbackLive: boolean;
  recording: boolean;
  ingestChangedAt: number | null;
  playbackChangedAt: number | null;
}

/** connected, active, disconnected, idle: the provider's webhooks; the rest: the service's own calls. */
export type StreamChange =
  'connected' | 'active' | 'disconnected' | 'idle' | 'simulcast' | 'created' | 'started' | 'stopped' | 'activated' | 'deleted' | 'updated';

/** Where a simulcast target's relay is (ours; docs/show.md, "Simulcast"). */
export type SimulcastState = 'idle' | 'connecting' | 'live' | 'failed';

/** A simulcast target as admins see it: never its key. */
export interface SimulcastTargetStatus {
  name: string;
  url: string;
  state: SimulcastState;
  reason: string | null;
  stateChanged: number | null;
}

export interface StreamStateEvent {
  streamId: string;
  pageId: string;
  change: StreamChange;
  time: number;
  liveBroadcastId: string | null;
  state: StreamState;
  /** After a `simulcast` or `updated` change: every target of the stream; null otherwise. */
  simulcastTargets?: SimulcastTargetStatus[] | null;
}

/** The gateway's live feed of `streamStateChanged`: admins of the site, all streams or one. */
export const streamStateFeed = {
  topic: Topics.streamStates,
  authorize(identity: Identity): void {
    requireAdmin(identity, STREAMS_SCOPE, { write: false });
  },
  matches(event: unknown, args: Record<string, unknown>): boolean {
    return typeof args.streamId !== 'string' || (event as StreamStateEvent).streamId === args.streamId;
  },
};
