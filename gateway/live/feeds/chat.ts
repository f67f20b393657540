/**
 * The `chatMessages` subscription: chat rooms live for thousands of viewers per instance.
 *
 * Each instance keeps, per room with viewers here, the room's settings (its system block) and its
 * recent messages. The content subgraph announces on the bus that a room holds messages up to a seq
 * (Topics.chat); the instance then reads what it has not seen from the database (seq > the last it
 * read), so every instance shows the same messages in the same order — the room's seq — whatever order
 * the bus brings announcements in, and none twice. Messages read within CHAT_BATCH_MS go out as one
 * event (at once when the room was quiet), rendered once per distinct selection, never once per viewer.
 * Deletions and clears are passed on as events, and remembered a while so a read that raced them does
 * not bring a removed message back.
 */
import { GraphQLError } from 'graphql';
import { Topics, type EventBus } from '../../../shared/bus';
import { CHAT_FIRST_EVENT_MESSAGES, type ChatBusMessage, type ChatEventView, type ChatMessageView } from '../../../shared/contracts/chatEvents';
import { ErrorCode } from '../../../shared/errors';
import type { Logger } from '../../../shared/logger';
import { onViewerReadsChanged } from '../../../shared/viewerReads';
import type { LiveStream, LiveStreamSubscription } from '../streams';
import { mergeCounts, systemChange, type ChatCounts } from './chatCounts';
import { addOutgoing, caughtUp, pass } from './chatPass';
import { emptyEvent, isClosed, newRoom, type Room, type Viewer } from './chatRoom';
import type { ChatSource } from './chatSource';

/** Recent messages a room keeps per instance: reconnects within them cost no read. */
const RING = 500;
/** Messages one read asks for. */
const READ_LIMIT = 500;
/** How long a deletion or clear is remembered against reads that raced it. */
const REMOVAL_MEMORY_MS = 60_000;
const RETRY_READ_MS = 1000;

