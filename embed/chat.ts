/**
 * The chat embed (`/sdk/v1/chat.js`, loaded by `/embed/v1/chat?siteId=&panelId=`): a chat panel as a
 * page for an iframe. Live, it subscribes to `chatMessages(panelId)` over graphql-ws on its own origin
 * (Server-Sent Events when the socket cannot open: embed/liveClient.ts, as the overlay embed), and
 * shows the welcome message, rules link, history and live messages — always as text, never as HTML — and
 * removes deleted and cleared messages. A viewer with a token (`token` parameter or the `set:token`
 * message) gets a send box; refusals show inline (slow mode with its countdown). Without a token a
 * button asks the page around it to sign the viewer in. Messages are sent as `sendChatMessage` on the
 * same connection. After a dropped connection it reconnects with backoff and asks for what it missed
 * (`afterSeq`). With `mode=timecode` it replays a recording's chat
 * at the video's second, which the player helper posts (`chat:time`).
 */
import type { ChatEventView, ChatMessageView, ChatSystemView } from '../shared/contracts/chatEvents';
import { isChatTimeMessage, isSetTokenMessage, SDK_MESSAGE_SOURCE, SdkAction } from '../shared/contracts/viewerProtocol';
import { ChatModerationView, pendingElement, type SentMessage } from './chatModeration';
import { clearReply, decorateMessage, floatReactions, forgetRemoved, replyingTo, showPinned, showReactions, showViewers, startChatRoom } from './chatRoom';
import { backoffDelay, LiveClient, reportConnection, type ConnectionState } from './liveClient';

const SUBSCRIPTION = /* GraphQL */ `subscription EmbedChat($panelId: ID!, $afterSeq: Int) {
  chatMessages(panelId: $panelId, afterSeq: $afterSeq) {
    kind ids accountId viewers
    messages { id seq text author { accountId name admin } created streamSecond replyTo { id name excerpt } }
    system { name image welcomeMessage rulesLinkUrl loginButtonText allowLinks slowModeSeconds reactions pinned { messageId text author { name } } }
    reactions { emoji count }
  }
}`;
const SEND = /* GraphQL */ `mutation EmbedChatSend($panelId: ID!, $text: String!, $replyTo: ID) { sendChatMessage(panelId: $panelId, text: $text, replyTo: $replyTo) { id seq text held dueAt replyTo { id accountId name excerpt } } }`;
const REACT = /* GraphQL */ `mutation EmbedChatReact($panelId: ID!, $emoji: String!) { sendChatReaction(panelId: $panelId, emoji: $emoji) { emoji } }`;

/** What the embed is doing, readable by the page (and by tests) as `window.stagegraphChat`. */
export interface ChatEmbedState extends ConnectionState {
  mode: 'live' | 'timecode';
  /** The last seq shown (what a reconnect asks after). */
  lastSeq: number;
  /** Timecode mode: the recording's messages once its replay is loaded (null before). */
  replayed: number | null;
}

const KEPT_MESSAGES = 300;

const params = new URLSearchParams(location.search);
const siteId = params.get('siteId') ?? '';
const panelId = params.get('panelId') ?? '';
const mode: ChatEmbedState['mode'] = params.get('mode') === 'timecode' ? 'timecode' : 'live';
let token = params.get('token') || null;

const state: ChatEmbedState = { mode, transport: null, connected: false, connections: 0, drops: 0, lastSeq: 0, replayed: null };
(window as unknown as { stagegraphChat: ChatEmbedState }).stagegraphChat = state;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const welcome = byId<HTMLElement>('sg-chat-welcome');
const rules = byId<HTMLAnchorElement>('sg-chat-rules');
const list = byId<HTMLOListElement>('sg-chat-messages');
const form = byId<HTMLFormElement>('sg-chat-send');
const input = byId<HTMLInputElement>('sg-chat-text');
const sendButton = byId<HTMLButtonElement>('sg-chat-submit');
const refusal = byId<HTMLElement>('sg-chat-refusal');
const login = byId<HTMLButtonElement>('sg-chat-login');

let system: ChatSystemView | null = null;
// Chat moderation: the mode's notice and the viewer's warning in place of the send box, held messages.
const moderation = new ChatModerationView(panelId, () => showSender());

// ------------------------------------------------------------------ rendering (text only)

