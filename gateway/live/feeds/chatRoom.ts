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
  /** The room's last outgoing push (Outgoing.id) this viewer has: it gets the ones after it. */
  through: number;
}

/** One flush's events, on their way to the room's viewers (the pass: chatPass.ts). */
export interface Outgoing {
  /** Numbered from 1 in the order of the room's flushes. */
  id: number;
  events: ChatEventView[];
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
  /** Pushes some viewers have not had yet, oldest first, and the id of the last one made. */
  outgoing: Outgoing[];
  lastOutgoing: number;
  /** The frames of what follows a viewer's `through`, by `through` then selection, while no push is added. */
  catchUps: Map<number, Map<string, RenderedEvent[]>>;
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
   * No pass over the viewers going on, or one (it spans several turns of the loop, and takes in the
   * pushes flushed meanwhile: chatPass.ts).
   */
  push: 'idle' | 'sending';
}

/** A room as it starts: loading, no viewers yet, nothing read or sent. */
export function newRoom(key: string, siteId: string, panelId: string): Room {
  return {
    key,
    siteId,
    panelId,
    system: null,
    recent: [],
    coveredFrom: 0,
    sentSeq: 0,
    readSeq: 0,
    announcedSeq: 0,
    pending: [],
    pendingEvents: [],
    deleted: new Map(),
    cleared: [],
    loaded: Promise.resolve(),
    state: { life: 'loading', read: 'idle', push: 'idle' },
    timer: null,
    lastFlushAt: 0,
    viewers: new Set(),
    outgoing: [],
    lastOutgoing: 0,
    catchUps: new Map(),
    firstFrames: new Map(),
    counts: null,
    viewersCounted: null,
  };
}

/** Whether a room is closed (a function, so a check after an await is not narrowed away by the one before it). */
export const isClosed = (room: Room) => room.state.life === 'closed';

export const emptyEvent = (kind: ChatEventView['kind']): ChatEventView => ({ kind, messages: [], ids: [], accountId: null, system: null });
