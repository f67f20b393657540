/**
 * Upvotes, the hot write of a Q&A room (thousands a second in one room). A vote is one row of QaVote,
 * unique per question and account: the database decides "once each", on every instance. Votes are stored
 * like poll answers (subgraphs/content/polls/answers.ts): those that arrive while a batch is being written
 * share the next one: in one transaction (one statement on PostgreSQL, a synchronous one on SQLite's plain
 * connection), one INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING, which inserts a vote only for a
 * question of the named room that is open or answered and not the voter's own, then one UPDATE raising each
 * touched question's `votes` by its new rows — so each voter is answered with its
 * question's exact count, and reading a room's counts is reading its questions (no count over its votes).
 */
import { MicroBatcher } from '../../../shared/db/batches';
import type { Database } from '../../../shared/db/client';
import { sqliteDate, whenUnlocked } from '../../../shared/db/sqlite';

export interface VoteRow {
  id: string;
  siteId: string;
  panelId: string;
  questionId: string;
  accountId: string;
}

/** What a voter learns once its batch is committed: whether its row went in, and its question's votes. */
export interface VoteOutcome {
  stored: boolean;
  votes: number;
}

const SQLITE_INSERT =
  'INSERT INTO "QaVote" ("id", "siteId", "panelId", "questionId", "accountId", "createdAt") ' +
  'SELECT json_extract(a.value, \'$[0]\'), q."siteId", q."panelId", q."id", json_extract(a.value, \'$[4]\'), ? ' +
  'FROM json_each(?) AS a JOIN "QaQuestion" AS q ON q."id" = json_extract(a.value, \'$[3]\') ' +
  'AND q."siteId" = json_extract(a.value, \'$[1]\') AND q."panelId" = json_extract(a.value, \'$[2]\') ' +
  'WHERE q."status" IN (\'open\', \'answered\') AND q."accountId" <> json_extract(a.value, \'$[4]\') ON CONFLICT DO NOTHING RETURNING "id", "questionId"';
const SQLITE_ADD =
  'UPDATE "QaQuestion" SET "votes" = "votes" + json_extract(a.value, \'$[1]\') FROM json_each(?) AS a ' +
  'WHERE "QaQuestion"."id" = json_extract(a.value, \'$[0]\') RETURNING "id", "votes"';

/** One statement, so one transaction: the rows that may go in, each touched question raised by its new rows, both answered. */
const POSTGRES_STORE =
  'WITH ins AS (INSERT INTO "QaVote" ("id", "siteId", "panelId", "questionId", "accountId", "createdAt") ' +
  'SELECT a.id, q."siteId", q."panelId", q."id", a.account, $2::timestamp(3) ' +
  'FROM json_to_recordset($1::json) AS a(id text, site text, panel text, question text, account text) ' +
  'JOIN "QaQuestion" AS q ON q."id" = a.question AND q."siteId" = a.site AND q."panelId" = a.panel ' +
  'WHERE q."status" IN (\'open\', \'answered\') AND q."accountId" <> a.account ON CONFLICT DO NOTHING RETURNING "id", "questionId"), ' +
  'added AS (SELECT "questionId" AS id, count(*)::int AS n FROM ins GROUP BY "questionId"), ' +
  'raised AS (UPDATE "QaQuestion" AS q SET "votes" = q."votes" + added.n FROM added WHERE q."id" = added.id RETURNING q."id", q."votes") ' +
  "SELECT (SELECT coalesce(json_agg(ins.id), '[]') FROM ins) AS inserted, (SELECT coalesce(json_agg(json_build_array(raised.id, raised.votes)), '[]') FROM raised) AS votes";

/** The IDs of a batch's rows that went in, and the counts of the questions they raised. */
interface StoredBatch {
  inserted: Set<string>;
  votes: Map<string, number>;
}

const batchOf = (inserted: string[], votes: [string, number | bigint][]): StoredBatch => ({
  inserted: new Set(inserted),
  votes: new Map(votes.map(([id, count]) => [id, Number(count)])),
});