function messageElement(message: ChatMessageView): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'sg-chat-message';
  item.dataset.messageId = message.id;
  item.dataset.seq = String(message.seq);
  item.dataset.accountId = message.author.accountId;
  item.dataset.created = String(message.created);
  if (message.author.admin) item.dataset.admin = '';
  const name = document.createElement('span');
  name.className = 'sg-chat-name';
  name.textContent = message.author.name ?? 'viewer';
  const text = document.createElement('span');
  text.className = 'sg-chat-text';
  // textContent: whatever the message holds is shown as the characters it is, never parsed as HTML.
  text.textContent = message.text;
  item.append(name, text);
  decorateMessage(item, message);
  return item;
}

function addMessages(messages: ChatMessageView[]): void {
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  for (const message of messages) {
    // Never twice, whatever a reconnect brings.
    if (message.seq <= state.lastSeq && list.querySelector(`[data-seq="${message.seq}"]`)) continue;
    list.querySelector(`[data-pending-id="${CSS.escape(message.id)}"]`)?.remove();
    list.appendChild(messageElement(message));
    state.lastSeq = Math.max(state.lastSeq, message.seq);
  }
  while (list.children.length > KEPT_MESSAGES) list.firstElementChild?.remove();
  if (atBottom) list.scrollTop = list.scrollHeight;
}

function removeWhere(test: (item: HTMLElement) => boolean): void {
  for (const item of [...list.querySelectorAll<HTMLElement>('[data-message-id]')]) if (test(item)) item.remove();
  forgetRemoved((id) => list.querySelector(`[data-message-id="${CSS.escape(id)}"]`) !== null);
}

function showSystem(next: ChatSystemView): void {
  system = next;
  welcome.textContent = next.welcomeMessage ?? '';
  welcome.hidden = !next.welcomeMessage;
  const rulesUrl = next.rulesLinkUrl && /^https?:\/\//i.test(next.rulesLinkUrl) ? next.rulesLinkUrl : null;
  rules.hidden = rulesUrl === null;
  if (rulesUrl) rules.href = rulesUrl;
  showPinned(next.pinned, next);
  showSender();
}

function showSender(): void {
  const live = mode === 'live';
  form.hidden = !live || token === null || moderation.blocksSending();
  login.hidden = !live || token !== null;
  login.textContent = system?.loginButtonText || 'Log in to chat';
  showReactions(system?.reactions ?? [], live && token !== null);
}

function onEvent(event: ChatEventView): void {
  if (event.system) showSystem(event.system);
  if (event.reactions) floatReactions(event.reactions);
  showViewers(event.viewers);
  if (event.kind === 'MESSAGES') addMessages(event.messages);
  else if (event.kind === 'DELETED') {
    const ids = new Set(event.ids);
    removeWhere((item) => ids.has(item.dataset.messageId ?? ''));
  } else if (event.kind === 'CLEARED') {
    // The server clears an account's last 10 minutes.
    const since = Date.now() - 10 * 60 * 1000;
    removeWhere((item) => item.dataset.accountId === event.accountId && Number(item.dataset.created) >= since);
  }
}

// ------------------------------------------------------------------ refusals

let countdown: number | null = null;

function showRefusal(message: string, rule: string, retryAfter: number | null): void {
  if (countdown !== null) clearInterval(countdown);
  countdown = null;
  refusal.hidden = false;
  refusal.dataset.refusal = rule;
  refusal.textContent = message;
  if (retryAfter === null) return;
  let left = retryAfter;
  sendButton.disabled = true;
  const tick = () => {
    refusal.textContent = `${message.replace(/; try again in \d+ s$/, '')} — ${left} s`;
    refusal.dataset.secondsLeft = String(left);
    if (left <= 0) {
      if (countdown !== null) clearInterval(countdown);
      countdown = null;
      sendButton.disabled = false;
      hideRefusal();
    }
    left -= 1;
  };
  tick();
  countdown = window.setInterval(tick, 1000);
}

function hideRefusal(): void {
  refusal.hidden = true;
  refusal.textContent = '';
  delete refusal.dataset.refusal;
  delete refusal.dataset.secondsLeft;
}

interface SendError {
  message: string;
  extensions?: { code?: string; rule?: string; retryAfter?: number };
}

