/**
 * Access codes: codes a site hands out so selected people get an entitlement (type subscription) or in
 * (type login) without paying. Each is redeemed once. Bulk creation writes up to 100,000 codes in one
 * transaction with one INSERT … SELECT over a JSON array (one bound parameter, not 800,000), and
 * checks uniqueness in the database: a code that already exists makes the batch start again.
 */
import { stringify } from 'csv-stringify/sync';
import type { Config } from '../../shared/config';
import type { Db } from '../../shared/db/client';
import type { DbProvider } from '../../shared/db/providers';
import type { AccessCode } from '../../shared/db/generated/sqlite';
import { appError, badInput, conflict, ErrorCode, notFound, unauthenticated } from '../../shared/errors';
import { newId, newIds } from '../../shared/ids';
import { loginCodeGuest } from './accounts';
import { grantEach } from './entitlements';
import { grantsOfSku } from './skus';
import type { RateLimits } from './rateLimits';
import { readableCodes } from './secrets';
import { issueSession, type Session } from './sessions';
import { checkSameSite, checkSku, checkText } from './validation';

export const BULK_MAX = 100_000;
const CODE_LENGTH = 12;
const ATTEMPTS = 3;

export type AccessCodeType = 'subscription' | 'login';

function checkCode(code: string): string {
  const trimmed = code.trim();
  if (!/^[\w-]{4,64}$/.test(trimmed)) throw badInput('accessCode must be 4-64 letters, digits, - or _', 'accessCode');
  return trimmed;
}

/** One access code chosen by the admin, for an existing SKU; a code the site has already is a conflict. */
export async function createAccessCode(
  db: Db,
  siteId: string,
  input: { accessCode: string; sku: string; type: AccessCodeType; siteId?: string | null },
): Promise<AccessCode> {
  checkSameSite(input.siteId, siteId);
  const accessCode = checkCode(input.accessCode);
  const sku = checkSku(input.sku);
  await grantsOfSku(db, siteId, sku);
  if (await db.accessCode.findUnique({ where: { siteId_accessCode: { siteId, accessCode } }, select: { id: true } })) {
    throw conflict(`the access code ${accessCode} already exists`);
  }
  const now = new Date();
  return db.accessCode.create({ data: { id: newId(), siteId, accessCode, sku, type: input.type, createdAt: now, updatedAt: now } });
}

/** An access code of the site, or NOT_FOUND. */
export async function findAccessCode(db: Db, siteId: string, id: string): Promise<AccessCode> {
  const code = await db.accessCode.findFirst({ where: { id, siteId } });
  if (!code) throw notFound(`access code ${id}`);
  return code;
}

/** Deletes an access code of the site. */
export async function deleteAccessCode(db: Db, siteId: string, id: string) {
  const code = await findAccessCode(db, siteId, id);
  await db.accessCode.delete({ where: { id: code.id } });
  return { success: true, message: `access code ${code.accessCode} deleted` };
}

/**
 * Redeems a code for the signed-in account, once: the first redemption wins, any later one is a
 * conflict. A subscription code grants its entitlement (grantedMethod accessCode).
 */
export async function consumeAccessCode(db: Db, limits: RateLimits, siteId: string, accountId: string, value: string) {
  const limitKey = `${siteId}:${accountId}`;
  await limits.check('accessCodeFailures', limitKey);
  const code = await db.accessCode.findUnique({ where: { siteId_accessCode: { siteId, accessCode: value.trim() } } });
  if (!code) {
    await limits.consume('accessCodeFailures', limitKey);
    throw notFound('access code');
  }
  if (code.type === 'login') throw badInput('this is a login code: sign in with it (POST /auth/v2/access-code, or signInWithAccessCode)', 'accessCode');
  await db.$transaction(async (tx) => {
    const spent = await tx.accessCode.updateMany({
      where: { id: code.id, consumedAt: null },
      data: { consumedAt: new Date(), consumedByAccountId: accountId, updatedAt: new Date() },
    });
    if (spent.count !== 1) throw conflict('this access code was already used');
    if (code.type === 'subscription') {
      // An entitlement's SKU grants it; a bundle's grants each of its entitlements.
      const { entitlements } = await grantsOfSku(tx, siteId, code.sku).catch(() => {
        throw notFound(`entitlement ${code.sku}`);
      });
      await grantEach(tx, entitlements, { siteId, accountId, grantedMethod: 'accessCode', grantedById: code.id });
    }
  });
  return { success: true, message: code.type === 'subscription' ? `access code redeemed: ${code.sku} granted` : 'access code redeemed' };
}

/**
 * Signs the holder of a login code in as the code's guest account. The first use spends the code and grants
 * its SKU to the guest, once (a conditional update of the code); every use signs into the same account, and
 * the content check's device limit then decides on how many devices it plays. Wrong codes are counted per
 * device, so a guesser is slowed without locking anyone else out.
 */
