/**
 * Replies: a message may answer another message of the same room, and carries what a viewer needs to
 * show it (the answered message's ID, author and first words) as it was when the reply was sent, so a
 * later edit of history never rewrites a reply.
 */
import { badInput } from '../../../shared/errors';
import type { Db } from '../../../shared/db/client';
import { isWaiting } from './delay';

/** Characters of the answered message a reply keeps. */
export const REPLY_EXCERPT_LENGTH = 80;

export interface ReplyTarget {
  replyToId: string;
  replyAccountId: string;
  replyExcerpt: string;
}

/** The first words of a text, cut at a character (never inside a surrogate pair), with an ellipsis when cut. */
export function excerptOf(text: string): string {
  const characters = [...text];
  return characters.length <= REPLY_EXCERPT_LENGTH ? text : `${characters.slice(0, REPLY_EXCERPT_LENGTH - 1).join('')}…`;
}

/**
 * The message a reply answers, or BAD_USER_INPUT naming replyTo when the room holds no such message
 * still shown (another room's or site's message reads as none, a deleted one too).
 */
export async function replyTarget(db: Db, siteId: string, panelId: string, replyTo: string | null | undefined): Promise<ReplyTarget | null> {
  if (replyTo === null || replyTo === undefined) return null;
  if (typeof replyTo !== 'string' || replyTo.trim() === '' || replyTo.length > 64)
    throw badInput('replyTo must be the ID of a message of this chat', 'replyTo');
  const message = await db.chatMessage.findFirst({
    where: { id: replyTo, siteId, panelId, deletedAt: null },
    select: { id: true, accountId: true, text: true },
  });
  if (!message && (await isWaiting(db, siteId, panelId, replyTo))) {
    throw badInput(`replyTo: message ${replyTo} is held for review or still in its delay; it can be answered once it reaches the chat`, 'replyTo');
  }
  if (!message) throw badInput(`replyTo: this chat has no message ${replyTo} (it may have been deleted, or belong to another chat)`, 'replyTo');
  return { replyToId: message.id, replyAccountId: message.accountId, replyExcerpt: excerptOf(message.text) };
}
