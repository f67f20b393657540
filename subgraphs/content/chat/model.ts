/** A chat message as the content subgraph answers it, from its row (messages.ts, held.ts). */

/** A message as the content subgraph answers it (the community subgraph adds the author's name). */
export interface ChatMessageModel {
  id: string;
  seq: number;
  panelId: string;
  text: string;
  author: { accountId: string; admin: boolean };
  created: number;
  streamSecond: number | null;
  /** A reply's answered message (the community subgraph adds its author's name). */
  replyTo: { id: string; accountId: string; excerpt: string } | null;
  /** Held for review: not in the room (seq 0) until a moderator approves it. */
  held: boolean;
  /** Delayed (delay_seconds): not in the room (seq 0) until this time, Unix ms. */
  dueAt: number | null;
}

export type MessageRow = {
  id: string;
  seq: number;
  panelId: string;
  text: string;
  accountId: string;
  admin: boolean;
  createdAt: Date;
  streamSecond: number | null;
  replyToId: string | null;
  replyAccountId: string | null;
  replyExcerpt: string | null;
};

export const toChatMessage = (row: MessageRow): ChatMessageModel => ({
  id: row.id,
  seq: row.seq,
  panelId: row.panelId,
  text: row.text,
  author: { accountId: row.accountId, admin: row.admin },
  created: row.createdAt.getTime(),
  streamSecond: row.streamSecond,
  replyTo: row.replyToId ? { id: row.replyToId, accountId: row.replyAccountId ?? '', excerpt: row.replyExcerpt ?? '' } : null,
  held: false,
  dueAt: null,
});
