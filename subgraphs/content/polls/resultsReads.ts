/**
 * The `pollResults` of one operation read together. A front end asks for several polls' results at once
 * (aliased `pollResults` root fields: the deep channel query reads eight), and each alone was two
 * statements, its poll and its answer counts. The fields of one operation start in the same tick, so the
 * polls they name are read with one statement and their counts with another, each field answered as it
 * was: its poll or not found, its counts per answer.
 */
import type { Db } from '../../../shared/db/client';
import type { Poll } from '../../../shared/db/generated/sqlite';

/** A poll as its results need it, and its answers' counts (answers nobody chose are absent). */
export interface PollWithCounts {
  poll: Poll | null;
  counts: ReadonlyMap<string, number>;
}

interface Waiting {
  pollId: string;
  resolve(read: PollWithCounts): void;
  reject(error: unknown): void;
}

class PollResultsReads {
  private waiting: Waiting[] = [];

  constructor(
    private readonly db: Db,
    private readonly siteId: string,
  ) {}

  read(pollId: string): Promise<PollWithCounts> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) queueMicrotask(() => void this.flush());
      this.waiting.push({ pollId, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const ids = [...new Set(batch.map((entry) => entry.pollId))];
      const [polls, groups] = await Promise.all([
        this.db.poll.findMany({ where: { id: { in: ids }, siteId: this.siteId } }),
        this.db.pollAnswer.groupBy({ by: ['pollId', 'answerId'], where: { pollId: { in: ids } }, _count: { _all: true } }),
      ]);
      const pollOf = new Map(polls.map((poll) => [poll.id, poll]));
      const countsOf = new Map<string, Map<string, number>>();
      for (const group of groups) {
        let counts = countsOf.get(group.pollId);
        if (!counts) countsOf.set(group.pollId, (counts = new Map<string, number>()));
        counts.set(group.answerId, group._count._all);
      }
      for (const entry of batch) entry.resolve({ poll: pollOf.get(entry.pollId) ?? null, counts: countsOf.get(entry.pollId) ?? new Map<string, number>() });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}

/** One reader per operation: the resolvers of an operation share its context object. */
const readsOf = new WeakMap<object, PollResultsReads>();

/** Reads `pollId` with the other polls whose results the same operation asks for (`context`: the resolver context). */
export function readPollWithCounts(context: object, db: Db, siteId: string, pollId: string): Promise<PollWithCounts> {
  let reads = readsOf.get(context);
  if (!reads) readsOf.set(context, (reads = new PollResultsReads(db, siteId)));
  return reads.read(pollId);
}
