/**
 * Viewers answering polls, and the results they read. An answer is one row of PollAnswer, unique per
 * poll and account: the database decides "already answered", so two instances or a retried request can
 * never count one twice. Answers are the hot write of a live event (thousands a second on one poll), so
 * they are stored like data events: the answers that arrive while a batch is being written share the
 * next one — one INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING per batch on the plain driver, which
 * inserts a row only while its poll is open (the poll row is share-locked on PostgreSQL, so a close
 * waits for the answers being written and no answer lands after it) — and each request is answered once
 * its own row is committed, by whether it went in.
 *
 * After each batch the instance tells every instance over the bus which accounts answered which poll
 * (Topics.pollResults): live results are recounted from the database and pushed from there.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { openRateLimiters, spendLimit, type RateLimiters } from '../../../shared/rateLimits';
import { Topics, type EventBus } from '../../../shared/bus';
import { MicroBatcher } from '../../../shared/db/batches';
import type { Database, Db } from '../../../shared/db/client';
import { sqliteDate, whenUnlocked } from '../../../shared/db/sqlite';
import type { Poll } from '../../../shared/db/generated/sqlite';
import { badInput, conflict, notFound, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { ServiceDeps, SubgraphContext } from '../../../shared/subgraph';
import { requireSite } from '../../../shared/auth/access';
import type { Identity } from '../../../shared/auth/identity';
import { pollAnswers } from './polls';
import { POLL_RESULTS_MESSAGE_VERSION, type PollResultsMessage, type PollResultsModel } from '../../../shared/contracts/viewerActivity';

/** Answers per account: 30 a minute is far beyond a viewer clicking, and stops a script hammering. */
const ANSWER_LIMIT = { keyPrefix: 'poll-answer', points: 30, duration: 60 };
/** How long a poll read for checking an answer is reused (a change on any instance drops it at once). */
const POLL_CACHE_MS = 1000;
const POLL_CACHE_MAX = 10_000;

export interface AnswerRow {
  id: string;
  siteId: string;
  pollId: string;
  accountId: string;
  answerId: string;
  channelId: string | null;
}

/** Stores a batch in one statement; returns the IDs of the rows that went in. */
type StoreAnswers = (rows: AnswerRow[], at: Date) => Promise<Set<string>>;

const SQLITE_INSERT =
  'INSERT INTO "PollAnswer" ("id", "siteId", "pollId", "accountId", "answerId", "channelId", "createdAt") ' +
  "SELECT json_extract(a.value, '$[0]'), p.\"siteId\", p.\"id\", json_extract(a.value, '$[3]'), json_extract(a.value, '$[4]'), json_extract(a.value, '$[5]'), ? " +
  'FROM json_each(?) AS a JOIN "Poll" AS p ON p."id" = json_extract(a.value, \'$[2]\') AND p."siteId" = json_extract(a.value, \'$[1]\') ' +
  // The WHERE also lets SQLite parse ON CONFLICT after a SELECT.
  'WHERE p."open" = 1 ON CONFLICT DO NOTHING RETURNING "id"';

const POSTGRES_INSERT =
  'INSERT INTO "PollAnswer" ("id", "siteId", "pollId", "accountId", "answerId", "channelId", "createdAt") ' +
  'SELECT a.id, p."siteId", p."id", a.account, a.answer, a.channel, $7::timestamp(3) ' +
  'FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS a(id, site, poll, account, answer, channel) ' +
  'JOIN "Poll" AS p ON p."id" = a.poll AND p."siteId" = a.site WHERE p."open" ' +
  // A close (UPDATE of the poll row) waits for the batches holding this lock, and batches after it see the poll closed.
  'FOR SHARE OF p ON CONFLICT DO NOTHING RETURNING "id"';

const rowsAsJson = (rows: AnswerRow[]) => JSON.stringify(rows.map((row) => [row.id, row.siteId, row.pollId, row.accountId, row.answerId, row.channelId]));

function answerStore(database: Database): StoreAnswers {
  const plain = database.plain;
  if (!plain) {
    // In-memory SQLite (no second connection sees it): the same statement through Prisma.
    return async (rows, at) => {
      const inserted = await database.prisma.$queryRawUnsafe<{ id: string }[]>(SQLITE_INSERT, sqliteDate(at), rowsAsJson(rows));
      return new Set(inserted.map((row) => row.id));
    };
  }
  if (plain.provider === 'sqlite') {
    const insert = plain.connection.prepare(SQLITE_INSERT);
    const insertAll = plain.connection.transaction((json: string, at: string) => insert.all(at, json) as { id: string }[]);
    return async (rows, at) => {
      const json = rowsAsJson(rows);
      // The connection never waits for a lock (it would stop the event loop, and with it the Prisma
      // transaction holding the lock): a batch that finds the database locked is retried shortly.
      const inserted = await whenUnlocked(() => insertAll.immediate(json, sqliteDate(at)));
      plain.counted(3);
      return new Set(inserted.map((row) => row.id));
    };
  }
  const { pool } = plain;
  return async (rows, at) => {
    const result = await pool.query<{ id: string }>({
      name: 'stagegraph-insert-poll-answers',
      text: POSTGRES_INSERT,
      values: [
        rows.map((row) => row.id),
        rows.map((row) => row.siteId),
        rows.map((row) => row.pollId),
        rows.map((row) => row.accountId),
        rows.map((row) => row.answerId),
        rows.map((row) => row.channelId),
        at.toISOString(),
      ],
    });
    plain.counted(1);
    return new Set(result.rows.map((row) => row.id));
  };
}

