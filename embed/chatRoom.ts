/**
 * What the chat page (embed/chat.ts) shows of a room beyond its messages: the pinned message or
 * announcement on top, a reply button on each message (the reply being written shown above the send
 * box, a reply's answered message shown as its author and first words), the room's reaction buttons
 * with the counts that arrive floating up over the messages, and how many watch. Everything is text:
 * names, excerpts, pins and emoji are set as textContent, never parsed as HTML.
 */
import type { ChatMessageView, ChatPinView, ChatReactionCount, ChatSystemView } from '../shared/contracts/chatEvents';

/** How long a floating count stays on screen. */
const FLOAT_MS = 2500;
/** Floating counts on screen at most (a burst of emoji never piles up). */
const MAX_FLOATS = 24;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const pinned = byId<HTMLElement>('sg-chat-pinned');
const reactionBar = byId<HTMLElement>('sg-chat-reactions');
const floats = byId<HTMLElement>('sg-chat-floats');
const replying = byId<HTMLElement>('sg-chat-replying');
const viewersLine = byId<HTMLElement>('sg-chat-viewers');

export interface ChatRoomHooks {
  /** Sends a reaction (the page holds the connection). */
  react(emoji: string): void;
  /** Puts the cursor in the send box once a reply is chosen. */
  focusInput(): void;
}

let hooks: ChatRoomHooks = { react: () => undefined, focusInput: () => undefined };
let replyTo: { id: string; name: string } | null = null;
let shownReactions = '';

/** Wires the room's controls to the page. */
export function startChatRoom(pageHooks: ChatRoomHooks): void {
  hooks = pageHooks;
  byId<HTMLButtonElement>('sg-chat-reply-cancel').addEventListener('click', () => clearReply());
}

const span = (className: string, text: string) => {
  const element = document.createElement('span');
  element.className = className;
  element.textContent = text;
  return element;
};

/** Adds what a message shows of the room: the message it answers (above its text) and its reply button. */
export function decorateMessage(item: HTMLElement, message: ChatMessageView): void {
  if (message.replyTo) {
    const quote = document.createElement('span');
    quote.className = 'sg-chat-reply-to';
    quote.dataset.replyTo = message.replyTo.id;
    quote.append(span('sg-chat-reply-name', message.replyTo.name ?? 'viewer'), span('sg-chat-reply-excerpt', message.replyTo.excerpt));
    item.prepend(quote);
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'sg-chat-reply';
  button.textContent = 'Reply';
  button.setAttribute('aria-label', `Reply to ${message.author.name ?? 'viewer'}`);
  button.addEventListener('click', () => {
    replyTo = { id: message.id, name: message.author.name ?? 'viewer' };
    replying.hidden = false;
    replying.dataset.replyTo = message.id;
    byId<HTMLElement>('sg-chat-replying-text').textContent = `Replying to ${replyTo.name}`;
    hooks.focusInput();
  });
  item.append(button);
}

/** The message the viewer is answering (null: none), what a send carries as replyTo. */
export const replyingTo = (): string | null => replyTo?.id ?? null;

/** After a send, or on cancel: no reply being written. */
export function clearReply(): void {
  replyTo = null;
  replying.hidden = true;
  delete replying.dataset.replyTo;
}

/** A message that left the screen can no longer be answered. */
export function forgetRemoved(stillShown: (id: string) => boolean): void {
  if (replyTo && !stillShown(replyTo.id)) clearReply();
}

/** The room's pin on top (an announcement under the room's system name), or nothing. */
export function showPinned(pin: ChatPinView | null | undefined, system: ChatSystemView): void {
  pinned.replaceChildren();
  pinned.hidden = !pin;
  if (!pin) {
    delete pinned.dataset.messageId;
    return;
  }
  pinned.dataset.messageId = pin.messageId ?? '';
  pinned.append(
    span('sg-chat-pinned-label', '📌'),
    span('sg-chat-name', pin.author?.name ?? system.name ?? 'Announcement'),
    span('sg-chat-pinned-text', pin.text),
  );
}

/** The room's reaction buttons, for a viewer who can react (one with a token). */
export function showReactions(emoji: readonly string[], canReact: boolean): void {
  reactionBar.hidden = !canReact || emoji.length === 0;
  const key = emoji.join('\u0000');
  if (key === shownReactions) return;
  shownReactions = key;
  reactionBar.replaceChildren(
    ...emoji.map((entry) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'sg-chat-react';
      button.dataset.emoji = entry;
      button.textContent = entry;
      button.addEventListener('click', () => hooks.react(entry));
      return button;
    }),
  );
}

/** Counts that arrived float up over the messages and fade: one element per emoji, with its count. */
export function floatReactions(counts: readonly ChatReactionCount[]): void {
  for (const { emoji, count } of counts) {
    if (count <= 0) continue;
    while (floats.children.length >= MAX_FLOATS) floats.firstElementChild?.remove();
    const element = span('sg-chat-float', count > 1 ? `${emoji} ×${count}` : emoji);
    element.dataset.emoji = emoji;
    element.dataset.count = String(count);
    element.style.left = `${10 + Math.random() * 70}%`;
    floats.append(element);
    window.setTimeout(() => element.remove(), FLOAT_MS);
  }
}

/** How many watch the room (a count from the server, never who). */
export function showViewers(viewers: number | null | undefined): void {
  if (typeof viewers !== 'number') return;
  viewersLine.hidden = false;
  viewersLine.dataset.viewers = String(viewers);
  viewersLine.textContent = viewers === 1 ? '1 watching' : `${viewers.toLocaleString()} watching`;
}
