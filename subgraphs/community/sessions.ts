/**
 * Signed-in sessions: sign-in with e-mail and password, a short-lived JWT (shared/auth/credentials.ts,
 * bound to the site) plus a rotating refresh token, sign-out, and login intents (a one-time handover of
 * a session). Refresh tokens rotate: each is spent by one refresh; presenting a spent one again ends
 * its whole family, since only a thief or a replay would.
 */
import { hashPassword, signSessionToken, verifyPassword, verifySessionToken } from '../../shared/auth/credentials';
import type { Config } from '../../shared/config';
import type { Db, Prisma } from '../../shared/db/client';
import type { Account } from '../../shared/db/generated/sqlite';
import { conflict, notFound, unauthenticated } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { rolesOf } from './accounts';
import type { RateLimits } from './rateLimits';
import { hashToken, newToken } from './secrets';
import { checkSameSite, checkText } from './validation';

type Tx = Prisma.TransactionClient;

/** What sign-in answers name as `service`. */
export const SERVICE = 'stagegraph';
const LOGIN_INTENT_TTL_MS = 5 * 60_000;

export interface Session {
  jwt: string;
  refreshToken: string;
  service: string;
  expiresIn: number;
  accountId: string;
}

/** A new session of the account: a JWT with its current roles and the first (or next) refresh token of a family. */
export async function issueSession(tx: Tx, config: Config, account: Account, options: { familyId?: string; service?: string } = {}): Promise<Session> {
  const refreshToken = newToken('sgr');
  await tx.refreshToken.create({
    data: {
      id: newId(),
      siteId: account.siteId,
      accountId: account.id,
      familyId: options.familyId ?? newId(),
      tokenHash: hashToken(refreshToken),
      expiresAt: new Date(Date.now() + config.refreshTokenTtlSeconds * 1000),
    },
  });
  const jwt = signSessionToken({ sub: account.id, site: account.siteId, roles: rolesOf(account) }, config.jwtSecret, config.jwtTtlSeconds);
  return { jwt, refreshToken, service: options.service ?? SERVICE, expiresIn: config.jwtTtlSeconds, accountId: account.id };
}

let burnHash: Promise<string> | null = null;

/**
 * Checks a password against a stored hash; without one, spends the same time on a throwaway hash so
 * the answer does not tell whether the e-mail has an account.
 */
export async function passwordMatches(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) {
    await verifyPassword(password, await (burnHash ??= hashPassword('no account has this password')));
    return false;
  }
  return verifyPassword(password, stored);
}

/** E-mail and password to a session; failures are 401 alike and rate-limited per e-mail. */
export async function signIn(
  db: Db,
  config: Config,
  limits: RateLimits,
  siteId: string,
  input: { email: string; password: string; siteId?: string | null },
): Promise<Session> {
  checkSameSite(input.siteId, siteId);
  const email = input.email.trim().toLowerCase();
  const limitKey = `${siteId}:${email}`;
  await limits.check('signInFailures', limitKey);
  const account = await db.account.findUnique({ where: { siteId_email: { siteId, email } } });
  if (!account || !(await passwordMatches(input.password, account.passwordHash))) {
    await limits.consume('signInFailures', limitKey);
    throw unauthenticated('wrong email or password');
  }
  await limits.reset('signInFailures', limitKey);
  return db.$transaction(async (tx) => {
    const signedIn = await tx.account.update({ where: { id: account.id }, data: { lastLoginAt: new Date() } });
    return issueSession(tx, config, signedIn);
  });
}

async function endFamily(db: Db | Tx, familyId: string): Promise<void> {
  await db.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: new Date() } });
}

const REUSED = Symbol('reused');

