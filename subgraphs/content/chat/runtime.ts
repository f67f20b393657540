/**
 * The content subgraph's chat state, one per server: the batching writer, the rate limits (20
 * messages per 30 s per account across the site, and each room's slow mode; in Redis when REDIS_URL is
 * set, so N instances allow what one does), room settings read at most half a second ago (dropped at
 * once when the site's content changes), the retention sweep, and the bus announcements that tell
 * every instance's viewers a room changed (held while Redis is away and published once it is back, so a
 * message acknowledged during a blip still reaches every instance: shared/bus/announcer.ts).
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { openRateLimiters, spendLimit, type LimitOptions, type RateLimiters } from '../../../shared/rateLimits';
import { Topics } from '../../../shared/bus';
import { CHAT_MESSAGE_VERSION, type ChatBusMessage } from '../../../shared/contracts/chatEvents';
import { holdChatReactions, type ChatReactionCounter } from '../../../shared/chatReactions';
import type { Db } from '../../../shared/db/client';
import { appError, ErrorCode } from '../../../shared/errors';
import { recordingOfChannel } from '../../../shared/contracts/recordings';
import type { ServiceDeps, SubgraphContext } from '../../../shared/subgraph';
import type { ChannelRecording } from '../../../shared/contracts/viewerProtocol';
import { PanelRooms } from '../panelRooms';
import { DuePublisher } from './delay';
import { chatModerationOf, type ChatModeration } from './moderationSchema';
import { chatSettingsOf, isChatRenderer, type ChatSettings } from './rules';
import { ChatWriter, type StoredRooms } from './store';

/** Messages per account across the site's chats. */
const SITE_LIMIT = { keyPrefix: 'chat-site', points: 20, duration: 30 };
/** Recordings kept at most (one per room's channel). */
const SETTINGS_MAX = 10_000;
/** How long a channel's recording state is reused for stamping messages. */
const RECORDING_TTL_MS = 1000;
const RETENTION_SWEEP_MS = 60 * 60 * 1000;

export type RateRule = 'site' | 'slow_mode' | 'reactions';

/** A room's settings: the seed's and the moderation ones (modes.ts). */
export type RoomSettings = ChatSettings & { moderation: ChatModeration };

interface Cached<T> {
  value: T;
  expires: number;
}

