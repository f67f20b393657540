/**
 * A chat room's pass over its viewers, in-process (gateway/live/feeds/chatPass.ts): a push flushed while a
 * pass is under way reaches the viewers the pass has not reached yet in the same frame as the push they
 * were waiting for, and the viewers already passed in the next lap; every viewer gets every message once
 * and in order, one frame per visit, rendered once per selection and starting point; a deletion between
 * two pushes keeps them apart.
 */
import type { ChatEventView, ChatMessageView } from '../../shared/contracts/chatEvents';
import { addOutgoing, caughtUp, pass } from '../../gateway/live/feeds/chatPass';
import { emptyEvent, newRoom, type Room, type Viewer } from '../../gateway/live/feeds/chatRoom';
import type { LiveStreamSubscription } from '../../gateway/live/streams';
import type { RenderedEvent } from '../../gateway/live/viewerChannel';

const message = (seq: number): ChatMessageView => ({
  id: `m${seq}`,
  seq,
  panelId: 'panel-1',
  text: `message ${seq}`,
  author: { accountId: 'a1', name: null, admin: false },
  created: 1_000 + seq,
  streamSecond: null,
  held: false,
  dueAt: null,
  replyTo: null,
});

const messages = (...seqs: number[]): ChatEventView => ({ ...emptyEvent('MESSAGES'), messages: seqs.map(message) });

/** Viewers of one open room whose frames are the events themselves (rendering counted), each one's frames kept. */
function roomWith(count: number, onSend: (index: number) => void = () => undefined) {
  const room = newRoom('key', 'site-1', 'panel-1');
  room.state.life = 'open';
  let renders = 0;
  const frames: ChatEventView[][] = [];
  for (let index = 0; index < count; index += 1) {
    frames.push([]);
    const subscription = {
      documentKey: 'doc',
      render: (rootValue: Record<string, unknown>) => {
        renders += 1;
        return rootValue.chatMessages as RenderedEvent;
      },
      send: (frame: RenderedEvent) => {
        frames[index].push(frame as unknown as ChatEventView);
        onSend(index);
      },
    } as unknown as LiveStreamSubscription;
    const viewer: Viewer = { subscription, afterSeq: null, started: true, hasThrough: 0, through: 0 };
    room.viewers.add(viewer);
  }
  return { room, frames, renders: () => renders };
}

/** Flushes `events` as the feed does: a pass starts when none is under way. */
function flush(room: Room, events: ChatEventView[]): Promise<void> | null {
  if (!addOutgoing(room, events)) return null;
  room.state.push = 'sending';
  return pass(room).finally(() => (room.state.push = 'idle'));
}

const seqsOf = (frames: ChatEventView[]) => frames.flatMap((frame) => frame.messages.map((entry) => entry.seq));

it('takes a push flushed during a pass to the viewers it has not reached in the same frame, and to the others in the next lap', async () => {
  const at = 40;
  let second: ChatEventView[] | null = [messages(3), { ...emptyEvent('REACTIONS'), reactions: [{ emoji: '👍', count: 2 }] }];
  const { room, frames, renders } = roomWith(100, (index) => {
    // The next flush comes due while the pass is at viewer `at`.
    if (index === at && second) {
      expect(flush(room, second)).toBeNull();
      second = null;
    }
  });
  const first = flush(room, [messages(1, 2)]);
  await first;

  for (const [index, received] of frames.entries()) {
    expect(seqsOf(received)).toEqual([1, 2, 3]);
    if (index <= at) {
      expect(received.map((frame) => frame.kind)).toEqual(['MESSAGES', 'MESSAGES']);
      expect(received[1].reactions).toEqual([{ emoji: '👍', count: 2 }]);
    } else {
      // One frame for both pushes: the messages joined, the counts riding on them.
      expect(received).toEqual([{ ...messages(1, 2, 3), reactions: [{ emoji: '👍', count: 2 }] }]);
    }
  }
  // Rendered once per starting point: the first push, both pushes, the second alone.
  expect(renders()).toBe(3);
  expect(room.outgoing).toEqual([]);
  expect(room.state.push).toBe('idle');
});

it('keeps pushes apart across a deletion, and gives a viewer that starts during a pass only what follows its first event', async () => {
  let late: Viewer | null = null;
  const { room, frames } = roomWith(10, (index) => {
    if (index === 3 && !late) {
      expect(flush(room, [{ ...emptyEvent('DELETED'), ids: ['m1'] }, messages(3)])).toBeNull();
      // A viewer whose first event was made now (the room's recent messages): it has every push so far.
      late = { ...[...room.viewers][0], through: 0 };
      caughtUp(room, late);
      room.viewers.add(late);
    }
  });
  await flush(room, [messages(1, 2)]);
  for (const received of frames.slice(4)) {
    expect(received.map((frame) => frame.kind)).toEqual(['MESSAGES', 'DELETED', 'MESSAGES']);
    expect(seqsOf(received)).toEqual([1, 2, 3]);
  }
  expect(seqsOf(frames[0])).toEqual([1, 2, 3]);
  // The late viewer shares viewer 0's subscription: had it been sent anything, viewer 0 would hold it twice.
  expect(frames[0].map((frame) => frame.kind)).toEqual(['MESSAGES', 'DELETED', 'MESSAGES']);
});

it('yields to the loop during a long pass and still gives every viewer everything once, in order', async () => {
  const { room, frames } = roomWith(3000, () => {
    // Work per viewer, so that the pass spans several slices of the loop.
    const until = performance.now() + 0.01;
    while (performance.now() < until);
  });
  let turns = 0;
  const counting = setInterval(() => (turns += 1), 0);
  const passes: Promise<void>[] = [];
  for (let seq = 1; seq <= 5; seq += 1) {
    const started = flush(room, [messages(seq)]);
    if (started) passes.push(started);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(passes);
  clearInterval(counting);
  // Timers fired while the passes went on; one pass took in the later flushes.
  expect(turns).toBeGreaterThan(0);
  expect(passes.length).toBeLessThan(5);
  for (const received of frames) expect(seqsOf(received)).toEqual([1, 2, 3, 4, 5]);
  expect(room.outgoing).toEqual([]);
});
