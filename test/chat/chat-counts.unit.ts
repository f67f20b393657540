/**
 * The chat rooms' counts against their seams (the in-process bus, a feed that records what it is handed):
 * reaction counts published by several instances summed exactly and handed on at most once per interval
 * (measured on the times they were handed, where the interval is decided), occupancy reports of several
 * instances summed per room and told only when a total changes, and the rules of merging counts and
 * naming a system block's change.
 */
import { Topics } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import { CHAT_MESSAGE_VERSION, type ChatOccupancyReport, type ChatReactionsMessage, type ChatSystemView } from '../../shared/contracts/chatEvents';
import { createLogger } from '../../shared/logger';
import { mergeCounts, systemChange, type ChatCounts, type ChatCountsTarget } from '../../gateway/live/feeds/chatCounts';
import { ChatRoomCounts } from '../../gateway/live/feeds/chatReactions';
import { until } from '../helpers/wait';

const SITE = 'site-1';
const ROOM = 'panel-1';

/** A feed with one room of `viewers` here, recording each hand-over and when it came. */
function recordingFeed(viewers: number): ChatCountsTarget & { handed: { at: number; counts: ChatCounts }[] } {
  const handed: { at: number; counts: ChatCounts }[] = [];
  return {
    handed,
    addCounts: (siteId, panelId, counts) => {
      if (siteId === SITE && panelId === ROOM) handed.push({ at: performance.now(), counts });
    },
    roomViewers: () => [[SITE, ROOM, viewers]],
  };
}

const sumOf = (handed: { counts: ChatCounts }[]) =>
  handed.reduce((sum, { counts }) => mergeCounts(sum, { reactions: counts.reactions ?? [] }), { reactions: [] } as ChatCounts).reactions;
const reactions = (counts: Record<string, number>): ChatReactionsMessage => ({ v: CHAT_MESSAGE_VERSION, siteId: SITE, panelId: ROOM, counts });

describe('reactions', () => {
  it('sums what every instance published, exactly, and hands a room its counts at most once per interval', async () => {
    const bus = createMemoryBus();
    const feed = recordingFeed(1);
    const counts = new ChatRoomCounts(feed, bus, createLogger('silent'), { reactionsMs: 100, occupancyMs: 60_000 });
    try {
      for (let round = 0; round < 20; round += 1) {
        await bus.publish(Topics.chatReactions, reactions({ '👍': 3, '🔥': 1 }));
        await bus.publish(Topics.chatReactions, reactions({ '👍': 2 }));
        if (round % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 60));
      }
      await until(
        () => sumOf(feed.handed.filter((entry) => entry.counts.reactions)),
        (sum) => sum?.find((entry) => entry.emoji === '👍')?.count === 100,
        'all 👍 handed',
      );
      expect(sumOf(feed.handed)).toEqual([
        { emoji: '👍', count: 100 },
        { emoji: '🔥', count: 20 },
      ]);
      const times = feed.handed.filter((entry) => entry.counts.reactions).map((entry) => entry.at);
      for (let index = 1; index < times.length; index += 1) expect(times[index] - times[index - 1]).toBeGreaterThanOrEqual(90);
    } finally {
      counts.close();
    }
  });

  it('ignores malformed messages and counts that are not positive integers', async () => {
    const bus = createMemoryBus();
    const feed = recordingFeed(1);
    const counts = new ChatRoomCounts(feed, bus, createLogger('silent'), { reactionsMs: 50, occupancyMs: 60_000 });
    try {
      await bus.publish(Topics.chatReactions, null);
      await bus.publish(Topics.chatReactions, { siteId: SITE });
      await bus.publish(Topics.chatReactions, reactions({ '👍': -4, '🔥': 1.5, '🎉': 2 }));
      await until(
        () => feed.handed,
        (handed) => handed.length > 0,
        'counts handed',
      );
      expect(sumOf(feed.handed)).toEqual([{ emoji: '🎉', count: 2 }]);
    } finally {
      counts.close();
    }
  });
});

describe('occupancy', () => {
  it('sums the latest report of every instance per room, and tells a room only when its total changed', async () => {
    const bus = createMemoryBus();
    const feed = recordingFeed(4);
    const counts = new ChatRoomCounts(feed, bus, createLogger('silent'), { reactionsMs: 60_000, occupancyMs: 50 });
    const other = (viewers: number): ChatOccupancyReport => ({ v: CHAT_MESSAGE_VERSION, instanceId: 'other', at: Date.now(), rooms: [[SITE, ROOM, viewers]] });
    const told = () => feed.handed.filter((entry) => entry.counts.viewers !== undefined).map((entry) => entry.counts.viewers);
    // The other instance reports as an instance does, every interval (a report not renewed goes stale).
    let othersViewers = 6;
    let reporting: NodeJS.Timeout | null = null;
    try {
      await until(told, (values) => values.includes(4), 'this instance’s viewers told');
      const report = () => void bus.publish(Topics.chatOccupancy, other(othersViewers));
      report();
      reporting = setInterval(report, 50);
      await until(told, (values) => values.includes(10), 'both instances’ viewers told');
      othersViewers = 1;
      await until(told, (values) => values.includes(5), 'the new total told');
      // Told only when the total changed: never the same total twice in a row, and the totals in order.
      const values = told();
      values.slice(1).forEach((value, index) => expect(value).not.toBe(values[index]));
      expect(values.indexOf(10)).toBeGreaterThan(values.indexOf(4));
      expect(values.lastIndexOf(5)).toBeGreaterThan(values.indexOf(10));
    } finally {
      if (reporting) clearInterval(reporting);
      counts.close();
    }
  });
});

describe('merging and naming', () => {
  it('merges counts: reactions summed per emoji, the latest viewer count', () => {
    expect(mergeCounts(null, { viewers: 3 })).toEqual({ viewers: 3 });
    expect(
      mergeCounts(
        { reactions: [{ emoji: '👍', count: 2 }], viewers: 3 },
        {
          reactions: [
            { emoji: '👍', count: 5 },
            { emoji: '🔥', count: 1 },
          ],
        },
      ),
    ).toEqual({
      reactions: [
        { emoji: '👍', count: 7 },
        { emoji: '🔥', count: 1 },
      ],
      viewers: 3,
    });
    expect(mergeCounts({ viewers: 3 }, { viewers: 4 })).toEqual({ viewers: 4 });
  });

  it('names a change of the pin alone PINNED or UNPINNED, and any other change SYSTEM', () => {
    const system: ChatSystemView = {
      name: 'Stage',
      image: null,
      welcomeMessage: null,
      rulesLinkUrl: null,
      loginButtonText: null,
      allowLinks: true,
      slowModeSeconds: 0,
      reactions: ['👍'],
      pinned: null,
    };
    const pin = { messageId: null, text: 'Hi', author: null, pinnedAt: 1 };
    expect(systemChange(system, { ...system, pinned: pin })).toBe('PINNED');
    expect(systemChange({ ...system, pinned: pin }, system)).toBe('UNPINNED');
    expect(systemChange(system, { ...system, slowModeSeconds: 5 })).toBe('SYSTEM');
    expect(systemChange(system, { ...system, slowModeSeconds: 5, pinned: pin })).toBe('SYSTEM');
    expect(systemChange(null, system)).toBe('SYSTEM');
  });
});
