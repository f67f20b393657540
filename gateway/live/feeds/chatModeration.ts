/**
 * The `chatModeration` subscription: a chat room's moderation queue live, for its moderators only.
 *
 * A subscription starts with the room's queue read through the gateway as the subscriber itself, so the
 * content subgraph decides who is a moderator (FORBIDDEN, NOT_FOUND end the subscription). Then the
 * content subgraph's announcements on the bus (Topics.chat, kind `moderation`: a message held or
 * delayed, a report, a decision) go to the room's moderators on every instance, each event rendered once
 * per distinct selection. Events that come while the queue is being read follow it, without what it
 * already holds.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Identity } from '../../../shared/auth/identity';
import { Topics, type EventBus } from '../../../shared/bus';
import type { ChatBusMessage, ChatModerationEventView } from '../../../shared/contracts/chatEvents';
import { ErrorCode } from '../../../shared/errors';
import type { Logger } from '../../../shared/logger';
import type { LiveStream, LiveStreamSubscription } from '../streams';
import type { RenderedEvent } from '../viewerChannel';

const QUEUE_READ = /* GraphQL */ `
  query LiveChatModerationQueue($panelId: ID!) {
    chatModerationQueue(panelId: $panelId) {
      held { id panelId text accountId reason created dueAt }
      reports { id panelId messageId text accountId reason created }
    }
  }
`;
export const CHAT_MODERATION_OPERATIONS = [QUEUE_READ];

type Execute = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

interface Moderator {
  subscription: LiveStreamSubscription;
  /** Events that came before the queue was sent. */
  waiting: ChatModerationEventView[] | null;
  /** What the queue held: an announcement of it that the bus brings late is not sent again. */
  known: Set<string>;
}

const isKnown = (moderator: Moderator, event: ChatModerationEventView) =>
  event.kind !== 'DECIDED' && [...event.held, ...event.reports].every((item) => moderator.known.has(item.id));

export class ChatModerationFeed implements LiveStream {
  private readonly rooms = new Map<string, Set<Moderator>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly execute: Execute,
    bus: EventBus,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = bus.subscribe(Topics.chat, (message) => this.onMessage(message as ChatBusMessage));
  }

  close(): void {
    this.unsubscribe();
    this.rooms.clear();
  }

  subscribe(subscription: LiveStreamSubscription): () => void {
    const key = `${subscription.identity.siteId}\u0000${String(subscription.args.panelId)}`;
    const moderator: Moderator = { subscription, waiting: [], known: new Set() };
    let room = this.rooms.get(key);
    if (!room) this.rooms.set(key, (room = new Set()));
    room.add(moderator);
    void this.start(key, moderator);
    return () => this.remove(key, moderator);
  }

  private remove(key: string, moderator: Moderator): void {
    const room = this.rooms.get(key);
    if (room?.delete(moderator) && room.size === 0) this.rooms.delete(key);
  }

  private async start(key: string, moderator: Moderator): Promise<void> {
    const { subscription } = moderator;
    let queue: Pick<ChatModerationEventView, 'held' | 'reports'>;
    try {
      const result = await this.execute({ query: QUEUE_READ, variables: { panelId: subscription.args.panelId } }, subscription.identity);
      const [error] = result.errors ?? [];
      if (error) throw new GraphQLError(error.message, { extensions: { code: error.extensions?.code } });
      queue = (result.data as { chatModerationQueue: typeof queue }).chatModerationQueue;
    } catch (error) {
      if (!(error instanceof GraphQLError)) this.logger.warn({ err: (error as Error).message }, 'could not read a chat moderation queue');
      this.remove(key, moderator);
      subscription.fail([
        error instanceof GraphQLError
          ? error
          : new GraphQLError('the chat is unavailable, try again shortly', { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } }),
      ]);
      return;
    }
    if (!this.rooms.get(key)?.has(moderator)) return;
    subscription.send(subscription.render({ chatModeration: { kind: 'QUEUE', held: queue.held, reports: queue.reports, id: null, decision: null } }));
    moderator.known = new Set([...queue.held, ...queue.reports].map((item) => item.id));
    const waiting = moderator.waiting ?? [];
    moderator.waiting = null;
    for (const event of waiting) if (!isKnown(moderator, event)) subscription.send(subscription.render({ chatModeration: event }));
  }

  private onMessage(message: ChatBusMessage): void {
    if (!message || typeof message !== 'object' || message.kind !== 'moderation' || typeof message.siteId !== 'string') return;
    const room = this.rooms.get(`${message.siteId}\u0000${message.panelId}`);
    if (!room) return;
    const rendered = new Map<string, RenderedEvent>();
    for (const moderator of room) {
      if (moderator.waiting) {
        moderator.waiting.push(message.event);
        continue;
      }
      if (isKnown(moderator, message.event)) continue;
      const { subscription } = moderator;
      let frame = rendered.get(subscription.documentKey);
      if (!frame) rendered.set(subscription.documentKey, (frame = subscription.render({ chatModeration: message.event })));
      subscription.send(frame);
    }
  }
}
