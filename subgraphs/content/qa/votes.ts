/**
 * Upvotes, the hot write of a Q&A room (thousands a second in one room). A vote is one row of QaVote,
 * unique per question and account: the database decides "once each", on every instance. Votes are stored
 * like poll answers (subgraphs/content/polls/answers.ts): those that arrive while a batch is being written
 * share the next one — one INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING per batch, which inserts a
 * vote only for a question of the named room that is open or answered and not the voter's own — then one
 * count of the questions the batch touched, so each voter is answered with its question's exact count.
 */
import { MicroBatcher } from '../../../shared/db/batches';
import type { Database } from '../../../shared/db/client';
import { sqliteDate } from '../../../shared/db/sqlite';

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
  'WHERE q."status" IN (\'open\', \'answered\') AND q."accountId" <> json_extract(a.value, \'$[4]\') ON CONFLICT DO NOTHING RETURNING "id"';

const POSTGRES_INSERT =
  'INSERT INTO "QaVote" ("id", "siteId", "panelId", "questionId", "accountId", "createdAt") ' +
  'SELECT a.id, q."siteId", q."panelId", q."id", a.account, $2::timestamp(3) ' +
  'FROM json_to_recordset($1::json) AS a(id text, site text, panel text, question text, account text) ' +
  'JOIN "QaQuestion" AS q ON q."id" = a.question AND q."siteId" = a.site AND q."panelId" = a.panel ' +
  'WHERE q."status" IN (\'open\', \'answered\') AND q."accountId" <> a.account ON CONFLICT DO NOTHING RETURNING "id"';

/** Stores one batch in one statement; the IDs of the rows that went in. */
function voteStore(database: Database): (rows: VoteRow[], at: Date) => Promise<Set<string>> {
  const { prisma } = database;
  if (database.provider === 'postgresql') {
    return async (rows, at) => {
      const json = JSON.stringify(rows.map((row) => ({ id: row.id, site: row.siteId, panel: row.panelId, question: row.questionId, account: row.accountId })));
      const inserted = await prisma.$queryRawUnsafe<{ id: string }[]>(POSTGRES_INSERT, json, at.toISOString());
      return new Set(inserted.map((row) => row.id));
    };
  }
  return async (rows, at) => {
    const json = JSON.stringify(rows.map((row) => [row.id, row.siteId, row.panelId, row.questionId, row.accountId]));
    const inserted = await prisma.$queryRawUnsafe<{ id: string }[]>(SQLITE_INSERT, sqliteDate(at), json);
    return new Set(inserted.map((row) => row.id));
  };
}

/** Each question's votes, counted in the database (one statement for many questions). */
export async function votesOf(database: Pick<Database, 'prisma'>, questionIds: readonly string[]): Promise<Map<string, number>> {
  if (questionIds.length === 0) return new Map();
  const groups = await database.prisma.qaVote.groupBy({ by: ['questionId'], where: { questionId: { in: [...new Set(questionIds)] } }, _count: { _all: true } });
  return new Map(groups.map((group) => [group.questionId, group._count._all]));
}

/** Stores votes in batches; tells `stored` the rooms whose votes changed, once committed. */
export class QaVoteWriter {
  private readonly batches: MicroBatcher<VoteRow, VoteOutcome>;

  constructor(database: Database, stored: (rooms: { siteId: string; panelId: string }[]) => void, maxBatch = 1000) {
    const store = voteStore(database);
    this.batches = new MicroBatcher(async (rows) => {
      const inserted = await store(rows, new Date());
      const counts = await votesOf(
        database,
        rows.map((row) => row.questionId),
      );
      const rooms = new Map<string, { siteId: string; panelId: string }>();
      for (const row of rows) if (inserted.has(row.id)) rooms.set(`${row.siteId}\u0000${row.panelId}`, { siteId: row.siteId, panelId: row.panelId });
      if (rooms.size > 0) stored([...rooms.values()]);
      return rows.map((row) => ({ stored: inserted.has(row.id), votes: counts.get(row.questionId) ?? 0 }));
    }, maxBatch);
  }

  write(row: VoteRow): Promise<VoteOutcome> {
    return this.batches.submit(row);
  }
}