/**
 * Stores answers in batches (shared/db/batches.ts): those that arrive in one turn of the event loop, or
 * while the previous batch is being written, share one statement and one commit. Each caller learns,
 * once its batch is committed, whether its row went in (false: the account had answered, or the poll
 * was closed); the rows that went in are announced.
 */
export class PollAnswerWriter {
  private readonly batches: MicroBatcher<AnswerRow, boolean>;

  constructor(database: Database, announce: (rows: AnswerRow[]) => void, maxBatch = 1000) {
    const store = answerStore(database);
    this.batches = new MicroBatcher(async (rows) => {
      const inserted = await store(rows, new Date());
      announce(rows.filter((row) => inserted.has(row.id)));
      return rows.map((row) => inserted.has(row.id));
    }, maxBatch);
  }

  write(row: AnswerRow): Promise<boolean> {
    return this.batches.submit(row);
  }
}

/** What checking an answer needs of its poll, kept for a second per instance. */
interface PollSummary {
  open: boolean;
  answerIds: Set<string>;
  expires: number;
}

/** The content subgraph's state for answers: the writer, the per-account rate limit and the poll summaries. */
export class PollAnswerRuntime {
  readonly writer: PollAnswerWriter;
  private readonly rate: RateLimiterAbstract;
  private readonly limits: RateLimiters;
  private readonly polls = new Map<string, PollSummary>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: Pick<ServiceDeps, 'config' | 'database' | 'bus' | 'logger'>,
    /** Told the answers of each batch that went in, once committed (quest progress). */
    private readonly onStored?: (rows: readonly AnswerRow[]) => void,
  ) {
    const { config, database, bus, logger } = deps;
    this.writer = new PollAnswerWriter(database, (rows) => this.announceAnswers(rows));
    this.limits = openRateLimiters(config, logger);
    this.rate = this.limits.limiter(ANSWER_LIMIT);
    this.unsubscribe = bus.subscribe(Topics.pollResults, (message) => {
      const { siteId, pollId, changed } = message as PollResultsMessage;
      if (changed) this.polls.delete(`${siteId}\u0000${pollId}`);
    });
  }

  /** Spends one of the account's answer attempts; RATE_LIMITED when none is left. */
  countAttempt(siteId: string, accountId: string): Promise<void> {
    return spendLimit(this.rate, `${siteId}:${accountId}`, 'answers', (retryAfter) => `too many answers from this account; try again in ${retryAfter} s`);
  }

  /** The poll's open state and answer IDs, from a read at most a second old; null when the site has no such poll. */
  async pollSummary(db: Db, siteId: string, pollId: string): Promise<PollSummary | null> {
    const key = `${siteId}\u0000${pollId}`;
    const cached = this.polls.get(key);
    if (cached && cached.expires > Date.now()) return cached;
    const poll = await db.poll.findFirst({ where: { id: pollId, siteId } });
    if (!poll) return null;
    const summary: PollSummary = { open: poll.open, answerIds: new Set(pollAnswers(poll).map((answer) => answer.id)), expires: Date.now() + POLL_CACHE_MS };
    if (this.polls.size >= POLL_CACHE_MAX) this.polls.delete(this.polls.keys().next().value as string);
    this.polls.set(key, summary);
    return summary;
  }

  private announceAnswers(rows: AnswerRow[]): void {
    const byPoll = new Map<string, PollResultsMessage>();
    for (const row of rows) {
      const key = `${row.siteId}\u0000${row.pollId}`;
      let message = byPoll.get(key);
      if (!message) byPoll.set(key, (message = { v: POLL_RESULTS_MESSAGE_VERSION, siteId: row.siteId, pollId: row.pollId, answered: [] }));
      message.answered?.push([row.accountId, row.answerId, row.channelId]);
    }
    for (const message of byPoll.values()) publishPollResults(this.deps.bus, message);
    if (rows.length > 0) this.onStored?.(rows);
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    await this.limits.close();
  }
}

/**
 * Tells every instance a poll's results may have changed. While Redis is away this instance's viewers
 * get it at once and the others once it is back: the latest per poll, carrying every account that
 * answered meanwhile (their own answers) and whether the poll changed.
 */
