/**
 * Watch time for quests, as written. Each instance's live server counts the seconds each signed-in
 * account holds a live overlayBroadcasts subscription to a channel, as 60-bit masks per (site, account,
 * channel, minute) (gateway/live/watchTime.ts), and hands them here in one batch every WATCH_FLUSH_MS.
 *
 * The batch is ORed into WatchMinute rows, so a second counted by two tabs, or by two instances, is one
 * bit. In the same transaction the bits that were new to the database (new & ~old, read under the row
 * lock) are added to the QuestWatchProgress of every watch action they count for (its window and
 * channels): the counters grow by exactly the seconds never counted before, whoever writes first.
 * Statements per batch: 3 per 1,000 masks and one per 1,000 counters — they grow with minutes watched,
 * never with viewers × seconds.
 */
import { Prisma } from '../../../shared/db/client';
import type { DbProvider } from '../../../shared/db/providers';
import type { Quest } from '../../../shared/db/generated/sqlite';
import { recordWatchTimeBatch } from '../../../shared/metrics';
import type { QuestDeps } from './deps';
import { evaluateQuest, publishProgress, questsOfSite } from './progress';
import { actionRules, WATCH_KIND, type ActionRule } from './rules';
import type { QuestProgressView, WatchedMinute } from '../../../shared/contracts/viewerActivity';

const ROWS_PER_STATEMENT = 1000;
const key = (row: { siteId: string; accountId: string; channelId: string; minute: number }) =>
  `${row.siteId}\u0000${row.accountId}\u0000${row.channelId}\u0000${row.minute}`;

/** Set bits of a mask below 2^60. */
export function popcount(mask: bigint): number {
  let count = 0;
  let rest = mask;
  while (rest > 0n) {
    rest &= rest - 1n;
    count += 1;
  }
  return count;
}

/** The seconds of `minute` inside [from, to] (Unix ms, null = open), as a mask. */
function windowMask(minute: number, from: number | null, to: number | null): bigint {
  const first = from === null ? 0 : Math.max(0, Math.ceil(from / 1000) - minute * 60);
  const last = to === null ? 59 : Math.min(59, Math.floor(to / 1000) - minute * 60);
  if (first > last) return 0n;
  return ((1n << BigInt(last - first + 1)) - 1n) << BigInt(first);
}

/**
 * ORs masks into WatchMinute inside the caller's transaction and answers, per row, the bits that were
 * not there before. PostgreSQL: new rows are inserted (they were all new), the others are locked
 * (FOR UPDATE, so a concurrent instance's write is seen whole) and updated from the locked value.
 * SQLite: one writer at a time, so the old masks are read and the rows upserted.
 */
