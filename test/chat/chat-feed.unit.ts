/**
 * The chat feed's core in-process, behind its seams: a room source (what the content subgraph answers through the
 * gateway, here a room in memory) and the memory bus. Every viewer gets every message once, in the room's seq
 * order, whatever order and however often the bus announces them; one rendering per selection per push; a
 * deletion that raced a read keeps the message out; a viewer back with afterSeq gets exactly what it missed;
 * a room that is not the site's ends its viewers with NOT_FOUND.
 */
import { GraphQLError } from 'graphql';
import { Topics } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import { CHAT_MESSAGE_VERSION, type ChatEventView, type ChatMessageView, type ChatRoomView } from '../../shared/contracts/chatEvents';
import { ErrorCode } from '../../shared/errors';
import { createLogger } from '../../shared/logger';
import { ChatFeed } from '../../gateway/live/feeds/chat';
import type { ChatSource } from '../../gateway/live/feeds/chatSource';
import type { LiveStreamSubscription } from '../../gateway/live/streams';
import type { RenderedEvent } from '../../gateway/live/viewerChannel';
import { until } from '../helpers/wait';

const SITE = 'site-1';
const PANEL = 'panel-1';
const system = {
  name: 'Chat',
  image: null,
  welcomeMessage: null,
  rulesLinkUrl: null,
  loginButtonText: null,
  allowLinks: false,
  slowModeSeconds: 0,
  reactions: ['👍'],
  pinned: null,
};

const message = (seq: number): ChatMessageView => ({
  id: `m${seq}`,
  seq,
  panelId: PANEL,
  text: `message ${seq}`,
  author: { accountId: `a${seq % 3}`, name: null, admin: false },
  created: 1_000 + seq,
  streamSecond: null,
  held: false,
  dueAt: null,
  replyTo: null,
});

/** A room held in memory as the database would hold it; a read can be held until the test lets it go. */
function roomSource() {
  const stored: ChatMessageView[] = [];
  let reads = 0;
  let held: { release: () => void; started: Promise<void> } | null = null;
  const source: ChatSource = {
    async read(siteId, panelId, afterSeq, limit): Promise<ChatRoomView> {
      reads += 1;
      if (siteId !== SITE || panelId !== PANEL) throw new GraphQLError(`no chat panel ${panelId}`, { extensions: { code: ErrorCode.NOT_FOUND } });
      const snapshot = stored.filter((entry) => afterSeq === null || entry.seq > afterSeq);
      const messages = afterSeq === null ? snapshot.slice(-limit) : snapshot.slice(0, limit);
      if (held) await held.started.then(() => undefined);
      return { system, messages };
    },
  };
  return {
    source,
    store: (...seqs: number[]) => stored.push(...seqs.map(message)),
    reads: () => reads,
    /** The next reads wait until release() (what a slow database does while a deletion is announced). */
    hold() {
      let release!: () => void;
      const started = new Promise<void>((resolve) => (release = resolve));
      held = { release: () => ((held = null), release()), started };
      return held;
    },
  };
}

function viewer(args: Record<string, unknown> = { panelId: PANEL }, documentKey = 'doc') {
  const events: ChatEventView[] = [];
  const errors: GraphQLError[][] = [];
  let renders = 0;
  const subscription: LiveStreamSubscription = {
    identity: { siteId: SITE, developerKey: false, account: null, requestId: 'r' },
    deviceId: null,
    args,
    documentKey,
    render: (rootValue) => {
      renders += 1;
      return rootValue.chatMessages as RenderedEvent;
    },
    send: (payload) => void events.push(payload as unknown as ChatEventView),
    fail: (failure) => void errors.push([...failure]),
  };
  return { subscription, events, errors, renders: () => renders, seqs: () => events.flatMap((event) => event.messages.map((entry) => entry.seq)) };
}

