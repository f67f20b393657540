/**
 * What the viewer side speaks, in one place for the browser code (embed/, bundled into /sdk/v1/*.js),
 * the gateway that serves it and the subgraphs that answer it: the seed's window message
 * `{source: 'service:iframe:sdk:v1', action, data}`, the timeline of a recording, and the recording
 * state that the integrations subgraph tells the overlays subgraph. No Node or DOM imports here: both
 * sides compile it.
 */

/** The `source` of every window message between a site's page, the player helper and the embed (seed 001, Events 2). */
export const SDK_MESSAGE_SOURCE = 'service:iframe:sdk:v1';

/** The `action`s the embed understands. */
export const SdkAction = {
  /**
   * `data` is an overlay: a timeline entry's, or the REST resource (`GET /overlay/v1/{id}`, its ID in
   * `_id`), its contents filled in. Show it now, for its duration.
   */
  showOverlay: 'show:overlay',
  /** `data` is a viewer's sign-in JWT: reconnect as that viewer (tag-targeted broadcasts). */
  setToken: 'set:token',
  /** From the chat embed to the page around it: the viewer asked to sign in (no `data`). */
  login: 'login',
  /** From the player helper to the chat embed in timecode mode: `data` is the video's whole second now. */
  chatTime: 'chat:time',
} as const;

/** The DOM event (on the embed's window) that panels listen to; `detail` is an {@link OverlayShown}. */
export const OVERLAY_DOM_EVENT = 'stagegraph:overlay';

/** An overlay as broadcast: the snapshot viewers received, its contents with the variables filled in. */
export interface BroadcastOverlay {
  id: string;
  name: string;
  type: string;
  contents: unknown;
  cta: { type: string; data: unknown } | null;
  duration: number;
}

/** One entry of `GET /overlay/v1/timeline`: the overlay shown `second` whole seconds into the recording. */
export interface TimelineEntry {
  second: number;
  overlay: BroadcastOverlay;
}

/** The `detail` of {@link OVERLAY_DOM_EVENT}. */
export interface OverlayShown {
  overlay: BroadcastOverlay;
  /** `live` = pushed over the subscription; `timecode` = sent by the player at the viewer's second. */
  origin: 'live' | 'timecode';
  broadcastId: string;
}

/**
 * An overlay as a page may send it in `show:overlay`: ours (`id`, as the timeline and broadcasts carry
 * it) or the REST resource of seed 001 (`_id`); other fields of the resource ride along unused.
 */
export type MessageOverlay = Omit<BroadcastOverlay, 'id'> & { id?: string; _id?: string };

export interface ShowOverlayMessage {
  source: typeof SDK_MESSAGE_SOURCE;
  action: typeof SdkAction.showOverlay;
  data: MessageOverlay;
}

export interface SetTokenMessage {
  source: typeof SDK_MESSAGE_SOURCE;
  action: typeof SdkAction.setToken;
  data: string;
}

export interface ChatTimeMessage {
  source: typeof SDK_MESSAGE_SOURCE;
  action: typeof SdkAction.chatTime;
  data: number;
}

export function isChatTimeMessage(value: unknown): value is ChatTimeMessage {
  return (
    isObject(value) && value.source === SDK_MESSAGE_SOURCE && value.action === SdkAction.chatTime && Number.isInteger(value.data) && (value.data as number) >= 0
  );
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The overlay in `value` when it has an overlay's shape, as the embed shows it (only the fields it
 * uses); null otherwise: the embed shows nothing else (messages may come from any origin). Its ID is
 * `id` or, in the REST resource's form, `_id`; when both are given they must agree.
 */
export function overlayOf(value: unknown): BroadcastOverlay | null {
  if (!isObject(value)) return null;
  const { id, _id, name, type, contents, cta, duration } = value;
  if (id !== undefined && _id !== undefined && id !== _id) return null;
  const overlayId = id ?? _id;
  const ctaOk = cta === null || cta === undefined || (isObject(cta) && typeof cta.type === 'string');
  const ok =
    nonEmpty(overlayId) &&
    typeof name === 'string' &&
    typeof type === 'string' &&
    (contents === undefined || contents === null || isObject(contents)) &&
    ctaOk &&
    typeof duration === 'number' &&
    Number.isFinite(duration) &&
    duration > 0;
  if (!ok) return null;
  return { id: overlayId, name, type, contents, cta: (cta ?? null) as BroadcastOverlay['cta'], duration };
}

/** The seed's timecode message, shape checked (its overlay in either form, see {@link overlayOf}). */
export function isShowOverlayMessage(value: unknown): value is ShowOverlayMessage {
  return isObject(value) && value.source === SDK_MESSAGE_SOURCE && value.action === SdkAction.showOverlay && overlayOf(value.data) !== null;
}

/** A viewer token handed to the embed by the site's page. */
export function isSetTokenMessage(value: unknown): value is SetTokenMessage {
  return (
    isObject(value) && value.source === SDK_MESSAGE_SOURCE && value.action === SdkAction.setToken && typeof value.data === 'string' && value.data.length < 8192
  );
}

/**
 * A channel's stream recording now: the live broadcast and when it started (Unix ms). The integrations
 * subgraph answers it (`channelRecording`, `recordingOfVideo`); the overlays subgraph stamps broadcasts with it.
 */
export interface ChannelRecording {
  liveBroadcastId: string;
  startedAt: number;
}

/** Whole seconds from the start of a recording to `at` (Unix ms); never negative. */
export function streamSecondAt(recording: ChannelRecording, at: number): number {
  return Math.max(0, Math.floor((at - recording.startedAt) / 1000));
}

/** The live results of a poll, as `pollResults` answers and pushes them (the embed reads them). */
export interface PollResults {
  pollId: string;
  type: string;
  /** The poll's question, shown above its answers. */
  question: string;
  open: boolean;
  total: number;
  answers: { id: string; text: string; count: number }[];
  correctAnswerId: string | null;
  mine: { answerId: string; correct: boolean | null } | null;
}

/** The show state of a channel, from its stream's webhooks in seed 000's order. */
export type ShowState = 'OFFLINE' | 'STARTING' | 'LIVE' | 'RECONNECTING' | 'ENDED';

/** Until a scheduled or countdown start. */
export interface ChannelCountdown {
  title: string | null;
  /** Unix ms, server clock. */
  startsAt: number;
}

/** What `channelStatus` answers and pushes: the watch page reads it, the content subgraph computes it. */
export interface ChannelStatus {
  channelId: string;
  state: ShowState;
  live: boolean;
  liveBroadcastId: string | null;
  startedAt: number | null;
  /** How far back a viewer may seek now (seconds): min(the provider's rewind window, seconds live); 0 when not live. */
  dvrSeconds: number;
  streamSecond: number | null;
  recordingVideoId: string | null;
  /** Only while live and only for a channel without a gate. */
  playbackUrl: string | null;
  countdown: ChannelCountdown | null;
}
