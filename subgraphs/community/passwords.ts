/**
 * Passwords: change (knowing the old one), and reset by e-mail for site accounts and global accounts.
 * A reset link carries a random single-use token, stored hashed, that expires
 * (PASSWORD_RESET_TTL_SECONDS). The request answers the same whether or not the e-mail has an account.
 */
import { hashPassword } from '../../shared/auth/credentials';
import type { Config } from '../../shared/config';
import type { Db } from '../../shared/db/client';
import { badInput, unauthenticated } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { findAccount, storePasswordHash } from './accounts';
import type { Mailer } from './mail';
import type { RateLimits } from './rateLimits';
import { passwordMatches } from './sessions';
import { hashToken, newToken } from './secrets';
import { checkEmail, checkHttpUrl, checkPassword } from './validation';

export interface ResetRequest {
  email: string;
  baseUrl: string;
  /** Reset the global account of that e-mail (it must have an account on this site). */
  globalAccount?: boolean | null;
}

const RESET_SENT = { success: true, message: 'if an account has this email, a reset link was sent to it' };

function resetMail(config: Config, siteId: string | null, to: string, link: string) {
  const minutes = Math.round(config.passwordResetTtlSeconds / 60);
  return {
    siteId,
    kind: 'password-reset' as const,
    to,
    from: config.mailFrom,
    subject: 'Reset your password',
    text: `Someone asked to reset the password of this account. To choose a new one, open:\n\n${link}\n\nThe link works once, for ${minutes} minutes. If you did not ask, ignore this e-mail.`,
    html: `<p>Someone asked to reset the password of this account. To choose a new one, open this link:</p><p><a href="${link}">Reset my password</a></p><p>The link works once, for ${minutes} minutes. If you did not ask, ignore this e-mail.</p>`,
  };
}

/** E-mails a single-use reset link to the account (or global account) of the e-mail, if there is one; rate-limited per address. */
export async function requestPasswordReset(db: Db, config: Config, mailer: Mailer, limits: RateLimits, siteId: string, request: ResetRequest) {
  const email = checkEmail(request.email);
  const base = new URL(checkHttpUrl(request.baseUrl, 'baseUrl'));
  await limits.consume('passwordResets', `${siteId}:${request.globalAccount ? 'global:' : ''}${email}`);
  let target: { accountId: string } | { globalAccountId: string } | null = null;
  let to = email;
  // A global account's mail belongs to no single site (docs/design.md): it is stored without one.
  let mailSite: string | null = siteId;
  if (request.globalAccount) {
    const global = await db.globalAccount.findUnique({ where: { email } });
    const onThisSite = global && (await db.account.findFirst({ where: { siteId, globalAccountId: global.id }, select: { id: true } }));
    if (global && onThisSite) target = { globalAccountId: global.id };
    mailSite = null;
  } else {
    const account = await db.account.findUnique({ where: { siteId_email: { siteId, email } }, select: { id: true, globalAccountId: true } });
    if (account) target = { accountId: account.id };
    // A linked account's password is its global account's (every site's): the link goes to the global
    // account's address, which no single site's admin can change.
    const global = account?.globalAccountId ? await db.globalAccount.findUnique({ where: { id: account.globalAccountId }, select: { email: true } }) : null;
    if (global) {
      to = global.email;
      mailSite = null;
    }
  }
  if (!target) return RESET_SENT;
  const token = newToken('sgp');
  await db.passwordReset.create({
    data: { id: newId(), siteId, ...target, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + config.passwordResetTtlSeconds * 1000) },
  });
  base.searchParams.set('token', token);
  await mailer.send(db, config, resetMail(config, mailSite, to, base.toString()));
  return RESET_SENT;
}

/** Sets the new password once per token, and spends every other open reset link of the same account. */
export async function resetPassword(db: Db, siteId: string, input: { token: string; password: string; globalAccount?: boolean | null }) {
  const reset = await db.passwordReset.findUnique({ where: { tokenHash: hashToken(input.token) } });
  const usable =
    reset &&
    reset.siteId === siteId &&
    Boolean(reset.globalAccountId) === Boolean(input.globalAccount) &&
    !reset.usedAt &&
    reset.expiresAt.getTime() > Date.now();
  if (!reset || !usable) throw badInput('token is invalid, already used or expired', 'token');
  const passwordHash = await hashPassword(checkPassword(input.password));
  await db.$transaction(async (tx) => {
    const spent = await tx.passwordReset.updateMany({ where: { id: reset.id, usedAt: null }, data: { usedAt: new Date() } });
    if (spent.count !== 1) throw badInput('token is invalid, already used or expired', 'token');
    if (reset.accountId) {
      const account = await findAccount(tx, siteId, reset.accountId);
      await storePasswordHash(tx, account, passwordHash);
      await tx.passwordReset.updateMany({ where: { accountId: account.id, usedAt: null }, data: { usedAt: new Date() } });
    } else if (reset.globalAccountId) {
      await storePasswordHash(tx, { id: '', globalAccountId: reset.globalAccountId }, passwordHash);
      await tx.passwordReset.updateMany({ where: { globalAccountId: reset.globalAccountId, usedAt: null }, data: { usedAt: new Date() } });
    }
  });
  return { success: true, message: 'password changed; sign in with the new password' };
}

/** The signed-in account's new password, given the old one; every session is signed out. */
export async function changePassword(db: Db, limits: RateLimits, siteId: string, accountId: string, input: { oldPassword: string; password: string }) {
  const account = await findAccount(db, siteId, accountId);
  const limitKey = `${siteId}:${account.email}`;
  if (!(await passwordMatches(input.oldPassword, account.passwordHash))) {
    await limits.consume('signInFailures', limitKey);
    throw unauthenticated('oldPassword is wrong');
  }
  const passwordHash = await hashPassword(checkPassword(input.password));
  await db.$transaction((tx) => storePasswordHash(tx, account, passwordHash));
  return { success: true, message: 'password changed; every session was signed out, sign in again' };
}