export function publishPollResults(bus: EventBus, message: PollResultsMessage): void {
  bus.announce(Topics.pollResults, `${message.siteId}\u0000${message.pollId}`, 'latest', message, foldPollResults);
}

const foldPollResults = (held: PollResultsMessage, next: PollResultsMessage): PollResultsMessage => {
  const answered = [...(held.answered ?? []), ...(next.answered ?? [])];
  return { ...next, ...(answered.length > 0 ? { answered } : {}), ...(held.changed || next.changed ? { changed: true } : {}) };
};

/** The signed-in account answering; a viewer acts with its sign-in JWT. */
function answeringAccount(identity: Identity): string {
  if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in viewer is required to answer');
  return identity.account.id;
}

export interface AnswerInput {
  pollId: string;
  answerId: string;
  channelId?: string | null;
}

/** Answers a poll as the caller's account: checks, stores (durable before it returns) and explains a refusal. */
export async function answerPoll(ctx: SubgraphContext, runtime: PollAnswerRuntime, input: AnswerInput) {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  const accountId = answeringAccount(identity);
  await runtime.countAttempt(siteId, accountId);
  const poll = await runtime.pollSummary(db, siteId, input.pollId);
  if (!poll) throw notFound(`poll ${input.pollId}`);
  if (!poll.answerIds.has(input.answerId)) throw badInput("answerId must be the id of one of the poll's answers", 'answerId');
  if (!poll.open) throw conflict('the poll is closed');
  const channelId = input.channelId ?? null;
  if (channelId !== null && (channelId.length === 0 || channelId.length > 64)) throw badInput('channelId must be 1 to 64 characters', 'channelId');
  const row: AnswerRow = { id: newId(), siteId, pollId: input.pollId, accountId, answerId: input.answerId, channelId };
  if (!(await runtime.writer.write(row))) {
    // Not inserted: the account had answered (the unique key), or the poll closed meanwhile.
    const existing = await db.pollAnswer.findUnique({ where: { pollId_accountId: { pollId: input.pollId, accountId } }, select: { answerId: true } });
    if (existing) throw conflict(`this account already answered poll ${input.pollId} (answer ${existing.answerId}); an answer is final`);
    const now = await db.poll.findFirst({ where: { id: input.pollId, siteId }, select: { open: true } });
    if (!now) throw notFound(`poll ${input.pollId}`);
    throw conflict('the poll is closed');
  }
  return { success: true, pollId: input.pollId, answerId: input.answerId, channelId };
}

// ------------------------------------------------------------------ results

/** Whether everyone may know the right answer: a closed trivia question, a closed prediction that names it. */
export function revealed(poll: Pick<Poll, 'type' | 'open' | 'correctAnswerId'>): boolean {
  return !poll.open && poll.correctAnswerId !== null && (poll.type === 'trivia' || poll.type === 'prediction');
}

/** A database or transaction client that can count answers. */
type AnswerReader = Pick<Db, 'pollAnswer'>;

/**
 * The poll's results: counts per answer from the database (the truth on every instance), the right
 * answer when revealed (or to a caller who may see it anyway, an admin), and the account's own answer.
 */
export async function pollResultsOf(
  db: AnswerReader,
  poll: Poll,
  accountId: string | null,
  showAnswer = false,
  /** The counts per answer when already read (resultsReads.ts); read here otherwise. */
  counted?: ReadonlyMap<string, number>,
): Promise<PollResultsModel> {
  const [groups, mine] = await Promise.all([
    counted ? null : db.pollAnswer.groupBy({ by: ['answerId'], where: { pollId: poll.id }, _count: { _all: true } }),
    accountId ? db.pollAnswer.findUnique({ where: { pollId_accountId: { pollId: poll.id, accountId } }, select: { answerId: true } }) : null,
  ]);
  const counts = counted ?? new Map((groups ?? []).map((group) => [group.answerId, group._count._all]));
  const answers = pollAnswers(poll).map((answer) => ({ id: answer.id, text: answer.text, count: counts.get(answer.id) ?? 0 }));
  const isRevealed = revealed(poll);
  return {
    pollId: poll.id,
    type: poll.type,
    question: poll.question,
    open: poll.open,
    total: answers.reduce((sum, answer) => sum + answer.count, 0),
    answers,
    correctAnswerId: isRevealed || showAnswer ? poll.correctAnswerId : null,
    mine: mine ? { answerId: mine.answerId, correct: isRevealed ? mine.answerId === poll.correctAnswerId : null } : null,
  };
}

/** What these accounts answered (the live server's `mine` for many viewers in one read). */
export async function answersOfAccounts(db: Db, pollId: string, accountIds: readonly string[]) {
  if (accountIds.length > 1000) throw badInput('accountIds may name at most 1000 accounts', 'accountIds');
  if (accountIds.length === 0) return [];
  return db.pollAnswer.findMany({ where: { pollId, accountId: { in: [...new Set(accountIds)] } }, select: { accountId: true, answerId: true } });
}
