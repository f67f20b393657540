/**
 * TV codes (the device flow): a TV (no keyboard) asks for a short code and shows it, and keeps the
 * device token it got with it; a signed-in viewer activates the code on another device; the TV then
 * claims its session with the device token, once. Someone who only saw the code on the screen cannot
 * claim the session. Codes are six readable characters, unique among a site's live codes, and expire
 * after ten minutes; the device token is stored hashed.
 */
import type { Config } from '../../shared/config';
import type { Db } from '../../shared/db/client';
import { appError, conflict, ErrorCode, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { RateLimits } from './rateLimits';
import { hashToken, newToken, readableCodes } from './secrets';
import { issueSession, type Session } from './sessions';
import { checkText } from './validation';

const TV_CODE_LENGTH = 6;
const TV_CODE_TTL_MS = 10 * 60_000;
const ATTEMPTS = 5;

/** What a viewer types: case, spaces and dashes do not matter. */
const normalizeCode = (code: string) => code.replace(/[\s-]/g, '').toUpperCase();

/** A new live code for a device, with the device token the TV keeps; rate-limited per device. */
export async function createTvCode(
  db: Db,
  limits: RateLimits,
  siteId: string,
  deviceIdInput: string,
): Promise<{ code: string; expiresAt: number; deviceToken: string }> {
  const deviceId = checkText(deviceIdInput, 'deviceId', 200);
  await limits.consume('tvCodes', `${siteId}:${deviceId}`);
  const now = new Date();
  // Expired codes free their value for reuse.
  await db.tvCode.deleteMany({ where: { siteId, expiresAt: { lt: now } } });
  const expiresAt = new Date(now.getTime() + TV_CODE_TTL_MS);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const [code] = readableCodes(1, TV_CODE_LENGTH);
    const deviceToken = newToken('sgd');
    const created = await db.tvCode
      .create({ data: { id: newId(), siteId, code, deviceId, deviceTokenHash: hashToken(deviceToken), expiresAt, createdAt: now } })
      .then(
        () => true,
        (error: { code?: string }) => {
          // Another live code has this value: draw again.
          if (error.code === 'P2002') return false;
          throw error;
        },
      );
    if (created) return { code, expiresAt: expiresAt.getTime(), deviceToken };
  }
  throw appError(ErrorCode.SERVICE_UNAVAILABLE, 'could not draw a free TV code; try again');
}

/** The signed-in viewer activates a live code for their account. */
export async function activateTvCode(db: Db, siteId: string, accountId: string, codeInput: string) {
  const code = normalizeCode(codeInput);
  const activated = await db.tvCode.updateMany({
    where: { siteId, code, activatedAt: null, expiresAt: { gt: new Date() } },
    data: { accountId, activatedAt: new Date() },
  });
  if (activated.count !== 1) {
    const existing = await db.tvCode.findUnique({ where: { siteId_code: { siteId, code } } });
    if (existing?.activatedAt) throw conflict('this TV code was already activated');
    throw notFound('TV code (or it has expired)');
  }
  return { success: true, message: 'TV code activated' };
}

/** The TV asks for its session with its device token: not yet (until activated), then once. */
export async function claimTvSession(db: Db, config: Config, siteId: string, deviceToken: string): Promise<{ activated: boolean; session: Session | null }> {
  const tvCode = await db.tvCode.findUnique({ where: { deviceTokenHash: hashToken(deviceToken) } });
  if (!tvCode || tvCode.siteId !== siteId) throw notFound('TV code');
  if (!tvCode.activatedAt || !tvCode.accountId) {
    if (tvCode.expiresAt.getTime() <= Date.now()) throw notFound('TV code (it has expired)');
    return { activated: false, session: null };
  }
  const accountId = tvCode.accountId;
  const session = await db.$transaction(async (tx) => {
    const claimed = await tx.tvCode.updateMany({ where: { id: tvCode.id, claimedAt: null }, data: { claimedAt: new Date() } });
    if (claimed.count !== 1) throw conflict('this TV code was already used to sign in');
    const account = await tx.account.findFirst({ where: { id: accountId, siteId } });
    if (!account) throw notFound('the account of this TV code');
    return issueSession(tx, config, account);
  });
  return { activated: true, session };
}