export async function signInWithAccessCode(db: Db, config: Config, limits: RateLimits, siteId: string, value: string, deviceId: string): Promise<Session> {
  const device = checkText(deviceId, 'deviceId', 128);
  const limitKey = `${siteId}:login:${device}`;
  await limits.check('accessCodeFailures', limitKey);
  const code = await db.accessCode.findUnique({ where: { siteId_accessCode: { siteId, accessCode: value.trim() } } });
  if (!code || code.type !== 'login') {
    await limits.consume('accessCodeFailures', limitKey);
    throw unauthenticated('no such login code');
  }
  const { account } = await loginCodeGuest(db, siteId, code.id);
  return db.$transaction(async (tx) => {
    const now = new Date();
    const spent = await tx.accessCode.updateMany({
      where: { id: code.id, consumedAt: null },
      data: { consumedAt: now, consumedByAccountId: account.id, updatedAt: now },
    });
    if (spent.count === 1) {
      const { entitlements } = await grantsOfSku(tx, siteId, code.sku);
      await grantEach(tx, entitlements, { siteId, accountId: account.id, grantedMethod: 'accessCode', grantedById: code.id });
    }
    const signedIn = await tx.account.update({ where: { id: account.id }, data: { lastLoginAt: now } });
    return issueSession(tx, config, signedIn);
  });
}

// ------------------------------------------------------------------ bulk

interface BulkRow {
  id: string;
  accessCode: string;
}

/** One statement inserting every row of a JSON array; rows whose code exists already are skipped. */
function bulkInsertSql(provider: DbProvider): string {
  const columns = '"id", "siteId", "accessCode", "sku", "type", "batchId", "createdAt", "updatedAt"';
  return provider === 'sqlite'
    ? // SQLite needs a WHERE before ON CONFLICT in INSERT … SELECT to parse it.
      `INSERT INTO "AccessCode" (${columns}) SELECT json_extract(value, '$[0]'), ?, json_extract(value, '$[1]'), ?, 'subscription', ?, ?, ? FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`
    : `INSERT INTO "AccessCode" (${columns}) SELECT row->>0, $1, row->>1, $2, 'subscription', $3, $4, $5 FROM json_array_elements($6::json) AS row ON CONFLICT DO NOTHING`;
}

export interface AccessCodeBatch {
  batchId: string;
  sku: string;
  siteId: string;
  created: Date;
  rows: BulkRow[];
}

/** Thrown inside the transaction to undo a batch that met an existing code. */
class CodeTaken extends Error {}

/** `qty` new subscription codes of a SKU, all unique on the site, written in one transaction. */
export async function createAccessCodes(db: Db, provider: DbProvider, siteId: string, skuInput: string, qty: number): Promise<AccessCodeBatch> {
  if (!Number.isInteger(qty) || qty < 1 || qty > BULK_MAX) throw badInput(`qty must be a whole number from 1 to ${BULK_MAX}`, 'qty');
  const sku = checkSku(skuInput);
  await grantsOfSku(db, siteId, sku);
  const sql = bulkInsertSql(provider);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const codes = [...new Set(readableCodes(qty + 16, CODE_LENGTH))].slice(0, qty);
    if (codes.length < qty) continue;
    const ids = newIds(qty);
    const rows = codes.map((accessCode, index) => ({ id: ids[index], accessCode }));
    const batchId = newId();
    const now = new Date();
    const payload = JSON.stringify(rows.map((row) => [row.id, row.accessCode]));
    const written = await db
      .$transaction(
        async (tx) => {
          const inserted = await tx.$executeRawUnsafe(sql, siteId, sku, batchId, now, now, payload);
          // A code the site already had was skipped: undo the batch and draw new codes.
          if (inserted !== qty) throw new CodeTaken();
          return true;
        },
        { timeout: 60_000, maxWait: 10_000 },
      )
      .catch((error: unknown) => {
        if (error instanceof CodeTaken) return false;
        throw error;
      });
    if (written) return { batchId, sku, siteId, created: now, rows };
  }
  throw appError(ErrorCode.CONFLICT, 'could not draw unique access codes; try again');
}

/** The batch in the seed's JSON shape. */
export function batchAsJson(batch: AccessCodeBatch): string {
  const created = batch.created.getTime();
  return JSON.stringify(
    batch.rows.map((row) => ({
      _id: row.id,
      accessCode: row.accessCode,
      siteId: batch.siteId,
      sku: batch.sku,
      type: 'subscription',
      created,
      modified: created,
    })),
  );
}

/** The batch as CSV: a header line, then one code per line. */
export function batchAsCsv(batch: AccessCodeBatch): string {
  const created = batch.created.toISOString();
  return stringify(
    batch.rows.map((row) => [row.id, row.accessCode, batch.sku, 'subscription', created]),
    { header: true, columns: ['_id', 'accessCode', 'sku', 'type', 'created'] },
  );
}

/** Rows of a batch as the GraphQL AccessCode type reads them. */
export function batchAsAccessCodes(batch: AccessCodeBatch): AccessCode[] {
  return batch.rows.map((row) => ({
    id: row.id,
    siteId: batch.siteId,
    accessCode: row.accessCode,
    sku: batch.sku,
    type: 'subscription',
    batchId: batch.batchId,
    consumedAt: null,
    consumedByAccountId: null,
    createdAt: batch.created,
    updatedAt: batch.created,
  }));
}
