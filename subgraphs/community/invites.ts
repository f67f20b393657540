/**
 * Invites (magic links). The link is the site page `redirectUri` with an `inviteToken` parameter: the
 * site's page hands the token to consumeInvite, which gives the opener the target SKUs (as
 * Subscriptions with grantedMethod invite, so the content check honours them) and the target roles.
 * Someone not signed in gets a guest account and a session. The seed's States table: revoking before
 * consumption blocks the link; revoking after consumption also removes the subscriptions it gave.
 * The token is shown once (in the creation answer) and stored hashed.
 */
import type { AccountRole, Identity } from '../../shared/auth/identity';
import type { Config } from '../../shared/config';
import type { Db, Prisma } from '../../shared/db/client';
import type { Invite } from '../../shared/db/generated/sqlite';
import { badInput, conflict, forbidden, notFound, unauthenticated } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { stringList } from '../../shared/json';
import { checkGrantable, checkRoles, createGuestAccount, endSessions, rolesOf } from './accounts';
import { grantSubscription } from './entitlements';
import { hashToken, newToken } from './secrets';
import { issueSession, type Session } from './sessions';
import { checkHttpUrl, checkSameSite, checkSku, checkTags } from './validation';

export type InviteWithToken = Invite & { token?: string };

type RoleInput = { pageId?: readonly string[] | null; scope: string; write: boolean };

/** The roles an invite gives (a JSON column). */
export function targetRolesOf(invite: Pick<Invite, 'targetRoles'>): AccountRole[] {
  return Array.isArray(invite.targetRoles) ? (invite.targetRoles as unknown as AccountRole[]) : [];
}

async function checkTargetSkus(db: Db, siteId: string, skus: readonly string[]): Promise<string[]> {
  if (skus.length === 0) throw badInput('targetSkus must name at least one SKU', 'targetSkus');
  const wanted = [...new Set(skus.map((sku, index) => checkSku(sku, `targetSkus.${index}`)))];
  const found = await db.entitlement.findMany({ where: { siteId, sku: { in: wanted } }, select: { sku: true } });
  const known = new Set(found.map((row) => row.sku));
  const missing = wanted.find((sku) => !known.has(sku));
  if (missing) throw badInput(`targetSkus: no entitlement has the SKU ${missing}`, 'targetSkus');
  return wanted;
}

function checkTargetRoles(identity: Identity, roles: readonly RoleInput[] | null | undefined): AccountRole[] {
  const checked = checkRoles(roles ?? [], 'targetRoles');
  checkGrantable(identity, checked, 'targetRoles');
  return checked;
}

/** The link a site hands out: its page with the invite token. */
export function inviteUrlOf(redirectUri: string, token: string): string {
  const url = new URL(redirectUri);
  url.searchParams.set('inviteToken', token);
  return url.toString();
}

/** A magic-link invite for existing SKUs (and roles its creator holds); the token is answered once. */
export async function createInvite(
  db: Db,
  identity: Identity,
  siteId: string,
  input: { redirectUri: string; targetSkus: readonly string[]; targetRoles?: readonly RoleInput[] | null; tags?: string[] | null; siteId?: string | null },
): Promise<{ invite: InviteWithToken; inviteUrl: string }> {
  checkSameSite(input.siteId, siteId);
  const redirectUri = checkHttpUrl(input.redirectUri, 'redirectUri');
  const targetSkus = await checkTargetSkus(db, siteId, input.targetSkus);
  const targetRoles = checkTargetRoles(identity, input.targetRoles);
  const token = newToken('sgi');
  const now = new Date();
  const invite = await db.invite.create({
    data: {
      id: newId(),
      siteId,
      tokenHash: hashToken(token),
      redirectUri,
      targetSkus,
      targetRoles: targetRoles,
      tags: checkTags(input.tags),
      createdAt: now,
      updatedAt: now,
    },
  });
  return { invite: { ...invite, token }, inviteUrl: inviteUrlOf(redirectUri, token) };
}

/** An invite of the site, or NOT_FOUND. */
export async function findInvite(db: Db, siteId: string, id: string): Promise<Invite> {
  const invite = await db.invite.findFirst({ where: { id, siteId } });
  if (!invite) throw notFound(`invite ${id}`);
  return invite;
}

