/**
 * Points and the leaderboard. Every point comes from a PointAward row whose unique key
 * (site, account, reason, source) makes an award happen once: the leaderboard total is bumped only for
 * the rows that insert, in the same statement sequence, so a repeated close, a second instance or a
 * retried quest can never count twice.
 */
import type { Db } from '../../shared/db/client';
import { Prisma } from '../../shared/db/generated/sqlite';
import { badInput } from '../../shared/errors';
import { newIds } from '../../shared/ids';

export const AWARD_REASONS = ['trivia', 'prediction', 'quest'] as const;
export type AwardReason = (typeof AWARD_REASONS)[number];

export interface PointAwardInput {
  siteId: string;
  accountId: string;
  reason: AwardReason;
  /** the poll or quest the points are for */
  sourceId: string;
  points: number;
  /** when the points were earned: the leaderboard's tie-break */
  at: Date;
}

/** The part of a Prisma client (or a transaction client) awarding needs: raw statements only. */
export interface RawClient {
  $queryRaw<T = unknown>(query: Prisma.Sql): Prisma.PrismaPromise<T>;
  $executeRaw(query: Prisma.Sql): Prisma.PrismaPromise<number>;
}

/** Rows per statement: 6 parameters a row stays far below SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 1000;

/**
 * Awards points, once: inserts each PointAward (a unique-key conflict = already awarded = skipped) and
 * adds the inserted ones to their accounts' LeaderboardEntry. Takes one award or many (a trivia close
 * awards a whole audience): two statements per 1,000 awards, never one per account. Runs on the client
 * it is given, so a caller's transaction covers it (call it inside one when the awards must commit
 * with other writes). Returns the awards that were new.
 */
export async function awardPoints(db: RawClient, awards: PointAwardInput | PointAwardInput[]): Promise<PointAwardInput[]> {
  const list = Array.isArray(awards) ? awards : [awards];
  const awarded: PointAwardInput[] = [];
  for (let start = 0; start < list.length; start += CHUNK) {
    const chunk = list.slice(start, start + CHUNK);
    const ids = newIds(chunk.length);
    const values = Prisma.join(
      chunk.map(
        (award, index) => Prisma.sql`(${ids[index]}, ${award.siteId}, ${award.accountId}, ${award.reason}, ${award.sourceId}, ${award.points}, ${award.at})`,
      ),
    );
    // RETURNING names the rows that went in; the ones ON CONFLICT skipped were awarded before.
    const inserted = await db.$queryRaw<{ id: string }[]>(
      Prisma.sql`INSERT INTO "PointAward" ("id", "siteId", "accountId", "reason", "sourceId", "points", "createdAt") VALUES ${values} ON CONFLICT DO NOTHING RETURNING "id"`,
    );
    const fresh = new Set(inserted.map((row) => row.id));
    const newAwards = chunk.filter((_, index) => fresh.has(ids[index]));
    awarded.push(...newAwards);
    await bumpEntries(db, newAwards);
  }
  return awarded;
}

/** Adds awards to their accounts' totals: one upsert per chunk, one row per account (a statement may not touch a row twice). */
async function bumpEntries(db: RawClient, awards: PointAwardInput[]): Promise<void> {
  if (awards.length === 0) return;
  const totals = new Map<string, { siteId: string; accountId: string; points: number; at: Date }>();
  for (const award of awards) {
    const key = `${award.siteId}\u0000${award.accountId}`;
    const total = totals.get(key);
    if (!total) totals.set(key, { siteId: award.siteId, accountId: award.accountId, points: award.points, at: award.at });
    else {
      total.points += award.points;
      if (award.at > total.at) total.at = award.at;
    }
  }
  const values = Prisma.join([...totals.values()].map((total) => Prisma.sql`(${total.siteId}, ${total.accountId}, ${total.points}, ${total.at})`));
  await db.$executeRaw(
    Prisma.sql`INSERT INTO "LeaderboardEntry" ("siteId", "accountId", "points", "reachedAt") VALUES ${values}
      ON CONFLICT ("siteId", "accountId") DO UPDATE SET "points" = "LeaderboardEntry"."points" + excluded."points", "reachedAt" = excluded."reachedAt"`,
  );
}

// ------------------------------------------------------------------ reading the leaderboard

/** One place on the leaderboard; the community subgraph adds the account's name. */
export interface LeaderboardEntryModel {
  rank: number | null;
  accountId: string;
  points: number;
}

/** Most points first; ties to whoever reached the score first (then by account, so the order is total). */
const ORDER = [{ points: 'desc' as const }, { reachedAt: 'asc' as const }, { accountId: 'asc' as const }];

/** A page of the site's leaderboard with the number of accounts on it. */
export async function leaderboardPage(db: Db, siteId: string, limitInput: number | null | undefined, offsetInput: number | null | undefined) {
  const limit = limitInput ?? 10;
  const offset = offsetInput ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badInput('limit must be between 1 and 100', 'limit');
  if (!Number.isInteger(offset) || offset < 0) throw badInput('offset must not be negative', 'offset');
  const [entries, totalCount] = await Promise.all([
    db.leaderboardEntry.findMany({ where: { siteId }, orderBy: ORDER, skip: offset, take: limit, select: { accountId: true, points: true } }),
    db.leaderboardEntry.count({ where: { siteId } }),
  ]);
  return {
    pagination: { limit, offset, totalCount },
    results: entries.map((entry, index): LeaderboardEntryModel => ({ rank: offset + index + 1, accountId: entry.accountId, points: entry.points })),
  };
}

/** One account's place: 1 + the entries ahead of it (an index range count); rank null and 0 points before any point. */
export async function leaderboardEntryOf(db: Db, siteId: string, accountId: string): Promise<LeaderboardEntryModel> {
  const entry = await db.leaderboardEntry.findUnique({ where: { siteId_accountId: { siteId, accountId } } });
  if (!entry) return { rank: null, accountId, points: 0 };
  const ahead = await db.leaderboardEntry.count({
    where: {
      siteId,
      OR: [
        { points: { gt: entry.points } },
        { points: entry.points, reachedAt: { lt: entry.reachedAt } },
        { points: entry.points, reachedAt: entry.reachedAt, accountId: { lt: accountId } },
      ],
    },
  });
  return { rank: ahead + 1, accountId, points: entry.points };
}
