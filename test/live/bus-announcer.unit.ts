/**
 * The one path of live pushes (shared/bus/announcer.ts) against a bus the test switches off and on: what
 * the bus refuses is delivered here at once and held — the latest per key, or every one — then offered
 * again in order once the bus takes it; and an instance delivers a pushId once (shared/bus/delivered.ts).
 */
import { createAnnouncer, type Pushed } from '../../shared/bus/announcer';
import { deliveredOnce } from '../../shared/bus/delivered';
import { BusUnavailableError } from '../../shared/bus';
import { eventually } from '../helpers/wait';

/** A bus that refuses while `up` is false, and what it published and delivered here. */
function switchableBus() {
  const bus = {
    up: true,
    published: [] as { topic: string; message: Pushed }[],
    here: [] as { topic: string; message: Pushed }[],
    publish: async (topic: string, message: unknown) => {
      if (!bus.up) throw new BusUnavailableError();
      bus.published.push({ topic, message: message as Pushed });
    },
    deliverHere: (topic: string, message: unknown) => bus.here.push({ topic, message: message as Pushed }),
  };
  return bus;
}

const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((stop) => stop()));

function announcerOn(bus: ReturnType<typeof switchableBus>) {
  const announcer = createAnnouncer(bus);
  stops.push(() => announcer.stop());
  return announcer;
}

it('publishes at once while the bus is up, each push with a pushId of its own, and delivers nothing here itself', async () => {
  const bus = switchableBus();
  const announcer = announcerOn(bus);
  announcer.announce('t', 'k', 'latest', { n: 1 });
  announcer.announce('t', 'k', 'latest', { n: 2 });
  await eventually(() => bus.published.length === 2, 'both published');
  expect(bus.published.map((entry) => entry.message.n)).toEqual([1, 2]);
  expect(new Set(bus.published.map((entry) => entry.message.pushId)).size).toBe(2);
  expect(bus.here).toEqual([]);
});

it('while the bus refuses: delivers each push here at once, holds the latest per key and every `every` push, then publishes them in order', async () => {
  const bus = switchableBus();
  const announcer = announcerOn(bus);
  bus.up = false;
  announcer.announce('results', 'poll-1', 'latest', { count: 1 });
  announcer.announce('quests', 'site', 'every', { done: 'a' });
  announcer.announce('results', 'poll-1', 'latest', { count: 2 });
  announcer.announce('quests', 'site', 'every', { done: 'b' });
  await eventually(() => bus.here.length === 4, 'delivered here');
  expect(bus.here.map((entry) => entry.message.count ?? entry.message.done)).toEqual([1, 'a', 2, 'b']);
  expect(bus.published).toEqual([]);

  bus.up = true;
  await eventually(() => bus.published.length === 3, 'held pushes published');
  // The latest of poll-1 (moved behind the quest push it came after), and both quest pushes.
  expect(bus.published.map((entry) => entry.message.count ?? entry.message.done)).toEqual(['a', 2, 'b']);
  // What is published is what was delivered here: the same pushIds, so no instance shows it twice.
  const hereIds = new Set(bus.here.map((entry) => entry.message.pushId));
  for (const entry of bus.published) expect(hereIds.has(entry.message.pushId)).toBe(true);
});

it('folds a held push with a newer one of its key when asked (every account that answered)', async () => {
  const bus = switchableBus();
  const announcer = announcerOn(bus);
  bus.up = false;
  type Answers = { answered: string[] };
  const fold = (held: Answers, next: Answers): Answers => ({ answered: [...held.answered, ...next.answered] });
  announcer.announce<Answers>('results', 'poll-1', 'latest', { answered: ['ana'] }, fold);
  announcer.announce<Answers>('results', 'poll-1', 'latest', { answered: ['bo'] }, fold);
  bus.up = true;
  await eventually(() => bus.published.length === 1, 'one push for the poll');
  expect(bus.published[0].message).toMatchObject({ answered: ['ana', 'bo'], pushId: bus.here[1].message.pushId });
});

it('a push that comes again (the bus copy of one delivered here) is delivered once; messages without a pushId always', () => {
  const once = deliveredOnce(2);
  expect([once.first({ pushId: 'a' }), once.first({ pushId: 'a' }), once.first({ n: 1 }), once.first({ n: 1 })]).toEqual([true, false, true, true]);
  // It remembers a bounded number of ids, forgetting the oldest first.
  once.first({ pushId: 'b' });
  once.first({ pushId: 'c' });
  expect(once.first({ pushId: 'c' })).toBe(false);
  expect(once.first({ pushId: 'a' })).toBe(true);
});
