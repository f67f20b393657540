/**
 * The chat page's moderation elements (embed/chat.ts): what the room's mode and the viewer's warnings
 * leave of the send box. A signed-in viewer's state (`chatViewerState`) is read when the page connects
 * and after a refusal that names a mode or a warning: "subscribers only" / "announcements only" stand in
 * place of the send box when the mode keeps the viewer out, and an open warning is shown with its
 * acknowledge button (`acknowledgeChatWarning`), which gives the send box back. A message the server held
 * for review is shown to its author only, marked "held for review"; a delayed one is shown to its author
 * at once, marked until the room's own copy (same ID) replaces it.
 */
import type { ChatMessageView } from '../shared/contracts/chatEvents';
import type { LiveClient } from './liveClient';

const STATE = /* GraphQL */ `query EmbedChatState($panelId: ID!) { chatViewerState(panelId: $panelId) { canSend refusal warning { id reason } } }`;
const ACKNOWLEDGE = /* GraphQL */ `mutation EmbedChatAcknowledge { acknowledgeChatWarning { acknowledged } }`;

const CLOSED_TEXT: Record<string, string> = { entitled: 'Subscribers only', admins: 'Announcements only' };

/** A send's answer as the page reads it. */
export interface SentMessage {
  id: string;
  seq: number;
  text: string;
  held: boolean;
  dueAt: number | null;
  replyTo: ChatMessageView['replyTo'];
}

type ViewerState = { canSend: boolean; refusal: string | null; warning: { id: string; reason: string } | null };

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export class ChatModerationView {
  private readonly closed = byId<HTMLElement>('sg-chat-closed');
  private readonly warning = byId<HTMLElement>('sg-chat-warning');
  private readonly warningText = byId<HTMLElement>('sg-chat-warning-text');
  private readonly acknowledge = byId<HTMLButtonElement>('sg-chat-ack');
  private refusal: string | null = null;
  private open: { id: string; reason: string } | null = null;
  private client: LiveClient | null = null;

  /** `changed` shows the send box again (or hides it) once the state is known. */
  constructor(
    private readonly panelId: string,
    private readonly changed: () => void,
  ) {
    this.acknowledge.addEventListener('click', () => void this.acknowledgeWarning());
  }

  /** Whether the mode or a warning keeps the viewer from sending. */
  blocksSending(): boolean {
    return this.refusal !== null || this.open !== null;
  }

  /** Reads the viewer's state in the room (a signed-in viewer's client); nothing is shown without one. */
  async refresh(client: LiveClient | null, signedIn: boolean): Promise<void> {
    this.client = client;
    if (!client || !signedIn) {
      this.refusal = null;
      this.open = null;
    } else {
      const result = await client.execute<{ chatViewerState: ViewerState }>({ query: STATE, variables: { panelId: this.panelId } }).catch(() => null);
      const state = result?.data?.chatViewerState;
      if (!state) return;
      this.refusal = state.refusal;
      this.open = state.warning;
    }
    this.render(signedIn);
    this.changed();
  }

  private render(signedIn: boolean): void {
    const closedText = this.refusal ? (CLOSED_TEXT[this.refusal] ?? 'Chat closed') : null;
    this.closed.hidden = !signedIn || closedText === null;
    this.closed.textContent = closedText ?? '';
    if (this.refusal) this.closed.dataset.mode = this.refusal;
    else delete this.closed.dataset.mode;
    this.warning.hidden = !signedIn || this.open === null;
    this.warningText.textContent = this.open ? `Warning from the moderators: ${this.open.reason}` : '';
    this.acknowledge.disabled = false;
  }

  private async acknowledgeWarning(): Promise<void> {
    if (!this.client) return;
    this.acknowledge.disabled = true;
    await this.client.execute({ query: ACKNOWLEDGE, variables: {} }).catch(() => null);
    await this.refresh(this.client, true);
  }
}

/** The author's own copy of a message not in the room yet: held for review, or delayed. */
export function pendingElement(sent: SentMessage, name: string, make: (message: ChatMessageView) => HTMLLIElement): HTMLLIElement {
  const item = make({
    id: sent.id,
    seq: 0,
    panelId: '',
    text: sent.text,
    author: { accountId: '', name, admin: false },
    created: Date.now(),
    streamSecond: null,
    held: sent.held,
    dueAt: sent.dueAt,
    replyTo: sent.replyTo,
  });
  item.classList.add('sg-chat-pending');
  // Not in the room yet: nobody can answer it (the server refuses a reply to it too).
  item.querySelector('.sg-chat-reply')?.remove();
  // The room's copy (a delayed message, or an approved one) is found by this ID and replaces it.
  item.dataset.pendingId = sent.id;
  delete item.dataset.messageId;
  delete item.dataset.seq;
  if (sent.held) {
    item.dataset.held = '';
    const note = document.createElement('span');
    note.className = 'sg-chat-held';
    note.textContent = 'held for review';
    item.append(note);
  }
  return item;
}
