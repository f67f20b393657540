/**
 * The Q&A room feed against its seams (a room source of counters, the in-process bus): the once-per-interval
 * rule is measured on the feed's own send times, where the interval is decided, so a loaded machine can delay
 * a push without making the test fail or pass by chance. A shorter interval than production's second keeps
 * it quick; the rule is the same code.
 */
import { GraphQLError } from 'graphql';
import { QaRoomFeed, type QaRoomSource } from '../../gateway/live/feeds/qaRoom';
import type { LiveStreamSubscription } from '../../gateway/live/streams';
import { RenderedEvent } from '../../gateway/live/viewerChannel';
import { Topics, type EventBus } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import { QA_ROOM_MESSAGE_VERSION, type QaRoomEventView } from '../../shared/contracts/qaEvents';
import { createLogger } from '../../shared/logger';
import { until } from '../helpers/wait';

const SITE = 'site-1';
const PANEL = 'panel-1';
const INTERVAL_MS = 200;

/** A room of one question whose votes are whatever the test says: what a read finds. */
function countingSource(): QaRoomSource & { votes: number; loads: number } {
  const source = {
    votes: 0,
    loads: 0,
    async load(_siteId: string, panelId: string): Promise<QaRoomEventView> {
      source.loads += 1;
      if (panelId !== PANEL) throw new GraphQLError('Q&A panel not found', { extensions: { code: 'NOT_FOUND' } });
      const question = { id: 'q1', panelId, text: 'Q?', votes: source.votes, status: 'open', highlighted: false, author: null, created: 1, votedByMe: null };
      return { panelId, questions: [question], highlightedId: null };
    },
  };
  return source;
}

/** One subscriber as the live server would hand it over; `received` holds the feed's send times and votes. */
function subscriber(
  renders: { count: number },
  panelId = PANEL,
): LiveStreamSubscription & { received: { at: number; votes: number }[]; errors: GraphQLError[][] } {
  const received: { at: number; votes: number }[] = [];
  const errors: GraphQLError[][] = [];
  return {
    identity: { siteId: SITE, developerKey: false, account: null, requestId: 'r' },
    deviceId: null,
    args: { panelId },
    documentKey: 'doc',
    render: (rootValue) => {
      renders.count += 1;
      return new RenderedEvent(JSON.stringify(rootValue));
    },
    send: (payload) => received.push({ at: Date.now(), votes: (JSON.parse(payload.json) as { qaRoom: QaRoomEventView }).qaRoom.questions[0].votes }),
    fail: (failure) => errors.push([...failure]),
    received,
    errors,
  };
}

const announce = (bus: EventBus) => bus.publish(Topics.qaRoom, { v: QA_ROOM_MESSAGE_VERSION, siteId: SITE, panelId: PANEL });

describe('QaRoomFeed', () => {
  let bus: EventBus;
  let feed: QaRoomFeed;
  beforeEach(() => {
    bus = createMemoryBus();
  });
  afterEach(async () => {
    feed.close();
    await bus.close();
  });

  it('pushes the exact latest counts at most once per interval while votes arrive, rendered once per document for all viewers', async () => {
    const source = countingSource();
    feed = new QaRoomFeed(source, bus, createLogger('silent'), INTERVAL_MS);
    const renders = { count: 0 };
    const viewers = [subscriber(renders), subscriber(renders), subscriber(renders)];
    const stops = viewers.map((viewer) => feed.subscribe(viewer));
    await until(
      () => viewers.map((viewer) => viewer.received.length),
      (counts) => counts.every((count) => count === 1),
      'the first event at every viewer',
    );
    // 60 batches of votes announced over about 1.5 s.
    for (let vote = 1; vote <= 60; vote += 1) {
      source.votes = vote;
      await announce(bus);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await until(
      () => viewers.map((viewer) => viewer.received.at(-1)?.votes),
      (votes) => votes.every((count) => count === 60),
      'the last count at every viewer',
    );
    // A viewer who joins now gets the room at once, without a read of its own.
    const loads = source.loads;
    const late = subscriber(renders);
    stops.push(feed.subscribe(late));
    expect(late.received.map((event) => event.votes)).toEqual([60]);
    expect(source.loads).toBe(loads);

    for (const viewer of viewers) {
      const times = viewer.received.map((event) => event.at);
      for (let index = 1; index < times.length; index += 1) expect(times[index] - times[index - 1]).toBeGreaterThanOrEqual(INTERVAL_MS);
      const votes = viewer.received.map((event) => event.votes);
      expect([...votes].sort((a, b) => a - b)).toEqual(votes);
      expect(viewer.errors).toEqual([]);
    }
    // Coalesced: a handful of reads, not one per batch; one rendering per push for the three viewers (plus the late joiner's).
    expect(source.loads).toBeLessThan(20);
    expect(renders.count).toBe(viewers[0].received.length + 1);
    stops.forEach((stop) => stop());
  });

  it('ends a subscription to an unknown room with NOT_FOUND', async () => {
    feed = new QaRoomFeed(countingSource(), bus, createLogger('silent'), INTERVAL_MS);
    const viewer = subscriber({ count: 0 }, 'missing');
    feed.subscribe(viewer);
    await until(
      () => viewer.errors.length,
      (count) => count === 1,
      'the refusal',
    );
    expect(viewer.errors[0][0].extensions.code).toBe('NOT_FOUND');
  });
});