export class ChatFeed implements LiveStream {
  private readonly rooms = new Map<string, Room>();
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly source: ChatSource,
    bus: EventBus,
    private readonly logger: Logger,
    private readonly batchMs: number,
  ) {
    this.unsubscribe = [
      bus.subscribe(Topics.chat, (message) => this.onMessage(message as ChatBusMessage)),
      // A panel's settings are content: a change of the site's content reads the system block again.
      onViewerReadsChanged(bus, (siteId) => {
        for (const room of this.rooms.values()) if (siteId === null || room.siteId === siteId) this.read(room);
      }),
    ];
  }

  close(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    for (const room of this.rooms.values()) this.drop(room);
  }

  subscribe(subscription: LiveStreamSubscription): () => void {
    const siteId = subscription.identity.siteId as string;
    const panelId = String(subscription.args.panelId);
    const afterSeq = subscription.args.afterSeq as number | null | undefined;
    if (typeof afterSeq === 'number' && afterSeq < 0) {
      subscription.fail([new GraphQLError('afterSeq must be a non-negative seq', { extensions: { code: ErrorCode.BAD_USER_INPUT, field: 'afterSeq' } })]);
      return () => undefined;
    }
    const room = this.roomOf(siteId, panelId);
    const viewer: Viewer = { subscription, afterSeq: afterSeq ?? null, started: false, hasThrough: 0, through: 0 };
    room.viewers.add(viewer);
    void room.loaded.then(() => this.start(room, viewer));
    return () => this.remove(room, viewer);
  }

  // ------------------------------------------------------------------ rooms

  private roomOf(siteId: string, panelId: string): Room {
    const key = `${siteId}\u0000${panelId}`;
    const existing = this.rooms.get(key);
    if (existing) return existing;
    const room = newRoom(key, siteId, panelId);
    room.loaded = this.source.read(siteId, panelId, null, RING).then(
      (view) => {
        room.system = view.system;
        room.recent = view.messages;
        const last = view.messages.at(-1)?.seq ?? 0;
        room.sentSeq = room.readSeq = last;
        room.coveredFrom = view.messages.length < RING ? 0 : view.messages[0].seq - 1;
        if (room.state.life === 'loading') room.state.life = 'open';
        if (room.announcedSeq > room.readSeq) this.read(room);
      },
      (error: unknown) => this.failAll(room, error),
    );
    this.rooms.set(key, room);
    return room;
  }

  private remove(room: Room, viewer: Viewer): void {
    if (room.viewers.delete(viewer) && room.viewers.size === 0) this.drop(room);
  }

  private drop(room: Room): void {
    room.state.life = 'closed';
    if (room.timer) clearTimeout(room.timer);
    room.timer = null;
    if (this.rooms.get(room.key) === room) this.rooms.delete(room.key);
  }

  private failAll(room: Room, error: unknown): void {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : new GraphQLError('the chat is unavailable, try again shortly', { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } });
    if (!(error instanceof GraphQLError)) this.logger.warn({ err: (error as Error).message, panelId: room.panelId }, 'could not read a chat room');
    this.drop(room);
    for (const viewer of [...room.viewers]) viewer.subscription.fail([graphqlError]);
    room.viewers.clear();
  }

  // ------------------------------------------------------------------ what the bus says

  private onMessage(message: ChatBusMessage): void {
    if (!message || typeof message !== 'object' || typeof message.v !== 'number' || typeof message.siteId !== 'string') return;
    if (message.kind === 'cleared') {
      for (const room of this.rooms.values()) if (room.siteId === message.siteId) this.clear(room, message.accountId, message.since);
      return;
    }
    const room = this.rooms.get(`${message.siteId}\u0000${message.panelId}`);
    if (!room || isClosed(room)) return;
    if (message.kind === 'stored') {
      room.announcedSeq = Math.max(room.announcedSeq, message.lastSeq);
      if (room.state.life === 'open' && message.lastSeq > room.readSeq) this.read(room);
    } else if (message.kind === 'deleted') this.delete(room, message.ids);
    else if (message.kind === 'pinned') this.read(room);
  }

  private delete(room: Room, ids: string[]): void {
    const now = Date.now();
    for (const id of ids) room.deleted.set(id, now);
    const gone = new Set(ids);
    room.pending = room.pending.filter((message) => !gone.has(message.id));
    room.recent = room.recent.filter((message) => !gone.has(message.id));
    room.pendingEvents.push({ ...emptyEvent('DELETED'), ids });
    this.changed(room);
  }

  private clear(room: Room, accountId: string, since: number): void {
    room.cleared.push({ accountId, since, at: Date.now() });
    const kept = (message: ChatMessageView) => message.author.accountId !== accountId || message.created < since;
    room.pending = room.pending.filter(kept);
    room.recent = room.recent.filter(kept);
    room.pendingEvents.push({ ...emptyEvent('CLEARED'), accountId });
    this.changed(room);
  }

  /** Whether a message read from the database was removed meanwhile (a read that raced a deletion or clear). */
  private removed(room: Room, message: ChatMessageView): boolean {
    const now = Date.now();
    for (const [id, at] of room.deleted) if (now - at > REMOVAL_MEMORY_MS) room.deleted.delete(id);
    room.cleared = room.cleared.filter((entry) => now - entry.at <= REMOVAL_MEMORY_MS);
    return room.deleted.has(message.id) || room.cleared.some((entry) => entry.accountId === message.author.accountId && message.created >= entry.since);
  }

  /** Reads what the room holds after the last seq read (and its system block); one read at a time per room. */
  private read(room: Room): void {
    const { state } = room;
    if (state.life !== 'open') return;
    if (state.read !== 'idle') {
      state.read = 'readingThenAgain';
      return;
    }
    void (async () => {
      try {
        do {
          state.read = 'reading';
          const view = await this.source.read(room.siteId, room.panelId, room.readSeq, READ_LIMIT);
          if (isClosed(room)) return;
          if (JSON.stringify(view.system) !== JSON.stringify(room.system)) {
            const kind = systemChange(room.system, view.system);
            room.system = view.system;
            room.pendingEvents.push({ ...emptyEvent(kind), system: view.system, ...(kind === 'PINNED' && { pinned: view.system.pinned }) });
            this.changed(room);
          }
          const fresh = view.messages.filter((message) => message.seq > room.readSeq);
          if (fresh.length > 0) {
            room.readSeq = fresh[fresh.length - 1].seq;
            room.pending.push(...fresh.filter((message) => !this.removed(room, message)));
            this.schedule(room);
          }
          if (view.messages.length === READ_LIMIT) state.read = 'readingThenAgain';
        } while (state.read === 'readingThenAgain' && !isClosed(room));
      } catch (error) {
        if (error instanceof GraphQLError && error.extensions.code === ErrorCode.NOT_FOUND) this.failAll(room, error);
        else {
          // A passing failure (a subgraph restarting): read again shortly.
          this.logger.warn({ err: (error as Error).message, panelId: room.panelId }, 'could not read new chat messages');
          setTimeout(() => this.read(room), RETRY_READ_MS).unref();
        }
      } finally {
        state.read = 'idle';
      }
    })();
  }

  // ------------------------------------------------------------------ pushes

  private changed(room: Room): void {
    room.firstFrames.clear();
    this.schedule(room);
  }

  /** A flush now when the room was quiet for a batch interval, else at the end of the interval. */
  private schedule(room: Room): void {
    if (room.timer || isClosed(room)) return;
    const wait = Math.max(0, room.lastFlushAt + this.batchMs - Date.now());
    room.timer = setTimeout(() => {
      room.timer = null;
      this.flush(room);
    }, wait);
    room.timer.unref();
  }

  /**
   * Sends what came since the last flush as one event. A pass over the viewers still under way takes it
   * in (chatPass.ts): viewers it has not reached get it with the push they were waiting for, in one frame.
   */
  private flush(room: Room): void {
    if (isClosed(room)) return;
    const events = room.pendingEvents;
    room.pendingEvents = [];
    const messages = room.pending.sort((a, b) => a.seq - b.seq);
    room.pending = [];
    const counts = room.counts;
    room.counts = null;
    if (counts && messages.length === 0) events.push({ ...emptyEvent(counts.reactions ? 'REACTIONS' : 'VIEWERS'), ...counts });
    if (messages.length > 0) {
      // Counts ride on the messages' event: a viewer gets one frame for both.
      events.push({ ...emptyEvent('MESSAGES'), messages, ...counts });
      room.recent.push(...messages);
      room.sentSeq = messages[messages.length - 1].seq;
      if (room.recent.length > RING) room.coveredFrom = room.recent.splice(0, room.recent.length - RING).at(-1)?.seq ?? room.coveredFrom;
    }
    if (events.length === 0) return;
    room.lastFlushAt = Date.now();
    room.firstFrames.clear();
    if (!addOutgoing(room, events)) return;
    room.state.push = 'sending';
    void pass(room)
      .catch((error: Error) => this.logger.error({ err: error.message, panelId: room.panelId }, 'could not send chat events'))
      .finally(() => {
        room.state.push = 'idle';
      });
  }

  /** The first event: the system block and the last 50 messages, or every message after the viewer's afterSeq. */
  private async start(room: Room, viewer: Viewer): Promise<void> {
    if (viewer.started || room.state.life !== 'open' || !room.viewers.has(viewer)) return;
    const { afterSeq } = viewer;
    if (afterSeq === null) {
      viewer.started = true;
      caughtUp(room, viewer);
      const key = viewer.subscription.documentKey;
      let frame = room.firstFrames.get(key);
      if (!frame)
        room.firstFrames.set(key, (frame = viewer.subscription.render({ chatMessages: this.firstEvent(room, room.recent.slice(-CHAT_FIRST_EVENT_MESSAGES)) })));
      viewer.subscription.send(frame);
      return;
    }
    let missed: ChatMessageView[];
    if (afterSeq >= room.coveredFrom) missed = room.recent.filter((message) => message.seq > afterSeq);
    else {
      let older: ChatMessageView[];
      try {
        older = (await this.source.read(room.siteId, room.panelId, afterSeq, READ_LIMIT)).messages;
      } catch (error) {
        if (room.viewers.has(viewer)) {
          room.viewers.delete(viewer);
          viewer.subscription.fail([
            error instanceof GraphQLError
              ? error
              : new GraphQLError('the chat is unavailable, try again shortly', { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } }),
          ]);
        }
        return;
      }
      if (!room.viewers.has(viewer) || isClosed(room)) return;
      // What the database gave up to what went out here, then the ring after it: each message once.
      const upTo = older.filter((message) => message.seq <= room.sentSeq && !this.removed(room, message));
      const through = upTo.at(-1)?.seq ?? afterSeq;
      missed = [...upTo, ...room.recent.filter((message) => message.seq > through)];
    }
    viewer.started = true;
    caughtUp(room, viewer);
    if (afterSeq > room.sentSeq) viewer.hasThrough = afterSeq;
    viewer.subscription.send(viewer.subscription.render({ chatMessages: this.firstEvent(room, missed) }));
  }

  private firstEvent(room: Room, messages: ChatMessageView[]): ChatEventView {
    return { ...emptyEvent('MESSAGES'), messages, system: room.system, viewers: room.viewersCounted };
  }

  /** Adds reaction counts or the room's viewer count to its next event, if the room has viewers here. */
  addCounts(siteId: string, panelId: string, counts: ChatCounts): void {
    const room = this.rooms.get(`${siteId}\u0000${panelId}`);
    if (!room || isClosed(room)) return;
    room.counts = mergeCounts(room.counts, counts);
    if (counts.viewers !== undefined) {
      room.viewersCounted = counts.viewers;
      room.firstFrames.clear();
    }
    this.schedule(room);
  }

  /** The room's emoji when it is loaded here, else null (what the reaction fast path trusts: gateway/live/fastReactions.ts). */
  reactionsOf(siteId: string, panelId: string): readonly string[] | null {
    const room = this.rooms.get(`${siteId}\u0000${panelId}`);
    return room?.state.life === 'open' && room.system ? room.system.reactions : null;
  }

  /** Each room with viewers here, and how many (what this instance reports for the room's occupancy). */
  roomViewers(): [siteId: string, panelId: string, viewers: number][] {
    return [...this.rooms.values()].filter((room) => !isClosed(room) && room.viewers.size > 0).map((room) => [room.siteId, room.panelId, room.viewers.size]);
  }
}
