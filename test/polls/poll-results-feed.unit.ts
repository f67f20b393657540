/**
 * The poll results feed against its seams (a results source of counters, the in-process bus): the 500 ms
 * rule is measured on the feed's own send times, where the interval is decided, so a loaded machine can
 * delay a push without making the test fail or pass by chance.
 */
import { GraphQLError } from 'graphql';
import { createMemoryBus } from '../../shared/bus/memory';
import { Topics, type EventBus } from '../../shared/bus';
import { createLogger } from '../../shared/logger';
import { PUSH_INTERVAL_MS, PollResultsFeed, type PollResultsSource, type SharedPollResults } from '../../gateway/live/feeds/pollResults';
import type { LiveStreamSubscription } from '../../gateway/live/streams';
import { RenderedEvent } from '../../gateway/live/viewerChannel';
import { POLL_RESULTS_MESSAGE_VERSION } from '../../shared/contracts/viewerActivity';
import { until } from '../helpers/wait';

const SITE = 'site-1';
const POLL = 'poll-1';

/** A poll whose count is whatever the test says: what a recount reads. */
function countingSource(): PollResultsSource & { total: number; open: boolean; loads: number } {
  const source = {
    total: 0,
    open: true,
    loads: 0,
    async load(_siteId: string, pollId: string): Promise<SharedPollResults> {
      source.loads += 1;
      if (pollId !== POLL) throw new GraphQLError('poll not found', { extensions: { code: 'NOT_FOUND' } });
      return {
        pollId,
        type: 'poll',
        question: 'Q?',
        open: source.open,
        total: source.total,
        answers: [{ id: 'a', text: 'A', count: source.total }],
        correctAnswerId: null,
      };
    },
    async answersOf() {
      return [];
    },
  };
  return source;
}

interface Received {
  at: number;
  results: { total: number; open: boolean };
}

/** One subscriber as the live server would hand it over; `received` holds the feed's send times. */
function subscriber(): LiveStreamSubscription & { received: Received[]; errors: readonly GraphQLError[][] } {
  const received: Received[] = [];
  const errors: GraphQLError[][] = [];
  return {
    identity: { siteId: SITE, developerKey: false, account: null, requestId: 'r' },
    deviceId: null,
    args: { pollId: POLL },
    documentKey: 'doc',
    render: (rootValue) => new RenderedEvent(JSON.stringify(rootValue)),
    send: (payload) => received.push({ at: Date.now(), results: (JSON.parse(payload.json) as { pollResults: Received['results'] }).pollResults }),
    fail: (failure) => errors.push([...failure]),
    received,
    errors,
  };
}

const announce = (bus: EventBus, message: object) =>
  bus.publish(Topics.pollResults, { v: POLL_RESULTS_MESSAGE_VERSION, siteId: SITE, pollId: POLL, ...message });

describe('PollResultsFeed', () => {
  let bus: EventBus;
  let feed: PollResultsFeed;
  beforeEach(() => {
    bus = createMemoryBus();
  });
  afterEach(async () => {
    feed.close();
    await bus.close();
  });

  it('pushes the latest counts at most once per 500 ms while answers arrive, and the close at once after the interval', async () => {
    const source = countingSource();
    feed = new PollResultsFeed(source, bus, createLogger('silent'));
    const viewer = subscriber();
    const stop = feed.subscribe(viewer);
    await until(
      () => viewer.received.length,
      (count) => count === 1,
      'the first event',
    );
    // 60 answers announced over about 1.5 s, as a busy poll's batches would be.
    for (let answer = 1; answer <= 60; answer += 1) {
      source.total = answer;
      await announce(bus, { answered: [[`account-${answer}`, 'a', null]] });
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await until(
      () => viewer.received.at(-1)?.results.total,
      (total) => total === 60,
      'the last count',
    );
    source.open = false;
    await announce(bus, { changed: true });
    await until(
      () => viewer.received.at(-1)?.results.open,
      (open) => open === false,
      'the close',
    );

    const times = viewer.received.map((event) => event.at);
    for (let index = 1; index < times.length; index += 1) expect(times[index] - times[index - 1]).toBeGreaterThanOrEqual(PUSH_INTERVAL_MS);
    // Coalesced: a handful of recounts, not one per answer; counts only grow.
    expect(viewer.received.length).toBeLessThan(20);
    expect(source.loads).toBeLessThan(20);
    const totals = viewer.received.map((event) => event.results.total);
    expect([...totals].sort((a, b) => a - b)).toEqual(totals);
    expect(viewer.errors).toEqual([]);
    stop();
  });

  it('ends a subscription to an unknown poll with NOT_FOUND', async () => {
    feed = new PollResultsFeed(countingSource(), bus, createLogger('silent'));
    const viewer = { ...subscriber(), args: { pollId: 'missing' } };
    const errors: GraphQLError[][] = [];
    feed.subscribe({ ...viewer, fail: (failure) => errors.push([...failure]) });
    await until(
      () => errors.length,
      (count) => count === 1,
      'the refusal',
    );
    expect(errors[0][0].extensions.code).toBe('NOT_FOUND');
  });
});
