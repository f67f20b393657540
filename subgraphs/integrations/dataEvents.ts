/**
 * Ingesting a data event, in the order that keeps partners safe and the path fast: size, provider,
 * signature over the exact body (constant time), the provider's rate, the provider's schema; then the
 * event is stored (durable before the answer) and the cached rules of the provider are evaluated.
 */
import { RateLimiterRes } from 'rate-limiter-flexible';
import { MicroBatcher } from '../../shared/db/batches';
import type { Database, Db } from '../../shared/db/client';
import { whenUnlocked } from '../../shared/db/sqlite';
import type { Prisma } from '../../shared/db/generated/sqlite';
import { GraphQLError } from 'graphql';
import { appError, badInput, ErrorCode, forbidden } from '../../shared/errors';
import { recordDataEvent, type DataEventRejection } from '../../shared/metrics';
import { parseJsonInput } from '../../shared/jsonInput';
import { newId } from '../../shared/ids';
import { describeSchemaError } from '../../shared/schemaErrors';
import type { SubgraphContext } from '../../shared/subgraph';
import { rulesMetBy, runRules } from './automationRules';
import type { IntegrationsRuntime } from './runtime';
import { verifyProviderSignature } from './secrets';

/** Largest data event body. */
export const MAX_EVENT_BYTES = 256 * 1024;
/** Longest an accepted event's answer waits for the actions of the rules it met. */
const RULE_WAIT_MS = 2000;

export interface SignedEvent {
  dataProviderId: string;
  signature: string | null | undefined;
  /** The exact body the provider signed. */
  rawBody: string;
}

async function countAgainstRate(runtime: IntegrationsRuntime, dataProviderId: string): Promise<void> {
  try {
    await runtime.eventRate.consume(dataProviderId);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw appError(ErrorCode.RATE_LIMITED, `too many data events for this provider; retry in ${retryAfter} s`, { retryAfter });
  }
}

function parseEvent(rawBody: string): unknown {
  const parsed = parseJsonInput(rawBody, 'body');
  if ('error' in parsed) throw badInput(parsed.error, 'body');
  return parsed.value;
}

/** Ingests one event and counts it, accepted or rejected with the reason of the step that refused it. */
export async function ingestDataEvent(ctx: SubgraphContext, runtime: IntegrationsRuntime, signed: SignedEvent) {
  const step: { reason: DataEventRejection } = { reason: 'too_large' };
  try {
    const answer = await ingest(ctx, runtime, signed, step);
    recordDataEvent(null);
    return answer;
  } catch (error) {
    // A refusal is an error value of the step that ran; anything else is ours, except a failed write.
    recordDataEvent(step.reason === 'storage' || error instanceof GraphQLError ? step.reason : 'internal');
    throw error;
  }
}

async function ingest(ctx: SubgraphContext, runtime: IntegrationsRuntime, signed: SignedEvent, step: { reason: DataEventRejection }) {
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
  };
  step.reason = 'storage';
  await runtime.eventWriter.write(event);
  step.reason = 'internal';

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
  await Promise.race([evaluation, new Promise((resolve) => (timer = setTimeout(resolve, RULE_WAIT_MS)))]);
  clearTimeout(timer);
  return { success: true, eventId: event.id, rulesFired };
}

/** One accepted event as stored. */
export interface DataEventRow {
  id: string;
  siteId: string;
  dataProviderId: string;
  payload: unknown;
  receivedAt: Date;
  expiresAt: Date | null;
}

type StoreRows = (rows: DataEventRow[]) => Promise<void>;


/**
 * Writes the rows with one prepared INSERT in one transaction on the plain driver, stored exactly as
 * Prisma stores them (the listing reads them back through Prisma): on SQLite, dates as Prisma's
 * SQLite adapter writes them (ISO 8601 with +00:00) and JSON as text; on PostgreSQL, one
 * statement over arrays, the UTC wall time in timestamp(3) and the payload as jsonb. Without the plain
 * driver (in-memory SQLite), Prisma's createMany.
 */
function rowStore(database: Database): StoreRows {
  const plain = database.plain;
  if (!plain) {
    return async (rows) => {
      await database.prisma.dataEvent.createMany({ data: rows.map((row) => ({ ...row, payload: row.payload as Prisma.InputJsonValue })) });
    };
  }
  if (plain.provider === 'sqlite') {
    const sqliteDate = (date: Date) => date.toISOString().replace('Z', '+00:00');
    const insert = plain.connection.prepare(
      'INSERT INTO "DataEvent" ("id", "siteId", "dataProviderId", "payload", "receivedAt", "expiresAt") VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insertAll = plain.connection.transaction((rows: DataEventRow[]) => {
      for (const row of rows) {
        insert.run(row.id, row.siteId, row.dataProviderId, JSON.stringify(row.payload), sqliteDate(row.receivedAt), row.expiresAt && sqliteDate(row.expiresAt));
      }
    });
    return async (rows) => {
      // The connection never waits for a lock (it would stop the event loop, and with it the Prisma
      // transaction holding the lock): a batch that finds the database locked is retried shortly.
      await whenUnlocked(() => insertAll.immediate(rows));
      plain.counted(rows.length + 2);
    };
  }
  const { pool } = plain;
  return async (rows) => {
    await pool.query({
      name: 'stagegraph-insert-data-events',
      text:
        'INSERT INTO "DataEvent" ("id", "siteId", "dataProviderId", "payload", "receivedAt", "expiresAt") ' +
        'SELECT id, site, provider, payload::jsonb, received::timestamp(3), expires::timestamp(3) ' +
        'FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS event(id, site, provider, payload, received, expires)',
      values: [
        rows.map((row) => row.id),
        rows.map((row) => row.siteId),
        rows.map((row) => row.dataProviderId),
        rows.map((row) => JSON.stringify(row.payload)),
        rows.map((row) => row.receivedAt.toISOString()),
        rows.map((row) => row.expiresAt?.toISOString() ?? null),
      ],
    });
    plain.counted(1);
  };
}

/**
 * Stores data events in batches: the events accepted in one turn of the event loop, or while the
 * previous batch is being written, share one transaction and so one flush to disk. Each caller is
 * answered only once its own event is committed, so "durable before 201" holds at a fraction of the
 * cost of a commit per event.
 */
export class DataEventWriter {
  private readonly batches: MicroBatcher<DataEventRow, undefined>;

  constructor(database: Database, maxBatch = 500) {
    const store = rowStore(database);
    this.batches = new MicroBatcher(async (rows) => {
      await store(rows);
      return rows.map(() => undefined);
    }, maxBatch);
  }

  async write(row: DataEventRow): Promise<void> {
    await this.batches.submit(row);
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

/** Deletes the events whose ttl has passed (readers already skip them). */
export async function removeExpiredEvents(db: Db): Promise<number> {
  const { count } = await db.dataEvent.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return count;
}