/** The site's invites, newest first, optionally by consumed and revoked. */
export function listInvites(db: Db, siteId: string, filter: { consumed?: boolean | null; revoked?: boolean | null }) {
  return db.invite.findMany({
    where: { siteId, ...(filter.consumed != null ? { consumed: filter.consumed } : {}), ...(filter.revoked != null ? { revoked: filter.revoked } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** Changes an invite's redirectUri, target roles or tags; a revoked invite does not change. */
export async function updateInvite(
  db: Db,
  identity: Identity,
  siteId: string,
  id: string,
  input: { redirectUri?: string | null; targetRoles?: readonly RoleInput[] | null; tags?: string[] | null; siteId?: string | null },
): Promise<Invite> {
  checkSameSite(input.siteId, siteId);
  const invite = await findInvite(db, siteId, id);
  if (invite.revoked) throw conflict('a revoked invite cannot change');
  const data: Prisma.InviteUpdateInput = { updatedAt: new Date() };
  if (input.redirectUri != null) data.redirectUri = checkHttpUrl(input.redirectUri, 'redirectUri');
  if (input.targetRoles != null) data.targetRoles = checkTargetRoles(identity, input.targetRoles);
  if (input.tags != null) data.tags = checkTags(input.tags);
  return db.invite.update({ where: { id: invite.id }, data });
}

/** Deletes the invite record; what a consumed invite gave stays (revoke takes it back). */
export async function deleteInvite(db: Db, siteId: string, id: string) {
  const invite = await findInvite(db, siteId, id);
  await db.invite.delete({ where: { id: invite.id } });
  return { success: true, message: `invite ${invite.id} deleted` };
}

/** The States table: blocks the link; after consumption also removes the subscriptions it gave. */
export async function revokeInvite(db: Db, siteId: string, id: string) {
  const invite = await findInvite(db, siteId, id);
  if (invite.revoked) return { success: true, message: 'invite was already revoked' };
  return db.$transaction(async (tx) => {
    const now = new Date();
    const revoked = await tx.invite.update({ where: { id: invite.id }, data: { revoked: true, revokedAt: now, updatedAt: now } });
    if (!revoked.consumed) return { success: true, message: 'invite revoked: its link no longer works' };
    const removed = await tx.subscription.deleteMany({ where: { siteId, grantedMethod: 'invite', grantedById: invite.id } });
    // A guest account exists only through the invite: its sessions end with it.
    if (revoked.guestAccount && revoked.consumedByAccountId) await endSessions(tx, [revoked.consumedByAccountId]);
    return { success: true, message: `invite revoked: ${removed.count} subscription(s) it gave were removed` };
  });
}

export interface ConsumedInvite {
  invite: Invite;
  redirectUri: string;
  accountId: string;
  session: Session | null;
}

/**
 * Opens the link, once: the signed-in account (or a new guest account) gets the target SKUs and
 * roles. An invite that grants roles needs a signed-in account: roles go to a known person.
 */
export async function consumeInvite(db: Db, config: Config, identity: Identity, token: string): Promise<ConsumedInvite> {
  const invite = await db.invite.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!invite || (identity.siteId !== null && invite.siteId !== identity.siteId)) throw notFound('invite');
  if (invite.revoked) throw forbidden('this invite was revoked');
  if (invite.consumed) throw conflict('this invite was already used');
  const targetRoles = targetRolesOf(invite);
  if (targetRoles.length > 0 && !identity.account) throw unauthenticated('sign in to accept an invite that grants roles');
  const siteId = invite.siteId;
  return db.$transaction(async (tx) => {
    const signedIn = identity.account ? await tx.account.findFirst({ where: { id: identity.account.id, siteId } }) : null;
    if (identity.account && !signedIn) throw unauthenticated('the signed-in account no longer exists');
    const account = signedIn ?? (await createGuestAccount(tx, siteId, invite.id));
    const now = new Date();
    const spent = await tx.invite.updateMany({
      where: { id: invite.id, consumed: false, revoked: false },
      data: { consumed: true, consumedAt: now, consumedByAccountId: account.id, guestAccount: !signedIn, updatedAt: now },
    });
    if (spent.count !== 1) throw conflict('this invite was already used');
    const entitlements = await tx.entitlement.findMany({ where: { siteId, sku: { in: stringList(invite.targetSkus) } } });
    for (const entitlement of entitlements) {
      await grantSubscription(tx, { siteId, accountId: account.id, entitlement, grantedMethod: 'invite', grantedById: invite.id });
    }
    let holder = account;
    if (targetRoles.length > 0) {
      const held = rolesOf(account);
      const added = targetRoles.filter((role) => !held.some((mine) => JSON.stringify(mine) === JSON.stringify(role)));
      holder = await tx.account.update({ where: { id: account.id }, data: { roles: [...held, ...added], updatedAt: now } });
    }
    const session = signedIn ? null : await issueSession(tx, config, holder);
    const consumed = await tx.invite.findUniqueOrThrow({ where: { id: invite.id } });
    return { invite: consumed, redirectUri: invite.redirectUri, accountId: account.id, session };
  });
}
