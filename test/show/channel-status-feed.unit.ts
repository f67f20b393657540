/**
 * The channelStatus feed's core in-process, behind its source (a function) and the memory bus: one read
 * per announced change however many viewers, one rendering per document, no push when nothing changed,
 * no viewer given the same status twice, and a channel that is not the site's refused with NOT_FOUND.
 */
import { GraphQLError } from 'graphql';
import { Topics } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import type { ChannelStatus, ChannelStatusMessage } from '../../shared/contracts/channelStatus';
import { ErrorCode } from '../../shared/errors';
import { createLogger } from '../../shared/logger';
import { ChannelStatusFeed } from '../../gateway/live/feeds/channelStatus';
import type { LiveStreamSubscription } from '../../gateway/live/streams';
import type { RenderedEvent } from '../../gateway/live/viewerChannel';
import { until } from '../helpers/wait';

const offline: ChannelStatus = {
  channelId: 'c1',
  state: 'OFFLINE',
  live: false,
  liveBroadcastId: null,
  startedAt: null,
  dvrSeconds: 0,
  streamSecond: null,
  recordingVideoId: null,
  playbackUrl: null,
  countdown: null,
};

function setUp(initial: ChannelStatus = offline) {
  const bus = createMemoryBus();
  let current = initial;
  let reads = 0;
  let renders = 0;
  const feed = new ChannelStatusFeed(
    async (_siteId, channelId) => {
      reads += 1;
      if (channelId !== 'c1') throw new GraphQLError(`channel ${channelId} not found`, { extensions: { code: ErrorCode.NOT_FOUND } });
      return current;
    },
    bus,
    createLogger('silent'),
  );
  const viewer = (documentKey = 'doc') => {
    const got: ChannelStatus[] = [];
    const errors: readonly GraphQLError[][] = [];
    const subscription: LiveStreamSubscription = {
      identity: { siteId: 's1', developerKey: false, account: null, requestId: 'r' },
      deviceId: null,
      args: { channelId: 'c1' },
      documentKey,
      render: (rootValue) => {
        renders += 1;
        return rootValue.channelStatus as RenderedEvent;
      },
      send: (payload) => void got.push(payload as unknown as ChannelStatus),
      fail: (failure) => void (errors as GraphQLError[][]).push([...failure]),
    };
    return { subscription, got, errors };
  };
  const announce = (message: Partial<ChannelStatusMessage> = {}) =>
    bus.publish(Topics.channelStatus, { siteId: 's1', channelId: 'c1', acceptedAt: Date.now(), ...message });
  /**
   * Resolves once the bus has delivered a message of Topics.channelStatus for `channelId` to every handler: this
   * one is subscribed after the feed's, and the bus hands a message to its handlers in order, in one turn. The
   * turn after it lets a read that the feed started (a few promise steps) count.
   */
  const delivered = (channelId: string) =>
    new Promise<void>((resolve) => {
      const stop = bus.subscribe(Topics.channelStatus, (message) => {
        if ((message as ChannelStatusMessage).channelId !== channelId) return;
        stop();
        setImmediate(resolve);
      });
    });
  return {
    feed,
    viewer,
    announce,
    delivered,
    set: (status: ChannelStatus) => void (current = status),
    counts: () => ({ reads, renders }),
  };
}

it('reads once per change for all viewers, renders once per document, and skips a change that changed nothing', async () => {
  const { feed, viewer, announce, set, counts } = setUp();
  const viewers = [viewer('a'), viewer('a'), viewer('a'), viewer('b')];
  for (const { subscription } of viewers) feed.subscribe(subscription);
  await until(() => viewers.every(({ got }) => got.length === 1), Boolean, 'the first events');
  expect(counts().reads).toBe(1);

  const live = { ...offline, state: 'LIVE' as const, live: true, playbackUrl: 'https://cdn.test/x.m3u8', startedAt: 1 };
  set(live);
  const before = counts().renders;
  await announce();
  await until(() => viewers.every(({ got }) => got.length === 2), Boolean, 'the change');
  expect(viewers.map(({ got }) => got[1])).toEqual([live, live, live, live]);
  expect(counts()).toMatchObject({ reads: 2, renders: before + 2 });

  // Only the second advanced: no push.
  set({ ...live, streamSecond: 42 });
  await announce();
  await until(
    () => counts().reads,
    (reads) => reads === 3,
    'the read',
  );
  await new Promise((resolve) => setImmediate(resolve));
  expect(viewers.map(({ got }) => got.length)).toEqual([2, 2, 2, 2]);
  feed.close();
});

it('ignores other channels’ messages, and refuses a channel that is not the site’s with NOT_FOUND', async () => {
  const { feed, viewer, announce, delivered, counts } = setUp();
  const watcher = viewer();
  feed.subscribe(watcher.subscription);
  await until(
    () => watcher.got.length,
    (length) => length === 1,
    'the first event',
  );
  // Counted once the bus has handed the message to the feed, not before: another channel's change reads nothing…
  const otherDelivered = delivered('c2');
  await announce({ channelId: 'c2' });
  await otherDelivered;
  expect(counts().reads).toBe(1);
  // …where the same wait after this channel's change sees its read, so the count above is not read too early.
  const ownDelivered = delivered('c1');
  await announce();
  await ownDelivered;
  expect(counts().reads).toBe(2);

  const stranger = viewer();
  feed.subscribe({ ...stranger.subscription, args: { channelId: 'stage' } });
  await until(
    () => stranger.errors.length,
    (length) => length === 1,
    'the refusal',
  );
  expect(stranger.errors[0][0].extensions.code).toBe(ErrorCode.NOT_FOUND);
  expect(stranger.got).toEqual([]);
  feed.close();
});
