/**
 * What the chat feed (chat.ts) carries besides messages, and the small rules about it: reaction counts
 * and the viewer count that ride on a room's next event, and which kind of event a change of the room's
 * system block is (a pin's change is PINNED / UNPINNED, anything else SYSTEM).
 */
import type { ChatEventKind, ChatEventView, ChatReactionCount, ChatSystemView } from '../../../shared/contracts/chatEvents';

/** Counts for a room's next event: reactions since the previous counts, and its viewers on every instance. */
export interface ChatCounts {
  reactions?: ChatReactionCount[];
  viewers?: number;
}

/** What the counting (chatReactions.ts) needs of the feed. */
export interface ChatCountsTarget {
  addCounts(siteId: string, panelId: string, counts: ChatCounts): void;
  roomViewers(): [siteId: string, panelId: string, viewers: number][];
}

/** Counts not yet sent and new ones together: reactions summed per emoji (exact), the latest viewer count. */
export function mergeCounts(pending: ChatCounts | null, added: ChatCounts): ChatCounts {
  if (!pending) return { ...added };
  const merged: ChatCounts = { ...pending };
  if (added.viewers !== undefined) merged.viewers = added.viewers;
  if (added.reactions) {
    const sums = new Map((pending.reactions ?? []).map((entry) => [entry.emoji, entry.count]));
    for (const entry of added.reactions) sums.set(entry.emoji, (sums.get(entry.emoji) ?? 0) + entry.count);
    merged.reactions = [...sums].map(([emoji, count]) => ({ emoji, count }));
  }
  return merged;
}

/** Events that carry messages or counts (and nothing else): two in a row say what one would. */
const carries = (event: ChatEventView) => event.kind === 'MESSAGES' || event.kind === 'REACTIONS' || event.kind === 'VIEWERS';

const countsOf = (event: ChatEventView): ChatCounts => ({
  ...(event.reactions && { reactions: event.reactions }),
  ...(event.viewers != null && { viewers: event.viewers }),
});

/**
 * Two consecutive events as the one event a single flush would have made of what they carry (messages in
 * order, reactions summed, the later viewer count); null when either carries anything else (a deletion
 * between two messages events keeps them apart, so nothing moves across it).
 */
export function joinEvents(first: ChatEventView, second: ChatEventView): ChatEventView | null {
  if (!carries(first) || !carries(second)) return null;
  const counts = mergeCounts(countsOf(first), countsOf(second));
  const messages = [...first.messages, ...second.messages];
  const kind = messages.length > 0 ? 'MESSAGES' : counts.reactions ? 'REACTIONS' : 'VIEWERS';
  return { kind, messages, ids: [], accountId: null, system: null, ...counts };
}

const pinKey = (system: ChatSystemView | null) => JSON.stringify(system?.pinned ?? null);

/** The kind of event a new system block makes: PINNED or UNPINNED when only its pin changed, else SYSTEM. */
export function systemChange(before: ChatSystemView | null, after: ChatSystemView): ChatEventKind {
  if (before === null || pinKey(before) === pinKey(after)) return 'SYSTEM';
  const rest = (system: ChatSystemView) => JSON.stringify({ ...system, pinned: null });
  if (rest(before) !== rest(after)) return 'SYSTEM';
  return after.pinned ? 'PINNED' : 'UNPINNED';
}
