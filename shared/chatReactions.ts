/**
 * Reactions (docs/design.md "Chat that moderators can run"), what the content subgraph's resolver and the
 * live server's fast path (gateway/live/fastReactions.ts) share, so both count and limit alike: ONE
 * rate limit (its definition and its limiter) and ONE counter per instance.
 *
 * Reactions are never stored nor pushed one by one: each instance counts its rooms' reactions per emoji
 * and, once a second, publishes each room's counts on the bus (Topics.chatReactions), where every gateway
 * instance adds up what all instances counted (gateway/live/feeds/chatReactions.ts). A count is published
 * once and then forgotten here, so the totals viewers see are exact.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Topics, type EventBus } from './bus';
import { CHAT_MESSAGE_VERSION, type ChatReactionsMessage } from './contracts/chatEvents';
import type { Config } from './config';
import type { Logger } from './logger';
import { openRateLimiters, type RateLimiters } from './rateLimits';

/** How often an instance publishes what it counted. */
export const REACTION_PUBLISH_MS = 1000;

/** Reactions per account across the site's chats per window (CHAT_REACTION_RATE_WINDOW_SECONDS, 10 s): applause, not a flood. */
export const REACTION_POINTS = 30;

type ReactionConfig = Pick<Config, 'redisUrl' | 'redisPrefix' | 'chatReactionRateWindowSeconds'>;

export class ChatReactionCounter {
  /** `siteId \0 panelId` → emoji → count since the last publish. */
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly bus: EventBus) {
    this.timer = setInterval(() => this.publish(), REACTION_PUBLISH_MS);
    this.timer.unref();
  }

  /** Counts one reaction (O(1): the request answers at once). */
  add(siteId: string, panelId: string, emoji: string): void {
    const key = `${siteId}\u0000${panelId}`;
    let room = this.counts.get(key);
    if (!room) this.counts.set(key, (room = new Map<string, number>()));
    room.set(emoji, (room.get(emoji) ?? 0) + 1);
  }

  /** Each room's counts of the last second, one bus message per room (held while the bus is away, never lost). */
  private publish(): void {
    for (const [key, room] of this.counts) {
      const [siteId, panelId] = key.split('\u0000');
      const message: ChatReactionsMessage = { v: CHAT_MESSAGE_VERSION, siteId, panelId, counts: Object.fromEntries(room) };
      this.bus.announce(Topics.chatReactions, key, 'every', message);
    }
    this.counts.clear();
  }

  /** Publishes what is counted and stops. */
  stop(): void {
    clearInterval(this.timer);
    this.publish();
  }
}

/** One instance's reactions: its counter and the reaction limit (in Redis when REDIS_URL is set). */
export class ChatReactions {
  readonly counter: ChatReactionCounter;
  private readonly limits: RateLimiters;
  private readonly limiter: RateLimiterAbstract;
  private readonly windowSeconds: number;

  constructor(deps: { config: ReactionConfig; bus: EventBus; logger: Logger }) {
    this.counter = new ChatReactionCounter(deps.bus);
    this.limits = openRateLimiters(deps.config, deps.logger);
    this.windowSeconds = deps.config.chatReactionRateWindowSeconds;
    this.limiter = this.limits.limiter({ keyPrefix: 'chat-reactions', points: REACTION_POINTS, duration: this.windowSeconds });
  }

  /**
   * Spends one of the account's reactions: null when allowed, else the seconds to wait. Throws what the
   * limiter throws other than a refusal (the caller decides).
   */
  async spend(siteId: string, accountId: string): Promise<number | null> {
    try {
      await this.limiter.consume(`${siteId}:${accountId}`);
      return null;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    }
  }

  /** Why a reaction was refused by the limit, with the seconds to wait (the RATE_LIMITED message). */
  limitMessage(wait: number): string {
    return `at most ${REACTION_POINTS} reactions per ${this.windowSeconds} s per account; try again in ${wait} s`;
  }

  async stop(): Promise<void> {
    this.counter.stop();
    await this.limits.close();
  }
}

interface Held {
  reactions: ChatReactions;
  holders: number;
}

/** Per bus (one per instance): the subgraph and the gateway of an instance hold the same ChatReactions. */
const held = new WeakMap<EventBus, Held>();

/**
 * The instance's reactions (made by the first of its services to ask, shared with the others); `release`
 * when the service stops: the last one publishes what is counted and stops it.
 */
export function holdChatReactions(deps: { config: ReactionConfig; bus: EventBus; logger: Logger }): {
  reactions: ChatReactions;
  release(): Promise<void>;
} {
  let entry = held.get(deps.bus);
  if (!entry) held.set(deps.bus, (entry = { reactions: new ChatReactions(deps), holders: 0 }));
  entry.holders += 1;
  const current = entry;
  let released = false;
  return {
    reactions: current.reactions,
    async release() {
      if (released) return;
      released = true;
      current.holders -= 1;
      if (current.holders > 0) return;
      if (held.get(deps.bus) === current) held.delete(deps.bus);
      await current.reactions.stop();
    },
  };
}
