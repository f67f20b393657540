/** What the chat feed keeps per room with viewers on this instance, and per viewer of it. */
import type { ChatEventView, ChatMessageView, ChatSystemView } from '../../../shared/contracts/chatEvents';
import type { LiveStreamSubscription } from '../streams';
import type { RenderedEvent } from '../viewerChannel';
import type { ChatCounts } from './chatCounts';

export interface Viewer {
  subscription: LiveStreamSubscription;
  afterSeq: number | null;
  started: boolean;
  /** Messages up to this seq the viewer already has (it reconnected ahead of this instance). */
  hasThrough: number;
}

export interface Room {
  key: string;
  siteId: string;
  panelId: string;
  system: ChatSystemView | null;
  /** Messages sent (or loaded), oldest first, at most RING. */
  recent: ChatMessageView[];
  /** The ring holds every visible message after this seq. */
  coveredFrom: number;
  /** The last seq sent to this room's viewers (or loaded). */
  sentSeq: number;
  /** The highest seq read from the database. */
  readSeq: number;
  announcedSeq: number;
  pending: ChatMessageView[];
  pendingEvents: ChatEventView[];
  deleted: Map<string, number>;
  cleared: { accountId: string; since: number; at: number }[];
  loaded: Promise<void>;
  state: RoomState;
  timer: NodeJS.Timeout | null;
  lastFlushAt: number;
  viewers: Set<Viewer>;
  /** The first event of a viewer without afterSeq, rendered once per selection until the room changes. */
  firstFrames: Map<string, RenderedEvent>;
  /** Reaction counts and the viewer count for the next event (gateway/live/feeds/chatReactions.ts). */
  counts: ChatCounts | null;
  /** The room's viewers on every instance, as last counted (the first event carries it). */
  viewersCounted: number | null;
}

/**
 * Where a room stands, in one value: its life, its database reads and its pushes (each independent of
 * the others, so three fields rather than one name per combination).
 */
export interface RoomState {
  /** Loading its first read; open (reads and pushes run); closed (its last viewer left, or the chat is gone). */
  life: 'loading' | 'open' | 'closed';
  /** No read running; one running; one running and another wanted once it is done (more was announced meanwhile). */
  read: 'idle' | 'reading' | 'readingThenAgain';
  /**
   * No push going out; one going out (a pass over the viewers spans several turns of the loop); one going
   * out and a flush that came due meanwhile, which follows it.
   */
  push: 'idle' | 'sending' | 'sendingThenFlush';
}

/** Whether a room is closed (a function, so a check after an await is not narrowed away by the one before it). */
export const isClosed = (room: Room) => room.state.life === 'closed';

export const emptyEvent = (kind: ChatEventView['kind']): ChatEventView => ({ kind, messages: [], ids: [], accountId: null, system: null });
