/**
 * Pins and announcements (moderators: C + D, or C + J with write on Panels): a room has at most one pin —
 * the panel is the ChatPin row's key, so two moderators pinning at once leave one pin, a database fact —
 * either one of its messages or an announcement's text. The pin is part of the room's system block
 * (`system.pinned`); every change is announced on the bus so each instance reads the block again and
 * sends its viewers a PINNED or UNPINNED event.
 */
import { requireAdmin } from '../../../shared/auth/access';
import { CHAT_MESSAGE_VERSION } from '../../../shared/contracts/chatEvents';
import type { Db } from '../../../shared/db/client';
import { badInput, notFound } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import { Scopes } from '../scopes';
import { isWaiting } from './delay';
import { checkedText } from './rules';
import type { ChatRuntime } from './runtime';

/** The room's pin as the content subgraph answers it (the community subgraph adds the author's name). */
export interface ChatPinModel {
  messageId: string | null;
  text: string;
  author: { accountId: string; admin: boolean } | null;
  pinnedAt: number;
}

type PinRow = { messageId: string | null; text: string; accountId: string | null; admin: boolean; pinnedAt: Date };

const toPin = (row: PinRow): ChatPinModel => ({
  messageId: row.messageId,
  text: row.text,
  author: row.accountId === null ? null : { accountId: row.accountId, admin: row.admin },
  pinnedAt: row.pinnedAt.getTime(),
});

/** The room's pin, or null; a pinned message removed since (a ban's clear) reads as no pin. */
export async function chatPinOf(db: Db, siteId: string, panelId: string): Promise<ChatPinModel | null> {
  const pin = await db.chatPin.findFirst({ where: { panelId, siteId } });
  if (!pin) return null;
  if (pin.messageId !== null) {
    const shown = await db.chatMessage.count({ where: { id: pin.messageId, siteId, panelId, deletedAt: null } });
    if (shown === 0) return null;
  }
  return toPin(pin);
}

/** Tells every instance the room's pin changed (they read its system block again). */
const announcePin = (runtime: ChatRuntime, siteId: string, panelId: string) => runtime.announce({ v: CHAT_MESSAGE_VERSION, kind: 'pinned', siteId, panelId });

/** Pins one of the room's messages, or an announcement's text, in place of the room's pin. */
export async function pinChatMessage(
  ctx: SubgraphContext,
  runtime: ChatRuntime,
  args: { panelId: string; messageId?: string | null; text?: string | null },
): Promise<ChatPinModel> {
  const siteId = requireAdmin(ctx.identity, Scopes.panels, { write: true });
  await runtime.room(ctx.db, siteId, args.panelId);
  const hasMessage = args.messageId !== null && args.messageId !== undefined;
  const hasText = args.text !== null && args.text !== undefined;
  if (hasMessage === hasText) throw badInput('give messageId (a message of this chat) or text (an announcement), not both', 'messageId');
  let row: Omit<PinRow, 'pinnedAt'>;
  if (hasMessage) {
    const messageId = String(args.messageId);
    const message = await ctx.db.chatMessage.findFirst({
      where: { id: messageId, siteId, panelId: args.panelId, deletedAt: null },
      select: { id: true, text: true, accountId: true, admin: true },
    });
    if (!message && (await isWaiting(ctx.db, siteId, args.panelId, messageId))) {
      throw badInput(`messageId: message ${messageId} is held for review or still in its delay; it can be pinned once it reaches the chat`, 'messageId');
    }
    if (!message) throw badInput(`messageId: this chat has no message ${messageId} (it may have been deleted, or belong to another chat)`, 'messageId');
    row = { messageId: message.id, text: message.text, accountId: message.accountId, admin: message.admin };
  } else {
    row = { messageId: null, text: checkedText(String(args.text)), accountId: null, admin: false };
  }
  const data = { ...row, siteId, pinnedAt: new Date() };
  const pin = await ctx.db.chatPin.upsert({ where: { panelId: args.panelId }, create: { panelId: args.panelId, ...data }, update: data });
  announcePin(runtime, siteId, args.panelId);
  return toPin(pin);
}

/** Removes the room's pin; NOT_FOUND when it has none. */
export async function unpinChatMessage(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string }) {
  const siteId = requireAdmin(ctx.identity, Scopes.panels, { write: true });
  await runtime.room(ctx.db, siteId, args.panelId);
  const { count } = await ctx.db.chatPin.deleteMany({ where: { panelId: args.panelId, siteId } });
  if (count === 0) throw notFound(`a pin in chat ${args.panelId}`);
  announcePin(runtime, siteId, args.panelId);
  return { success: true, panelId: args.panelId };
}

/** A deleted message leaves the pin it was (viewers get UNPINNED). */
export async function unpinDeletedMessage(db: Db, runtime: ChatRuntime, siteId: string, panelId: string, messageId: string): Promise<void> {
  const { count } = await db.chatPin.deleteMany({ where: { panelId, siteId, messageId } });
  if (count > 0) announcePin(runtime, siteId, panelId);
}
