/**
 * What the content subgraph (which stores chat) and the gateway's live server (which pushes it to
 * viewers) both speak about chat: the bus messages that say a room changed, and the shapes viewers see.
 * The bus only says *that* a room has new messages up to a seq; every instance reads them from the
 * database (the one order), so a message is never carried twice or out of order by the bus itself.
 */

/** Format version of the chat bus messages: an instance reads this and the versions before it. */
export const CHAT_MESSAGE_VERSION = 1;

/** Messages a room's first event carries when the viewer does not say where it stopped. */
export const CHAT_FIRST_EVENT_MESSAGES = 50;

/** How far back a ban clears an account's messages from viewers' screens. */
export const CHAT_CLEAR_WINDOW_MS = 10 * 60 * 1000;

/** What goes over Topics.chat. */
export type ChatBusMessage =
  /** A batch was committed: the room holds messages up to `lastSeq`. */
  | { v: number; kind: 'stored'; siteId: string; panelId: string; lastSeq: number }
  /** Moderators deleted these messages of the room. */
  | { v: number; kind: 'deleted'; siteId: string; panelId: string; ids: string[] }
  /** A ban or timeout cleared the account's messages since `since` (Unix ms) in every room of the site. */
  | { v: number; kind: 'cleared'; siteId: string; accountId: string; since: number }
  /** For the room's moderators (chatModeration): a message held or delayed, a report, a decision. */
  | { v: number; kind: 'moderation'; siteId: string; panelId: string; event: ChatModerationEventView }
  /** Moderators pinned (or unpinned) the room's message or announcement: instances read the room's system block again. */
  | { v: number; kind: 'pinned'; siteId: string; panelId: string };

/** What goes over Topics.chatReactions: one instance's reactions to a room over the last second (emoji → count). */
export interface ChatReactionsMessage {
  v: number;
  siteId: string;
  panelId: string;
  counts: Record<string, number>;
}

/** What goes over Topics.chatOccupancy: one gateway instance's viewers per room, replacing its previous report. */
export interface ChatOccupancyReport {
  v: number;
  instanceId: string;
  /** Unix ms. */
  at: number;
  /** [siteId, panelId, viewers] of every room with viewers on the instance. */
  rooms: [string, string, number][];
}

/** The emoji a room offers when its renderer's `reactions` does not say. */
export const DEFAULT_CHAT_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🔥', '👏', '🎉'];

/** How a reply shows the message it answers. */
export interface ChatReplyView {
  id: string;
  accountId: string;
  name: string | null;
  excerpt: string;
}

/** The room's pin: a message (messageId) or an announcement (messageId null). */
export interface ChatPinView {
  messageId: string | null;
  text: string;
  /** null for an announcement (the room's system name shows). */
  author: ChatAuthorView | null;
  /** Unix ms. */
  pinnedAt: number;
}

/** Reaction counts of one emoji since the previous counts. */
export interface ChatReactionCount {
  emoji: string;
  count: number;
}

export interface ChatAuthorView {
  accountId: string;
  name: string | null;
  admin: boolean;
}

/** One message as viewers see it (REST, GraphQL, the live event). */
export interface ChatMessageView {
  id: string;
  seq: number;
  panelId: string;
  text: string;
  author: ChatAuthorView;
  /** Unix ms. */
  created: number;
  streamSecond: number | null;
  /** Held for review: only in its author's and moderators' answers (a room's messages never are). */
  held: boolean;
  /** A delayed message's time to reach the room, Unix ms; null once it is in the room. */
  dueAt: number | null;
  replyTo?: ChatReplyView | null;
}

/** The room's settings as viewers see them (from the panel's renderer). */
export interface ChatSystemView {
  name: string | null;
  image: string | null;
  welcomeMessage: string | null;
  rulesLinkUrl: string | null;
  loginButtonText: string | null;
  allowLinks: boolean;
  slowModeSeconds: number;
  /** The emoji viewers may react with. */
  reactions: string[];
  /** The room's pin (filled in from the database; null when none). */
  pinned?: ChatPinView | null;
}

export type ChatEventKind = 'MESSAGES' | 'DELETED' | 'CLEARED' | 'SYSTEM' | 'PINNED' | 'UNPINNED' | 'REACTIONS' | 'VIEWERS';

/** What `chatMessages` pushes. */
export interface ChatEventView {
  kind: ChatEventKind;
  messages: ChatMessageView[];
  ids: string[];
  accountId: string | null;
  system: ChatSystemView | null;
  /** PINNED: the new pin. */
  pinned?: ChatPinView | null;
  /** Reaction counts since the previous ones (REACTIONS, or riding on a MESSAGES event). */
  reactions?: ChatReactionCount[] | null;
  /** The room's viewers on every instance (VIEWERS, riding on another event, or on the first). */
  viewers?: number | null;
}

/** A room read from the database: its settings and its messages after a seq (or its latest). */
export interface ChatRoomView {
  system: ChatSystemView;
  messages: ChatMessageView[];
}

/** A message waiting before its room: held for review (dueAt null) or delayed until dueAt. */
export interface ChatHeldView {
  id: string;
  panelId: string;
  text: string;
  accountId: string;
  /** hold_word, new_account or delay */
  reason: string;
  /** Unix ms. */
  created: number;
  dueAt: number | null;
}

/** A viewer's report of a message. */
export interface ChatReportView {
  id: string;
  panelId: string;
  messageId: string;
  /** The reported message's text; null once it is deleted. */
  text: string | null;
  accountId: string;
  reason: string;
  created: number;
}

export type ChatModerationEventKind = 'QUEUE' | 'HELD' | 'REPORTED' | 'DECIDED';

/** What `chatModeration` pushes to a room's moderators. */
export interface ChatModerationEventView {
  kind: ChatModerationEventKind;
  /** QUEUE (the first event): what waits now. */
  held: ChatHeldView[];
  reports: ChatReportView[];
  /** DECIDED: the held message and what became of it (approved, denied, deleted, published). */
  id: string | null;
  decision: string | null;
}