function setUp() {
  const bus = createMemoryBus();
  const room = roomSource();
  const feed = new ChatFeed(room.source, bus, createLogger('silent'), 20);
  const publish = (body: Record<string, unknown>) => bus.publish(Topics.chat, { v: CHAT_MESSAGE_VERSION, siteId: SITE, panelId: PANEL, ...body });
  return { bus, room, feed, stored: (lastSeq: number) => publish({ kind: 'stored', lastSeq }), publish };
}

it('gives every viewer every message once, in seq order, however the bus orders and repeats the announcements', async () => {
  const { room, feed, stored } = setUp();
  room.store(1, 2);
  const viewers = [viewer(), viewer(), viewer(), viewer({ panelId: PANEL }, 'other selection')];
  const stops = viewers.map(({ subscription }) => feed.subscribe(subscription));
  await until(() => viewers.every(({ events }) => events.length === 1), Boolean, 'the first events');
  expect(viewers.map(({ seqs }) => seqs())).toEqual(viewers.map(() => [1, 2]));

  room.store(3, 4, 5);
  await stored(5);
  await stored(3);
  room.store(6);
  await stored(4);
  await stored(6);
  await stored(6);
  await stored(2);
  await until(() => viewers.every(({ seqs }) => seqs().length === 6), Boolean, 'messages 3–6');
  for (const { seqs, events } of viewers) {
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.every((event) => event.kind === 'MESSAGES')).toBe(true);
  }
  // One rendering per selection per push: the three viewers of one selection share each frame.
  const pushes = viewers[0].events.length;
  expect(viewers.map(({ renders }) => renders()).reduce((sum, count) => sum + count, 0)).toBe(2 * pushes);
  stops.forEach((stop) => stop());
  feed.close();
});

it('keeps out a message deleted while the read that brought it was under way', async () => {
  const { room, feed, stored, publish } = setUp();
  room.store(1);
  const watcher = viewer();
  feed.subscribe(watcher.subscription);
  await until(
    () => watcher.events.length,
    (length) => length === 1,
    'the first event',
  );

  const held = room.hold();
  const readsBefore = room.reads();
  room.store(2, 3);
  await stored(3);
  await until(room.reads, (reads) => reads > readsBefore, 'the read under way');
  await publish({ kind: 'deleted', ids: ['m2'] });
  // The deletion has reached the viewers, so the feed knew it before the read brought m2 back.
  await until(() => watcher.events.some((event) => event.kind === 'DELETED'), Boolean, 'the deletion');
  held.release();
  await until(watcher.seqs, (seqs) => seqs.includes(3), 'message 3');
  expect(watcher.seqs()).toEqual([1, 3]);
  expect(watcher.events.find((event) => event.kind === 'DELETED')?.ids).toEqual(['m2']);
  feed.close();
});

it('gives a viewer back with afterSeq exactly what it missed, refuses a negative one, and ends a room that is not the site’s', async () => {
  const { room, feed, stored } = setUp();
  room.store(1, 2, 3, 4);
  const first = viewer();
  feed.subscribe(first.subscription);
  await until(
    () => first.events.length,
    (length) => length === 1,
    'the first event',
  );
  room.store(5);
  await stored(5);
  await until(first.seqs, (seqs) => seqs.length === 5, 'message 5');

  const back = viewer({ panelId: PANEL, afterSeq: 2 });
  feed.subscribe(back.subscription);
  await until(
    () => back.events.length,
    (length) => length === 1,
    'the event of the viewer back',
  );
  expect(back.seqs()).toEqual([3, 4, 5]);

  const negative = viewer({ panelId: PANEL, afterSeq: -1 });
  feed.subscribe(negative.subscription);
  expect(negative.errors[0][0].extensions).toMatchObject({ code: ErrorCode.BAD_USER_INPUT, field: 'afterSeq' });

  const stranger = viewer({ panelId: 'someone-elses' });
  feed.subscribe(stranger.subscription);
  await until(
    () => stranger.errors.length,
    (length) => length === 1,
    'the refusal',
  );
  expect(stranger.errors[0][0].extensions.code).toBe(ErrorCode.NOT_FOUND);
  expect(stranger.events).toEqual([]);
  feed.close();
});