/** How many of a batch's new rows each question got, as [questionId, n] pairs. */
function addedOf(inserted: { questionId: string }[]): [string, number][] {
  const added = new Map<string, number>();
  for (const row of inserted) added.set(row.questionId, (added.get(row.questionId) ?? 0) + 1);
  return [...added];
}

/** Stores one batch in one transaction: the rows that may go in, then each touched question's count raised by its new rows. */
function voteStore(database: Database): (rows: VoteRow[], at: Date) => Promise<StoredBatch> {
  const sqliteRows = (rows: VoteRow[]) => JSON.stringify(rows.map((row) => [row.id, row.siteId, row.panelId, row.questionId, row.accountId]));
  const plain = database.plain;
  if (database.provider === 'postgresql') {
    return async (rows, at) => {
      const json = JSON.stringify(rows.map((row) => ({ id: row.id, site: row.siteId, panel: row.panelId, question: row.questionId, account: row.accountId })));
      const [result] = await database.prisma.$queryRawUnsafe<{ inserted: string[]; votes: [string, number][] }[]>(POSTGRES_STORE, json, at.toISOString());
      return batchOf(result.inserted, result.votes);
    };
  }
  if (plain?.provider === 'sqlite') {
    const insert = plain.connection.prepare(SQLITE_INSERT);
    const raise = plain.connection.prepare(SQLITE_ADD);
    // Synchronous, between BEGIN IMMEDIATE and COMMIT: no other write comes between the rows and their counts.
    const storeAll = plain.connection.transaction((json: string, at: string) => {
      const inserted = insert.all(at, json) as { id: string; questionId: string }[];
      const added = addedOf(inserted);
      const votes = added.length > 0 ? (raise.all(JSON.stringify(added)) as { id: string; votes: number | bigint }[]) : [];
      return batchOf(
        inserted.map((row) => row.id),
        votes.map((row) => [row.id, row.votes]),
      );
    });
    return async (rows, at) => {
      const json = sqliteRows(rows);
      // The connection never waits for a lock (it would stop the event loop): a batch that finds the database locked is retried shortly.
      const stored = await whenUnlocked(() => storeAll.immediate(json, sqliteDate(at)));
      plain.counted(4);
      return stored;
    };
  }
  // In-memory SQLite (no second connection sees it): the same statements in a Prisma transaction.
  return (rows, at) =>
    database.prisma.$transaction(async (tx) => {
      const inserted = await tx.$queryRawUnsafe<{ id: string; questionId: string }[]>(SQLITE_INSERT, sqliteDate(at), sqliteRows(rows));
      const added = addedOf(inserted);
      const votes = added.length > 0 ? await tx.$queryRawUnsafe<{ id: string; votes: number | bigint }[]>(SQLITE_ADD, JSON.stringify(added)) : [];
      return batchOf(
        inserted.map((row) => row.id),
        votes.map((row) => [row.id, row.votes]),
      );
    });
}

/** Stores votes in batches; tells `stored` the rooms whose votes changed, once committed. */
export class QaVoteWriter {
  private readonly batches: MicroBatcher<VoteRow, VoteOutcome>;

  constructor(database: Database, stored: (rooms: { siteId: string; panelId: string }[]) => void, maxBatch = 1000) {
    const store = voteStore(database);
    this.batches = new MicroBatcher(async (rows) => {
      const { inserted, votes } = await store(rows, new Date());
      const rooms = new Map<string, { siteId: string; panelId: string }>();
      for (const row of rows) if (inserted.has(row.id)) rooms.set(`${row.siteId}\u0000${row.panelId}`, { siteId: row.siteId, panelId: row.panelId });
      if (rooms.size > 0) stored([...rooms.values()]);
      return rows.map((row) => ({ stored: inserted.has(row.id), votes: votes.get(row.questionId) ?? 0 }));
    }, maxBatch);
  }

  write(row: VoteRow): Promise<VoteOutcome> {
    return this.batches.submit(row);
  }
}