async function orMasks(tx: Prisma.TransactionClient, provider: DbProvider, rows: WatchedMinute[]): Promise<{ fresh: Map<string, bigint>; statements: number }> {
  const fresh = new Map<string, bigint>();
  if (provider === 'postgresql') {
    const values = Prisma.join(
      rows.map((row) => Prisma.sql`(${row.siteId}::text, ${row.accountId}::text, ${row.channelId}::text, ${row.minute}::int, ${row.mask}::bigint)`),
    );
    const inserted = await tx.$queryRaw<{ siteId: string; accountId: string; channelId: string; minute: number }[]>(
      Prisma.sql`INSERT INTO "WatchMinute" ("siteId", "accountId", "channelId", "minute", "mask") VALUES ${values}
        ON CONFLICT DO NOTHING RETURNING "siteId", "accountId", "channelId", "minute"`,
    );
    const insertedKeys = new Set(inserted.map(key));
    const rest = rows.filter((row) => !insertedKeys.has(key(row)));
    for (const row of rows) if (insertedKeys.has(key(row))) fresh.set(key(row), row.mask);
    if (rest.length > 0) {
      const others = Prisma.join(
        rest.map((row) => Prisma.sql`(${row.siteId}::text, ${row.accountId}::text, ${row.channelId}::text, ${row.minute}::int, ${row.mask}::bigint)`),
      );
      // Locked in key order, so two instances writing overlapping batches wait for each other instead of deadlocking.
      const updated = await tx.$queryRaw<{ siteId: string; accountId: string; channelId: string; minute: number; old: bigint; mask: bigint }[]>(
        Prisma.sql`WITH v ("siteId", "accountId", "channelId", "minute", "mask") AS (VALUES ${others}),
          old AS (SELECT w."siteId", w."accountId", w."channelId", w."minute", w."mask" FROM "WatchMinute" w
                  JOIN v USING ("siteId", "accountId", "channelId", "minute")
                  ORDER BY w."siteId", w."accountId", w."channelId", w."minute" FOR UPDATE OF w)
          UPDATE "WatchMinute" w SET "mask" = old."mask" | v."mask"
          FROM old JOIN v USING ("siteId", "accountId", "channelId", "minute")
          WHERE w."siteId" = old."siteId" AND w."accountId" = old."accountId" AND w."channelId" = old."channelId" AND w."minute" = old."minute"
            AND (old."mask" | v."mask") <> old."mask"
          RETURNING w."siteId", w."accountId", w."channelId", w."minute", old."mask" AS "old", w."mask" AS "mask"`,
      );
      for (const row of updated) fresh.set(key(row), BigInt(row.mask) & ~BigInt(row.old));
    }
    return { fresh, statements: rest.length > 0 ? 2 : 1 };
  }
  const keys = Prisma.join(rows.map((row) => Prisma.sql`(${row.siteId}, ${row.accountId}, ${row.channelId}, ${row.minute})`));
  const existing = await tx.$queryRaw<{ siteId: string; accountId: string; channelId: string; minute: number; mask: bigint | number }[]>(
    Prisma.sql`SELECT "siteId", "accountId", "channelId", "minute", "mask" FROM "WatchMinute" WHERE ("siteId", "accountId", "channelId", "minute") IN (VALUES ${keys})`,
  );
  const old = new Map(existing.map((row) => [key(row), BigInt(row.mask)]));
  const values = Prisma.join(rows.map((row) => Prisma.sql`(${row.siteId}, ${row.accountId}, ${row.channelId}, ${row.minute}, ${row.mask})`));
  await tx.$executeRaw(
    Prisma.sql`INSERT INTO "WatchMinute" ("siteId", "accountId", "channelId", "minute", "mask") VALUES ${values}
      ON CONFLICT ("siteId", "accountId", "channelId", "minute") DO UPDATE SET "mask" = "WatchMinute"."mask" | excluded."mask"`,
  );
  for (const row of rows) {
    const added = row.mask & ~(old.get(key(row)) ?? 0n);
    if (added !== 0n) fresh.set(key(row), added);
  }
  return { fresh, statements: 2 };
}

interface WatchRule {
  quest: Quest;
  rule: ActionRule;
}

/** The seconds of the new bits each watch action counts, per (quest, action, account). */
function countForRules(rows: WatchedMinute[], fresh: Map<string, bigint>, rulesBySite: Map<string, WatchRule[]>) {
  const counts = new Map<string, { questId: string; actionKey: string; accountId: string; siteId: string; seconds: number }>();
  for (const row of rows) {
    const added = fresh.get(key(row));
    if (!added) continue;
    for (const { quest, rule } of rulesBySite.get(row.siteId) ?? []) {
      if (rule.channels && !rule.channels.includes(row.channelId)) continue;
      const seconds = popcount(added & windowMask(row.minute, rule.from, rule.to));
      if (seconds === 0) continue;
      const id = `${quest.id}\u0000${rule.key}\u0000${row.accountId}`;
      const count = counts.get(id);
      if (count) count.seconds += seconds;
      else counts.set(id, { questId: quest.id, actionKey: rule.key, accountId: row.accountId, siteId: row.siteId, seconds });
    }
  }
  return [...counts.values()];
}

