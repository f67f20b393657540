/**
 * Reactions are never stored nor pushed one by one: each instance counts its rooms' reactions per emoji
 * and, once a second, publishes each room's counts on the bus (Topics.chatReactions), where every gateway
 * instance adds up what all instances counted (gateway/live/feeds/chatReactions.ts). A count is published
 * once and then forgotten here, so the totals viewers see are exact.
 */
import { Topics } from '../../../shared/bus';
import { CHAT_MESSAGE_VERSION, type ChatReactionsMessage } from '../../../shared/chatEvents';
import type { ServiceDeps } from '../../../shared/subgraph';

/** How often an instance publishes what it counted. */
export const REACTION_PUBLISH_MS = 1000;

export class ChatReactionCounter {
  /** `siteId \0 panelId` → emoji → count since the last publish. */
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly bus: ServiceDeps['bus']) {
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
