/**
 * Reactions and occupancy of chat rooms, across instances, for the chat feed (chat.ts).
 *
 * Reactions: every content instance publishes its rooms' counts once a second (Topics.chatReactions);
 * this instance adds up what all of them published and hands each room with viewers here one set of
 * counts per second at most (one REACTIONS event, or the counts riding on that moment's MESSAGES event).
 * Every count published is added exactly once, so the totals viewers see are exact.
 *
 * Occupancy: every few seconds each instance publishes how many viewers each of its rooms has here
 * (Topics.chatOccupancy), a report that replaces its previous one; each instance sums the latest report of
 * every instance still reporting, and tells a room's viewers when its total changed — a count, never who.
 */
import { randomUUID } from 'node:crypto';
import { Topics, type EventBus } from '../../../shared/bus';
import { CHAT_MESSAGE_VERSION, type ChatOccupancyReport, type ChatReactionsMessage } from '../../../shared/contracts/chatEvents';
import type { Logger } from '../../../shared/logger';
import type { ChatCountsTarget } from './chatCounts';

export interface ChatReactionsOptions {
  /** Milliseconds between a room's reaction counts (default 1000: one REACTIONS event per second at most). */
  reactionsMs?: number;
  /** Milliseconds between occupancy reports and viewer counts (default 5000). */
  occupancyMs?: number;
}

/** An instance whose report is this many intervals old has stopped (its viewers are no longer counted). */
const STALE_REPORTS = 3;
const MAX_EMOJI_PER_MESSAGE = 64;

export class ChatRoomCounts {
  private readonly instanceId = randomUUID();
  /** `siteId \0 panelId` → emoji → reactions not yet handed to the feed. */
  private readonly reactions = new Map<string, Map<string, number>>();
  /** Each instance's latest report. */
  private readonly reports = new Map<string, ChatOccupancyReport & { receivedAt: number }>();
  /** The viewer count each room's viewers were last told. */
  private readonly told = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[];
  private readonly unsubscribe: (() => void)[];
  private readonly occupancyMs: number;

  constructor(
    private readonly feed: ChatCountsTarget,
    private readonly bus: EventBus,
    private readonly logger: Logger,
    options: ChatReactionsOptions = {},
  ) {
    this.occupancyMs = options.occupancyMs ?? 5000;
    this.unsubscribe = [
      bus.subscribe(Topics.chatReactions, (message) => this.onReactions(message as ChatReactionsMessage)),
      bus.subscribe(Topics.chatOccupancy, (message) => this.onOccupancy(message as ChatOccupancyReport)),
    ];
    this.timers = [setInterval(() => this.handReactions(), options.reactionsMs ?? 1000), setInterval(() => this.reportOccupancy(), this.occupancyMs)];
    for (const timer of this.timers) timer.unref();
  }

  close(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    for (const timer of this.timers) clearInterval(timer);
  }

  private onReactions(message: ChatReactionsMessage): void {
    if (!message || typeof message !== 'object' || typeof message.siteId !== 'string' || typeof message.panelId !== 'string' || !message.counts) return;
    const key = `${message.siteId}\u0000${message.panelId}`;
    let room = this.reactions.get(key);
    if (!room) this.reactions.set(key, (room = new Map<string, number>()));
    for (const [emoji, count] of Object.entries(message.counts).slice(0, MAX_EMOJI_PER_MESSAGE)) {
      if (Number.isInteger(count) && count > 0) room.set(emoji, (room.get(emoji) ?? 0) + count);
    }
  }

  /** Once a second: each room's counts to the feed (rooms without viewers here drop theirs). */
  private handReactions(): void {
    for (const [key, room] of this.reactions) {
      const [siteId, panelId] = key.split('\u0000');
      this.feed.addCounts(siteId, panelId, { reactions: [...room].map(([emoji, count]) => ({ emoji, count })) });
    }
    this.reactions.clear();
  }

  private reportOccupancy(): void {
    const report: ChatOccupancyReport = { v: CHAT_MESSAGE_VERSION, instanceId: this.instanceId, at: Date.now(), rooms: this.feed.roomViewers() };
    // An instance without viewers reports once (so others stop counting it), then only when it has some.
    const previous = this.reports.get(this.instanceId);
    this.reports.set(this.instanceId, { ...report, receivedAt: report.at });
    if (report.rooms.length === 0 && previous && previous.rooms.length === 0) return this.tellViewers();
    this.bus.publish(Topics.chatOccupancy, report).catch((error: Error) => this.logger.warn({ err: error.message }, 'chat occupancy report not sent'));
    this.tellViewers();
  }

  private onOccupancy(report: ChatOccupancyReport): void {
    if (!report || typeof report.instanceId !== 'string' || !Array.isArray(report.rooms) || report.instanceId === this.instanceId) return;
    this.reports.set(report.instanceId, { ...report, receivedAt: Date.now() });
  }

  /** Sums the fresh reports per room, and tells each room with viewers here when its total changed. */
  private tellViewers(): void {
    const now = Date.now();
    const totals = new Map<string, number>();
    for (const [instanceId, report] of this.reports) {
      if (now - report.receivedAt > STALE_REPORTS * this.occupancyMs) {
        this.reports.delete(instanceId);
        continue;
      }
      for (const [siteId, panelId, viewers] of report.rooms) {
        if (typeof viewers === 'number') totals.set(`${siteId}\u0000${panelId}`, (totals.get(`${siteId}\u0000${panelId}`) ?? 0) + viewers);
      }
    }
    for (const [siteId, panelId] of this.feed.roomViewers()) {
      const key = `${siteId}\u0000${panelId}`;
      const total = totals.get(key);
      if (total === undefined || this.told.get(key) === total) continue;
      this.told.set(key, total);
      this.feed.addCounts(siteId, panelId, { viewers: total });
    }
    for (const key of this.told.keys()) if (!totals.has(key)) this.told.delete(key);
  }
}
