/**
 * Ingesting a data event, in the order that keeps partners safe and the path fast: size, provider,
 * signature over the exact body (constant time), the provider's rate, the provider's schema; then the
 * event is stored (durable before the answer) and the cached rules of the provider are evaluated.
 *
 * The seed signs the body only, so a signed event can be sent again by anyone who saw it. The same body
 * from the same provider within REPLAY_WINDOW_MS is a replay: answered as the first one was, and not
 * stored, counted or evaluated again. Which event first claimed a body is a database fact (a row per
 * provider and body digest, claimed in the transaction that stores the event), so it holds across instances.
 */
import { createHash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { MicroBatcher } from '../../shared/db/batches';
import type { Database, Db } from '../../shared/db/client';
import { sqliteDate, whenUnlocked } from '../../shared/db/sqlite';
import type { Prisma } from '../../shared/db/generated/sqlite';
import { GraphQLError } from 'graphql';
import { appError, badInput, ErrorCode, forbidden } from '../../shared/errors';
import { recordDataEvent, recordDataEventReplay, type DataEventRejection } from '../../shared/metrics';
import { parseJsonInput } from '../../shared/jsonInput';
import { newId } from '../../shared/ids';
import { describeSchemaError } from '../../shared/schemaErrors';
import type { SubgraphContext } from '../../shared/subgraph';
import { rulesMetBy, runRules, type RuleCache } from './automationRules';
import type { DataProviderCache } from './dataProviders';
import { verifyProviderSignature } from './secrets';

/** Largest data event body. */
export const MAX_EVENT_BYTES = 256 * 1024;
/** How long a provider's exact body is remembered: the same body again within it is a replay. */
export const REPLAY_WINDOW_MS = 10 * 60 * 1000;

/** What taking in data events needs of the subgraph's runtime (built once in runtime.ts). */
export interface DataEventIntake {
  dataProviders: DataProviderCache;
  rules: RuleCache;
  /** Counts data events per provider ID. */
  eventRate: RateLimiterAbstract;
  /** Stores accepted events, many per transaction. */
  eventWriter: DataEventWriter;
  /** Longest an accepted event's answer waits for the actions of the rules it met (config.ruleWaitMs). */
  ruleWaitMs: number;
}

export interface SignedEvent {
  dataProviderId: string;
  signature: string | null | undefined;
  /** The exact body the provider signed. */
  rawBody: string;
}

async function countAgainstRate(runtime: DataEventIntake, dataProviderId: string): Promise<void> {
  try {
    await runtime.eventRate.consume(dataProviderId);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw appError(ErrorCode.RATE_LIMITED, `too many data events for this provider; retry in ${retryAfter} s`, { retryAfter, rule: 'data_events' });
  }
}

function parseEvent(rawBody: string): unknown {
  const parsed = parseJsonInput(rawBody, 'body');
  if ('error' in parsed) throw badInput(parsed.error, 'body');
  return parsed.value;
}

/** Ingests one event and counts it, accepted or rejected with the reason of the step that refused it. */
export async function ingestDataEvent(ctx: SubgraphContext, runtime: DataEventIntake, signed: SignedEvent) {
  const step: { reason: DataEventRejection } = { reason: 'too_large' };
  try {
    const answer = await ingest(ctx, runtime, signed, step);
    if (answer.replayed) recordDataEventReplay('same_body');
    else recordDataEvent(null);
    return answer;
  } catch (error) {
    // A refusal is an error value of the step that ran; anything else is ours, except a failed write.
    recordDataEvent(step.reason === 'storage' || error instanceof GraphQLError ? step.reason : 'internal');
    throw error;
  }
}

async function ingest(ctx: SubgraphContext, runtime: DataEventIntake, signed: SignedEvent, step: { reason: DataEventRejection }) {
  if (Buffer.byteLength(signed.rawBody, 'utf8') > MAX_EVENT_BYTES) {
    throw appError(ErrorCode.PAYLOAD_TOO_LARGE, `a data event body may be at most ${MAX_EVENT_BYTES / 1024} KB`);
  }
  step.reason = 'not_found';
  const provider = await runtime.dataProviders.get(signed.dataProviderId);
  if (!provider) throw forbidden('unknown or removed data provider');
  step.reason = 'signature';
  verifyProviderSignature(provider.secret, signed.rawBody, signed.signature);
  step.reason = 'rate_limited';
  await countAgainstRate(runtime, provider.id);
  step.reason = 'invalid_json';
  const payload = parseEvent(signed.rawBody);
  step.reason = 'schema';
  if (!provider.validate(payload)) {
    const [error] = provider.validate.errors ?? [];
    throw badInput(`the event does not match the provider's schema: ${error ? describeSchemaError(error, '') : 'invalid'}`, 'body');
  }

  const receivedAt = new Date();
  const event = {
    id: newId(),
    siteId: provider.siteId,
    dataProviderId: provider.id,
    payload,
    receivedAt,
    expiresAt: provider.ttl === null ? null : new Date(receivedAt.getTime() + provider.ttl * 1000),
    digest: createHash('sha256').update(signed.rawBody).digest('hex'),
  };
  step.reason = 'storage';
  const firstEventId = await runtime.eventWriter.write(event);
  step.reason = 'internal';
  if (firstEventId !== event.id) return { success: true, eventId: firstEventId, rulesFired: 0, replayed: true };

  let rulesFired = 0;
  const evaluation = (async () => {
    const met = rulesMetBy(await runtime.rules.of(provider.siteId, provider.id), payload);
    rulesFired = met.length;
    await runRules(ctx.supergraph, ctx.logger, provider.siteId, met, payload);
  })().catch((error: Error) => {
    ctx.logger.error({ err: error.message, dataProviderId: provider.id }, 'could not evaluate automation rules for a data event');
  });
  // The answer waits for the rules' overlays (so they are out when the provider hears 201), but not
  // for long: the event is stored, and a slow overlays service must not hold the provider up.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([evaluation, new Promise((resolve) => (timer = setTimeout(resolve, runtime.ruleWaitMs)))]);
  clearTimeout(timer);
  return { success: true, eventId: event.id, rulesFired, replayed: false };
}

/** One accepted event as stored. */
export interface DataEventRow {
  id: string;
  siteId: string;
  dataProviderId: string;
  payload: unknown;
  receivedAt: Date;
  expiresAt: Date | null;
  /** sha256 of the exact body, hex: what a replay has in common with the first. */
  digest: string;
}

/** For each row, the ID of the event its body is stored as: its own, or the first's when it is a replay. */
type StoreRows = (rows: DataEventRow[]) => Promise<string[]>;

/** A row's provider and body: rows with the same key are one event and its replays. */
const replayKey = (row: DataEventRow) => `${row.dataProviderId}\n${row.digest}`;

/**
 * Writes the rows with prepared statements in one transaction on the plain driver, stored exactly as
 * Prisma stores them (the listing reads them back through Prisma): on SQLite, dates as Prisma's
 * SQLite adapter writes them (ISO 8601 with +00:00) and JSON as text; on PostgreSQL, one
 * statement over arrays, the UTC wall time in timestamp(3) and the payload as jsonb. Each row first claims
 * its body's digest (a new one, or one older than the replay window); a row whose claim fails is a replay
 * and is not stored. Without the plain driver (in-memory SQLite), Prisma in one transaction.
 */
function rowStore(database: Database): StoreRows {
  const plain = database.plain;
  if (!plain) return prismaStore(database.prisma);
  if (plain.provider === 'sqlite') {
    const claim = plain.connection.prepare(
      'INSERT INTO "DataEventDigest" ("dataProviderId", "digest", "eventId", "firstSeenAt") VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT ("dataProviderId", "digest") DO UPDATE SET "eventId" = excluded."eventId", "firstSeenAt" = excluded."firstSeenAt" ' +
        'WHERE "DataEventDigest"."firstSeenAt" < ? RETURNING "eventId"',
    );
    const firstOf = plain.connection.prepare('SELECT "eventId" FROM "DataEventDigest" WHERE "dataProviderId" = ? AND "digest" = ?');
    const insert = plain.connection.prepare(
      'INSERT INTO "DataEvent" ("id", "siteId", "dataProviderId", "payload", "receivedAt", "expiresAt") VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insertAll = plain.connection.transaction((rows: DataEventRow[]) =>
      rows.map((row) => {
        const windowStart = sqliteDate(new Date(row.receivedAt.getTime() - REPLAY_WINDOW_MS));
        if (!claim.get(row.dataProviderId, row.digest, row.id, sqliteDate(row.receivedAt), windowStart)) {
          return (firstOf.get(row.dataProviderId, row.digest) as { eventId: string }).eventId;
        }
        insert.run(row.id, row.siteId, row.dataProviderId, JSON.stringify(row.payload), sqliteDate(row.receivedAt), row.expiresAt && sqliteDate(row.expiresAt));
        return row.id;
      }),
    );
    return async (rows) => {
      // The connection never waits for a lock (it would stop the event loop, and with it the Prisma
      // transaction holding the lock): a batch that finds the database locked is retried shortly.
      const ids = await whenUnlocked(() => insertAll.immediate(rows));
      plain.counted(rows.length * 2 + 2);
      return ids;
    };
  }
  const { pool } = plain;
  return async (rows) => {
    // One claim per body in a statement (ON CONFLICT may touch a row once): later copies in the batch are its replays.
    const firsts = new Map<string, DataEventRow>();
    for (const row of rows) if (!firsts.has(replayKey(row))) firsts.set(replayKey(row), row);
    const unique = [...firsts.values()];
    const { rows: stored } = await pool.query<{ id: string }>({
      name: 'stagegraph-insert-data-events-once',
      text:
        'WITH event AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) ' +
        '  AS event(id, site, provider, payload, received, expires, digest)), ' +
        'claimed AS (INSERT INTO "DataEventDigest" ("dataProviderId", "digest", "eventId", "firstSeenAt") ' +
        '  SELECT provider, digest, id, received::timestamp(3) FROM event ' +
        '  ON CONFLICT ("dataProviderId", "digest") DO UPDATE SET "eventId" = EXCLUDED."eventId", "firstSeenAt" = EXCLUDED."firstSeenAt" ' +
        `  WHERE "DataEventDigest"."firstSeenAt" < EXCLUDED."firstSeenAt" - interval '${REPLAY_WINDOW_MS} milliseconds' RETURNING "eventId") ` +
        'INSERT INTO "DataEvent" ("id", "siteId", "dataProviderId", "payload", "receivedAt", "expiresAt") ' +
        'SELECT id, site, provider, payload::jsonb, received::timestamp(3), expires::timestamp(3) FROM event WHERE id IN (SELECT "eventId" FROM claimed) ' +
        'RETURNING id',
      values: [
        unique.map((row) => row.id),
        unique.map((row) => row.siteId),
        unique.map((row) => row.dataProviderId),
        unique.map((row) => JSON.stringify(row.payload)),
        unique.map((row) => row.receivedAt.toISOString()),
        unique.map((row) => row.expiresAt?.toISOString() ?? null),
        unique.map((row) => row.digest),
      ],
    });
    plain.counted(1);
    const storedIds = new Set(stored.map((row) => row.id));
    const firstIds = new Map(unique.filter((row) => storedIds.has(row.id)).map((row) => [replayKey(row), row.id]));
    const replays = unique.filter((row) => !storedIds.has(row.id));
    if (replays.length > 0) {
      // Replays are rare: the events their bodies were first stored as, in a second statement.
      const { rows: found } = await pool.query<{ dataProviderId: string; digest: string; eventId: string }>(
        'SELECT "dataProviderId", "digest", "eventId" FROM "DataEventDigest" WHERE ("dataProviderId", "digest") IN (SELECT * FROM unnest($1::text[], $2::text[]))',
        [replays.map((row) => row.dataProviderId), replays.map((row) => row.digest)],
      );
      plain.counted(1);
      for (const row of found) firstIds.set(`${row.dataProviderId}\n${row.digest}`, row.eventId);
    }
    return rows.map((row) => firstIds.get(replayKey(row)) as string);
  };
}

/** The same as rowStore's, through Prisma: for an in-memory SQLite database, which has no plain driver. */
function prismaStore(prisma: Db): StoreRows {
  return (rows) =>
    prisma.$transaction(async (tx) => {
      const ids: string[] = [];
      for (const { digest, ...row } of rows) {
        const key = { dataProviderId_digest: { dataProviderId: row.dataProviderId, digest } };
        const first = await tx.dataEventDigest.findUnique({ where: key });
        if (first && first.firstSeenAt.getTime() >= row.receivedAt.getTime() - REPLAY_WINDOW_MS) {
          ids.push(first.eventId);
          continue;
        }
        const claim = { eventId: row.id, firstSeenAt: row.receivedAt };
        await tx.dataEventDigest.upsert({ where: key, create: { dataProviderId: row.dataProviderId, digest, ...claim }, update: claim });
        await tx.dataEvent.create({ data: { ...row, payload: row.payload as Prisma.InputJsonValue } });
        ids.push(row.id);
      }
      return ids;
    });
}

/**
 * Stores data events in batches: the events accepted in one turn of the event loop, or while the
 * previous batch is being written, share one transaction and so one flush to disk. Each caller is
 * answered only once its own event is committed, so "durable before 201" holds at a fraction of the
 * cost of a commit per event.
 */
export class DataEventWriter {
  private readonly batches: MicroBatcher<DataEventRow, string>;

  constructor(database: Database, maxBatch = 500) {
    this.batches = new MicroBatcher(rowStore(database), maxBatch);
  }

  /** Stores the event, once: the ID its body is stored as (its own, or the first's when it is a replay). */
  write(row: DataEventRow): Promise<string> {
    return this.batches.submit(row);
  }
}

/** Events of a provider still kept, newest first. */
export function listDataEvents(db: Db, siteId: string, dataProviderId: string, limit: number, offset: number) {
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw badInput('limit must be between 1 and 500', 'limit');
  if (!Number.isInteger(offset) || offset < 0) throw badInput('offset must not be negative', 'offset');
  return db.dataEvent.findMany({
    where: { siteId, dataProviderId, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: limit,
    skip: offset,
  });
}

/** Deletes the events whose ttl has passed (readers already skip them) and the bodies older than the replay window. */
export async function removeExpiredEvents(db: Db): Promise<number> {
  const now = Date.now();
  const { count } = await db.dataEvent.deleteMany({ where: { expiresAt: { lt: new Date(now) } } });
  await db.dataEventDigest.deleteMany({ where: { firstSeenAt: { lt: new Date(now - REPLAY_WINDOW_MS) } } });
  return count;
}