async function send(text: string): Promise<void> {
  const live = client;
  if (!live) return;
  const result = await live.execute({ query: SEND, variables: { panelId, text, replyTo: replyingTo() } }).catch((reason: unknown) => ({
    // Errors of a refused operation are shown as they are; anything else is the connection.
    errors: (Array.isArray(reason) ? reason : [{ message: 'not sent: the connection dropped, try again' }]) as readonly SendError[],
  }));
  const [error] = (result.errors ?? []) as readonly SendError[];
  if (!error) {
    input.value = '';
    clearReply();
    hideRefusal();
    // Held or delayed: only its author sees it now.
    const sent = ('data' in result ? (result.data as { sendChatMessage?: SentMessage } | null | undefined) : null)?.sendChatMessage;
    if (sent && (sent.held || sent.dueAt !== null)) list.appendChild(pendingElement(sent, 'you', messageElement));
    return;
  }
  showError(error);
}

function showError(error: SendError): void {
  const { code, rule, retryAfter } = error.extensions ?? {};
  if (rule === 'chat_mode' || rule === 'warned') void moderation.refresh(client, true);
  showRefusal(error.message, rule ?? (code ?? 'error').toLowerCase(), code === 'RATE_LIMITED' && typeof retryAfter === 'number' ? retryAfter : null);
}

form.addEventListener('submit', (submit) => {
  submit.preventDefault();
  const text = input.value.trim();
  if (text) void send(text);
});
/** A reaction goes on the same connection; only a refusal (the rate limit) shows. */
async function react(emoji: string): Promise<void> {
  const result = await client?.execute({ query: REACT, variables: { panelId, emoji } }).catch(() => null);
  const [error] = (result?.errors ?? []) as readonly SendError[];
  if (error) showError(error);
}

startChatRoom({ react: (emoji) => void react(emoji), focusInput: () => input.focus() });
login.addEventListener('click', () => window.parent.postMessage({ source: SDK_MESSAGE_SOURCE, action: SdkAction.login }, '*'));

// ------------------------------------------------------------------ live

let client: LiveClient | null = null;
let failures = 0;

/** A token the server refuses (expired, another site's): carry on as a reader. */
function dropToken(): void {
  token = null;
  void moderation.refresh(null, false);
  showSender();
}

/** A new live client (a new token): its connection retries by itself, over the socket or SSE. */
function connect(): void {
  client?.dispose();
  client = new LiveClient({ siteId, token: () => token, onTokenRefused: dropToken, ...reportConnection(state) });
  subscribeRoom(client);
  void moderation.refresh(client, token !== null);
}

/**
 * The room's subscription. Its request is made at each (re)subscription, so after a drop it says afterSeq
 * (the last seq shown) and the server sends exactly what was missed. An operation the server ended
 * (errors, complete) is subscribed again after a backoff.
 */
function subscribeRoom(live: LiveClient): void {
  const again = () => {
    if (client !== live) return;
    failures += 1;
    setTimeout(() => client === live && subscribeRoom(live), backoffDelay(failures));
  };
  live.subscribe<{ chatMessages: ChatEventView }>(() => ({ query: SUBSCRIPTION, variables: { panelId, afterSeq: state.lastSeq > 0 ? state.lastSeq : null } }), {
    next: (result) => {
      if (!result.data?.chatMessages) return;
      failures = 0;
      onEvent(result.data.chatMessages);
    },
    error: again,
    complete: again,
  });
}

// ------------------------------------------------------------------ timecode replay

async function replay(): Promise<void> {
  const recording = params.get('liveBroadcastId')
    ? `liveBroadcastId=${encodeURIComponent(params.get('liveBroadcastId') as string)}`
    : `videoId=${encodeURIComponent(params.get('videoId') ?? '')}`;
  const response = await fetch(`/chat/v1/${encodeURIComponent(panelId)}/replay?${recording}`, { headers: { 'x-service-client-id': siteId } });
  if (!response.ok) return;
  const messages = (await response.json()) as ChatMessageView[];
  let shownUpTo = -1;
  window.addEventListener('message', (message: MessageEvent) => {
    if (!isChatTimeMessage(message.data)) return;
    const second = message.data.data;
    // A seek back shows the chat as it stood at that second again.
    if (second < shownUpTo) {
      list.replaceChildren();
      state.lastSeq = 0;
      shownUpTo = -1;
    }
    addMessages(messages.filter((entry) => entry.streamSecond !== null && entry.streamSecond > shownUpTo && entry.streamSecond <= second));
    shownUpTo = second;
  });
  state.replayed = messages.length;
}

window.addEventListener('message', (message: MessageEvent) => {
  if (!isSetTokenMessage(message.data) || message.data.data === token) return;
  token = message.data.data;
  showSender();
  if (mode === 'live') connect();
});

showSender();
if (siteId && panelId) {
  if (mode === 'live') connect();
  else void replay();
}