/** What a batch wrote: for the bench and tests (statements are what the database was sent). */
export interface WatchBatchOutcome {
  rows: number;
  statements: number;
  counters: number;
}

/**
 * Writes one batch of watch time (any sites and accounts), adds its new seconds to the watch actions of
 * the sites' quests, then evaluates those quests for the accounts whose counters grew (completing the
 * ones now done) and pushes their progress.
 */
export async function recordWatchTime(deps: QuestDeps & { provider: DbProvider }, batch: readonly WatchedMinute[]): Promise<WatchBatchOutcome> {
  if (batch.length === 0) return { rows: 0, statements: 0, counters: 0 };
  const rulesBySite = new Map<string, WatchRule[]>();
  for (const siteId of new Set(batch.map((row) => row.siteId))) {
    const quests = await questsOfSite(deps, siteId);
    rulesBySite.set(
      siteId,
      quests.flatMap((quest) =>
        actionRules(quest)
          .filter((rule) => rule.kind === WATCH_KIND)
          .map((rule) => ({ quest, rule })),
      ),
    );
  }
  // Rows sorted by key (each key made once): every instance locks in the same order.
  const rows = batch
    .map((row) => ({ id: key(row), row }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((entry) => entry.row);
  let statements = 0;
  const now = new Date();
  const counters = await deps.db.$transaction(
    async (tx) => {
      const all: ReturnType<typeof countForRules> = [];
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const part = rows.slice(start, start + ROWS_PER_STATEMENT);
        const { fresh, statements: sent } = await orMasks(tx, deps.provider, part);
        statements += sent;
        all.push(...countForRules(part, fresh, rulesBySite));
      }
      const merged = new Map<string, (typeof all)[number]>();
      for (const count of all) {
        const id = `${count.questId}\u0000${count.actionKey}\u0000${count.accountId}`;
        const known = merged.get(id);
        if (known) known.seconds += count.seconds;
        else merged.set(id, { ...count });
      }
      const list = [...merged.values()];
      for (let start = 0; start < list.length; start += ROWS_PER_STATEMENT) {
        const values = Prisma.join(
          list
            .slice(start, start + ROWS_PER_STATEMENT)
            .map((count) => Prisma.sql`(${count.questId}, ${count.accountId}, ${count.actionKey}, ${count.siteId}, ${count.seconds}, ${now})`),
        );
        await tx.$executeRaw(
          Prisma.sql`INSERT INTO "QuestWatchProgress" ("questId", "accountId", "actionKey", "siteId", "seconds", "updatedAt") VALUES ${values}
            ON CONFLICT ("questId", "accountId", "actionKey") DO UPDATE SET "seconds" = "QuestWatchProgress"."seconds" + excluded."seconds", "updatedAt" = excluded."updatedAt"`,
        );
        statements += 1;
      }
      return list;
    },
    { timeout: 30_000 },
  );
  recordWatchTimeBatch(rows.length, statements);
  // Progress of the accounts whose counters grew, per quest, then pushed to their subscriptions.
  const byQuest = new Map<string, { quest: Quest; accounts: Set<string> }>();
  for (const count of counters) {
    const quest = rulesBySite.get(count.siteId)?.find((entry) => entry.quest.id === count.questId)?.quest;
    if (!quest) continue;
    let entry = byQuest.get(quest.id);
    if (!entry) byQuest.set(quest.id, (entry = { quest, accounts: new Set() }));
    entry.accounts.add(count.accountId);
  }
  for (const { quest, accounts } of byQuest.values()) {
    const views: QuestProgressView[] = await evaluateQuest(deps, quest, [...accounts]);
    publishProgress(deps, quest.siteId, views);
  }
  return { rows: rows.length, statements, counters: counters.length };
}