export class ChatRuntime {
  readonly writer: ChatWriter;
  readonly reactions: ChatReactionCounter;
  /** The instance's reactions, shared with the live server's fast path (shared/chatReactions.ts). */
  private readonly reactionsHeld: ReturnType<typeof holdChatReactions>;
  private readonly limits: RateLimiters;
  private readonly siteLimit: RateLimiterAbstract;
  private readonly slowLimits = new Map<number, RateLimiterAbstract>();
  readonly due: DuePublisher;
  private readonly rooms: PanelRooms<RoomSettings>;
  private readonly recordings = new Map<string, Cached<Promise<ChannelRecording | null>>>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly deps: Pick<ServiceDeps, 'config' | 'database' | 'bus' | 'logger'>) {
    const { config, database, logger } = deps;
    this.writer = new ChatWriter(database, (rooms) => this.announceStored(rooms));
    // A delayed message that reached its room leaves the moderators' queue on every instance.
    this.due = new DuePublisher(database.prisma, this.writer, logger, (row) =>
      this.announce({
        v: CHAT_MESSAGE_VERSION,
        kind: 'moderation',
        siteId: row.siteId,
        panelId: row.panelId,
        event: { kind: 'DECIDED', held: [], reports: [], id: row.id, decision: 'published' },
      }),
    );
    this.limits = openRateLimiters(config, logger);
    this.siteLimit = this.limiter(SITE_LIMIT);
    this.reactionsHeld = holdChatReactions(deps);
    this.reactions = this.reactionsHeld.reactions.counter;
    this.rooms = new PanelRooms(
      deps.bus,
      (renderer) => (isChatRenderer(renderer) ? { ...chatSettingsOf(renderer), moderation: chatModerationOf(renderer) } : null),
      'chat panel',
    );
    this.sweep = setInterval(() => void this.forgetExpired(), RETENTION_SWEEP_MS);
    this.sweep.unref();
  }

  /** A limiter in Redis when there is one (each instance counts alone only while Redis is away). */
  private limiter(options: LimitOptions): RateLimiterAbstract {
    return this.limits.limiter(options);
  }

  /** The room's settings, or NOT_FOUND when the site has no such panel or it is no chat. */
  room(db: Db, siteId: string, panelId: string): Promise<RoomSettings> {
    return this.rooms.room(db, siteId, panelId);
  }

  /** The recording of the first of the room's channels that records now (null when none does). */
  async roomRecording(ctx: Pick<SubgraphContext, 'supergraph' | 'logger'>, siteId: string, room: ChatSettings): Promise<ChannelRecording | null> {
    for (const channelId of room.channelIds) {
      const recording = await this.recording(ctx, siteId, channelId);
      if (recording) return recording;
    }
    return null;
  }

  /** The recording of a channel now (null when it does not record); a recording is reused for a second per channel. */
  private recording(ctx: Pick<SubgraphContext, 'supergraph' | 'logger'>, siteId: string, channelId: string): Promise<ChannelRecording | null> {
    const key = `${siteId}\u0000${channelId}`;
    const cached = this.recordings.get(key);
    if (cached && cached.expires > Date.now()) return cached.value;
    const value = recordingOfChannel(ctx, siteId, channelId);
    if (this.recordings.size >= SETTINGS_MAX) this.recordings.delete(this.recordings.keys().next().value as string);
    this.recordings.set(key, { value, expires: Date.now() + RECORDING_TTL_MS });
    // Only a recording is reused: the first message after a stream starts carries its second.
    void value.then((recording) => {
      if (recording === null && this.recordings.get(key)?.value === value) this.recordings.delete(key);
    });
    return value;
  }

  /** Spends one of the account's messages for the site (20 per 30 s); RATE_LIMITED when none is left. */
  async countSiteMessage(siteId: string, accountId: string): Promise<void> {
    await this.spend(
      this.siteLimit,
      `${siteId}:${accountId}`,
      'site',
      (wait) => `at most ${SITE_LIMIT.points} messages per ${SITE_LIMIT.duration} s per account; try again in ${wait} s`,
    );
  }

  /** Spends one of the account's reactions (30 per window, 10 s by default, across the site); RATE_LIMITED when none is left. */
  async countReaction(siteId: string, accountId: string): Promise<void> {
    const { reactions } = this.reactionsHeld;
    const retryAfter = await reactions.spend(siteId, accountId);
    if (retryAfter !== null) throw appError(ErrorCode.RATE_LIMITED, reactions.limitMessage(retryAfter), { retryAfter, rule: 'reactions' });
  }

  /** One message per `seconds` per account in the room (slow mode); RATE_LIMITED with the seconds left. */
  async countSlowMode(panelId: string, accountId: string, seconds: number): Promise<void> {
    if (seconds <= 0) return;
    let limiter = this.slowLimits.get(seconds);
    if (!limiter) this.slowLimits.set(seconds, (limiter = this.limiter({ keyPrefix: `chat-slow-${seconds}`, points: 1, duration: seconds })));
    await this.spend(
      limiter,
      `${panelId}:${accountId}`,
      'slow_mode',
      (wait) => `slow mode: one message every ${seconds} s in this chat; try again in ${wait} s`,
    );
  }

  private spend(limiter: RateLimiterAbstract, key: string, rule: RateRule, explain: (wait: number) => string): Promise<void> {
    return spendLimit(limiter, key, rule, explain);
  }

  /** Tells every instance's viewers a room changed; while the bus is away the announcement is held and published when it is back. */
  announce(message: ChatBusMessage): void {
    this.deps.bus.announce(Topics.chat, 'panelId' in message ? message.panelId : message.accountId, 'every', message);
  }

  /** A room's latest "stored" announcement says all its earlier ones did: held, they replace each other. */
  private announceStored(rooms: StoredRooms): void {
    for (const [panelId, { siteId, lastSeq }] of rooms) {
      this.deps.bus.announce<ChatBusMessage>(Topics.chat, `stored\u0000${siteId}\u0000${panelId}`, 'latest', {
        v: CHAT_MESSAGE_VERSION,
        kind: 'stored',
        siteId,
        panelId,
        lastSeq,
      });
    }
  }

  /** Messages past the retention are deleted (history already leaves them out). */
  private async forgetExpired(): Promise<void> {
    const cutoff = new Date(Date.now() - this.deps.config.chatRetentionDays * 86_400_000);
    try {
      await this.deps.database.prisma.chatMessage.deleteMany({ where: { createdAt: { lt: cutoff } } });
    } catch (error) {
      this.deps.logger.warn({ err: (error as Error).message }, 'could not delete expired chat messages');
    }
  }

  async stop(): Promise<void> {
    this.rooms.stop();
    clearInterval(this.sweep);
    this.due.stop();
    await this.reactionsHeld.release();
    await this.limits.close();
  }
}