/** Spends a refresh token for a new session of the same family; a spent, revoked or expired token is 401. */
export async function refreshSession(db: Db, config: Config, siteId: string, refreshToken: string): Promise<Session> {
  const row = await db.refreshToken.findUnique({ where: { tokenHash: hashToken(refreshToken) } });
  if (!row || row.siteId !== siteId) throw unauthenticated('invalid refresh token');
  if (row.revokedAt) throw unauthenticated('this session has ended; sign in again');
  if (row.usedAt) {
    await endFamily(db, row.familyId);
    throw unauthenticated('this refresh token was already used; the session has ended, sign in again');
  }
  if (row.expiresAt.getTime() <= Date.now()) throw unauthenticated('refresh token expired; sign in again');
  const session = await db.$transaction(async (tx) => {
    // Spent at most once even when two refreshes race: the loser is treated as a replay.
    const spent = await tx.refreshToken.updateMany({ where: { id: row.id, usedAt: null, revokedAt: null }, data: { usedAt: new Date() } });
    if (spent.count !== 1) return REUSED;
    const account = await tx.account.findFirst({ where: { id: row.accountId, siteId } });
    if (!account) throw unauthenticated('the account no longer exists');
    return issueSession(tx, config, account, { familyId: row.familyId });
  });
  if (session === REUSED) {
    await endFamily(db, row.familyId);
    throw unauthenticated('this refresh token was already used; the session has ended, sign in again');
  }
  return session;
}

/** Ends the session the refresh token belongs to (its whole family). */
export async function signOut(db: Db, siteId: string, refreshToken: string): Promise<void> {
  const row = await db.refreshToken.findUnique({ where: { tokenHash: hashToken(refreshToken) } });
  if (!row || row.siteId !== siteId) throw unauthenticated('invalid refresh token');
  await endFamily(db, row.familyId);
}

// ------------------------------------------------------------------ login intents

export interface LoginIntentInput {
  jwt: string;
  name: string;
  provider: string;
  service: string;
  thirdPartyAccountId: string;
}

/**
 * A one-time token that hands the JWT's session to whoever presents it (another device, an embedded
 * player). The third-party identity named is remembered on the account.
 */
export async function createLoginIntent(db: Db, config: Config, siteId: string, input: LoginIntentInput) {
  const claims = verifySessionToken(input.jwt, config.jwtSecret);
  if (!claims || claims.site !== siteId) throw unauthenticated('jwt is not a valid token of this site');
  const account = await db.account.findFirst({ where: { id: claims.sub, siteId } });
  if (!account) throw unauthenticated('jwt: the account no longer exists');
  const name = checkText(input.name, 'name');
  const provider = checkText(input.provider, 'provider', 100);
  const service = checkText(input.service, 'service', 100);
  const thirdPartyAccountId = checkText(input.thirdPartyAccountId, 'thirdPartyAccountId');
  const token = newToken('sgl');
  const expiresAt = new Date(Date.now() + LOGIN_INTENT_TTL_MS);
  const providers = Array.isArray(account.thirdPartyAuthProviders) ? (account.thirdPartyAuthProviders as { accountId: string; provider: string }[]) : [];
  const known = providers.some((entry) => entry.provider === provider && entry.accountId === thirdPartyAccountId);
  await db.$transaction(async (tx) => {
    await tx.loginIntent.create({
      data: { id: newId(), siteId, accountId: account.id, tokenHash: hashToken(token), service, provider, name, thirdPartyAccountId, expiresAt },
    });
    if (!known) {
      await tx.account.update({ where: { id: account.id }, data: { thirdPartyAuthProviders: [...providers, { accountId: thirdPartyAccountId, provider }] } });
    }
  });
  return { authenticated: true, jwt: input.jwt, service, siteId, token, name, thirdPartyAccountId, expiresAt: expiresAt.getTime() };
}

/** Turns a login intent into a session, once, before it expires. */
export async function consumeLoginIntent(db: Db, config: Config, siteId: string, token: string): Promise<Session> {
  const intent = await db.loginIntent.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!intent || intent.siteId !== siteId) throw notFound('login intent');
  return db.$transaction(async (tx) => {
    const spent = await tx.loginIntent.updateMany({
      where: { id: intent.id, consumedAt: null, expiresAt: { gt: new Date() } },
      data: { consumedAt: new Date() },
    });
    if (spent.count !== 1) {
      if (intent.consumedAt || intent.expiresAt.getTime() > Date.now()) throw conflict('this login intent was already used');
      throw unauthenticated('this login intent has expired');
    }
    const account = await tx.account.findFirst({ where: { id: intent.accountId, siteId } });
    if (!account) throw unauthenticated('the account no longer exists');
    return issueSession(tx, config, account, { service: intent.service });
  });
}
