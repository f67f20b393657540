/**
 * Accounts: sign-up, reads, listing with search / paging / sort, updates, roles and deletion. An
 * account linked to a global account shares that global account's password: every change of a
 * password goes through `storePasswordHash`, which keeps them equal.
 */
import { hashPassword } from '../../shared/auth/credentials';
import type { AccountRole, Identity } from '../../shared/auth/identity';
import type { Db, Prisma } from '../../shared/db/client';
import { containsText } from '../../shared/db/literalSearch';
import type { Account } from '../../shared/db/generated/sqlite';
import { badInput, conflict, forbidden, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { checkEmail, checkPassword, checkTags, checkText, normalizeName } from './validation';

type Tx = Prisma.TransactionClient;

export const ACCOUNT_NOT_FOUND = (id: string) => notFound(`account ${id}`);

/** The account's roles as stored (a JSON column). */
export function rolesOf(account: Pick<Account, 'roles'>): AccountRole[] {
  return Array.isArray(account.roles) ? (account.roles as unknown as AccountRole[]) : [];
}

/** An admin account holds at least one role. */
export function isAdminAccount(account: Pick<Account, 'roles'>): boolean {
  return rolesOf(account).length > 0;
}

/** An account of the site, or NOT_FOUND (another site's account is not found either). */
export async function findAccount(db: Db | Tx, siteId: string, id: string): Promise<Account> {
  const account = await db.account.findFirst({ where: { id, siteId } });
  if (!account) throw ACCOUNT_NOT_FOUND(id);
  return account;
}

export interface SignUp {
  email: string;
  password: string;
  name: string;
  marketingOptin?: boolean | null;
}

/** A new account with a hashed password and no roles; an e-mail the site has already is a conflict. */
export async function signUp(db: Db, siteId: string, input: SignUp): Promise<Account> {
  const email = checkEmail(input.email);
  const name = checkText(input.name, 'name');
  const passwordHash = await hashPassword(checkPassword(input.password));
  const existing = await db.account.findUnique({ where: { siteId_email: { siteId, email } }, select: { id: true } });
  if (existing) throw conflict('an account with this email already exists');
  const now = new Date();
  return db.account.create({
    data: {
      id: newId(),
      siteId,
      email,
      name,
      normalizedName: normalizeName(name),
      passwordHash,
      roles: [],
      marketingOptin: input.marketingOptin ?? false,
      tags: [],
      createdAt: now,
      updatedAt: now,
    },
  });
}

/** A guest account (no password) for someone who opened an invite without signing in. */
export async function createGuestAccount(tx: Tx, siteId: string, inviteId: string): Promise<Account> {
  const now = new Date();
  const name = 'Invited guest';
  return tx.account.create({
    data: {
      id: newId(),
      siteId,
      email: `guest-${inviteId}@invite.invalid`,
      name,
      normalizedName: normalizeName(name),
      roles: [],
      tags: ['invite-guest'],
      createdAt: now,
      updatedAt: now,
    },
  });
}

/**
 * The guest account a login code signs its holder into (no password, its e-mail made from the code): made on
 * the code's first use, found on every later one. Exactly once is the unique (site, e-mail) key: of two first
 * uses at once, the second finds the first's account.
 */
export async function loginCodeGuest(db: Db, siteId: string, codeId: string): Promise<{ account: Account; created: boolean }> {
  const email = `guest-${codeId}@access-code.invalid`;
  const existing = await db.account.findUnique({ where: { siteId_email: { siteId, email } } });
  if (existing) return { account: existing, created: false };
  const now = new Date();
  const name = 'Access code guest';
  try {
    const account = await db.account.create({
      data: { id: newId(), siteId, email, name, normalizedName: normalizeName(name), roles: [], tags: ['access-code-guest'], createdAt: now, updatedAt: now },
    });
    return { account, created: true };
  } catch (error) {
    const raced = await db.account.findUnique({ where: { siteId_email: { siteId, email } } });
    if (raced) return { account: raced, created: false };
    throw error;
  }
}

/**
 * Stores a new password hash for the account, and for its global account and every account linked
 * to it; then ends their sessions, since a password change is how a stolen session is cut off.
 */
export async function storePasswordHash(tx: Tx, account: Pick<Account, 'id' | 'globalAccountId'>, passwordHash: string): Promise<void> {
  const now = new Date();
  if (account.globalAccountId) {
    await tx.globalAccount.update({ where: { id: account.globalAccountId }, data: { passwordHash, updatedAt: now } });
    const linked = await tx.account.findMany({ where: { globalAccountId: account.globalAccountId }, select: { id: true } });
    await tx.account.updateMany({ where: { globalAccountId: account.globalAccountId }, data: { passwordHash, updatedAt: now } });
    await endSessions(
      tx,
      linked.map((row) => row.id),
    );
  } else {
    await tx.account.update({ where: { id: account.id }, data: { passwordHash, updatedAt: now } });
    await endSessions(tx, [account.id]);
  }
}

/** Revokes every refresh token of the accounts. */
export async function endSessions(tx: Tx, accountIds: string[]): Promise<void> {
  await tx.refreshToken.updateMany({ where: { accountId: { in: accountIds }, revokedAt: null }, data: { revokedAt: new Date() } });
}

// ------------------------------------------------------------------ roles

/** Roles as stored: page IDs always a list. */
export function checkRoles(roles: readonly { pageId?: readonly string[] | null; scope: string; write: boolean }[], field = 'roles'): AccountRole[] {
  return roles.map((role, index) => ({
    pageId: (role.pageId ?? []).map((page, pageIndex) => checkText(page, `${field}.${index}.pageId.${pageIndex}`, 128)),
    scope: checkText(role.scope, `${field}.${index}.scope`, 100),
    write: role.write,
  }));
}

function covers(held: AccountRole, wanted: AccountRole): boolean {
  const heldPages = held.pageId ?? [];
  return (
    (held.scope === '*' || (wanted.scope !== '*' && held.scope.toLowerCase() === wanted.scope.toLowerCase())) &&
    (held.write || !wanted.write) &&
    (heldPages.length === 0 || (wanted.pageId.length > 0 && wanted.pageId.every((page) => heldPages.includes(page))))
  );
}

/**
 * A signed-in admin may hand out only what it holds itself, so no one raises their own rights by
 * writing roles; a developer key may hand out anything.
 */
export function checkGrantable(identity: Identity, roles: AccountRole[], field = 'roles'): void {
  if (identity.developerKey) return;
  const held = identity.account?.roles ?? [];
  const beyond = roles.find((role) => !held.some((mine) => covers(mine, role)));
  if (beyond) throw forbidden(`${field}: you cannot grant ${beyond.write ? 'write' : 'read'} access to ${beyond.scope} you do not hold`);
}

/**
 * A signed-in admin manages (edits, deletes, sets the password or roles of) only accounts whose rights
 * it holds too: otherwise setting the password of a fuller admin would be a way to become one.
 */
export function checkManageable(identity: Identity, target: Pick<Account, 'id' | 'roles'>): void {
  if (identity.developerKey || identity.account?.id === target.id) return;
  const held = identity.account?.roles ?? [];
  if (!rolesOf(target).every((role) => held.some((mine) => covers(mine, role)))) {
    throw forbidden('this account holds rights you do not hold; only a developer key or a fuller admin may change it');
  }
}

// ------------------------------------------------------------------ updates

export interface AccountChanges {
  email?: string | null;
  password?: string | null;
  name?: string | null;
  marketingOptin?: boolean | null;
  thirdPartyAuthProviders?: { accountId: string; provider: string }[] | null;
  roles?: AccountRole[] | null;
  tags?: string[] | null;
}

/** Applies the changes given (nulls and absences leave a field as it is), all or nothing. */
export async function updateAccount(db: Db, account: Account, changes: AccountChanges): Promise<Account> {
  const data: Prisma.AccountUpdateInput = { updatedAt: new Date() };
  if (changes.email != null) {
    const email = checkEmail(changes.email);
    if (email !== account.email) {
      const taken = await db.account.findUnique({ where: { siteId_email: { siteId: account.siteId, email } }, select: { id: true } });
      if (taken) throw conflict('an account with this email already exists');
      data.email = email;
    }
  }
  if (changes.name != null) {
    data.name = checkText(changes.name, 'name');
    data.normalizedName = normalizeName(data.name);
  }
  if (changes.marketingOptin != null) data.marketingOptin = changes.marketingOptin;
  if (changes.thirdPartyAuthProviders != null) {
    data.thirdPartyAuthProviders = changes.thirdPartyAuthProviders.map((provider, index) => ({
      accountId: checkText(provider.accountId, `thirdPartyAuthProviders.${index}.accountId`),
      provider: checkText(provider.provider, `thirdPartyAuthProviders.${index}.provider`, 100),
    }));
  }
  if (changes.roles != null) data.roles = changes.roles;
  if (changes.tags != null) data.tags = checkTags(changes.tags);
  const passwordHash = changes.password != null ? await hashPassword(checkPassword(changes.password)) : null;
  return db.$transaction(async (tx) => {
    const updated = await tx.account.update({ where: { id: account.id }, data });
    if (!passwordHash) return updated;
    await storePasswordHash(tx, account, passwordHash);
    return tx.account.findUniqueOrThrow({ where: { id: account.id } });
  });
}

/** Deletes the account with its sessions, tokens and holdings; the payments ledger keeps its charges. */
export async function deleteAccount(db: Db, identity: Identity, siteId: string, id: string): Promise<void> {
  checkManageable(identity, await findAccount(db, siteId, id));
  await db.$transaction(async (tx) => {
    await tx.refreshToken.deleteMany({ where: { accountId: id } });
    await tx.loginIntent.deleteMany({ where: { accountId: id } });
    await tx.passwordReset.deleteMany({ where: { accountId: id } });
    await tx.claimStatus.deleteMany({ where: { siteId, accountId: id } });
    await tx.subscription.deleteMany({ where: { siteId, accountId: id } });
    await tx.account.delete({ where: { id } });
  });
}

// ------------------------------------------------------------------ listing

/** Fields `field=value` search may name, and how each becomes a condition. */
const FILTERABLE: Record<string, (value: string) => Prisma.AccountWhereInput> = {
  email: (value) => ({ email: value.toLowerCase() }),
  name: (value) => ({ normalizedName: containsText(normalizeName(value)) }),
  marketingOptin: (value) => {
    if (value !== 'true' && value !== 'false') throw badInput('search: marketingOptin must be true or false', 'search');
    return { marketingOptin: value === 'true' };
  },
  globalAccountId: (value) => ({ globalAccountId: value }),
  uid: (value) => ({ id: value }),
};

/**
 * The seed's account search: `field=value` pairs joined by `&` (e.g. marketingOptin=true), or free
 * text matched against name and e-mail.
 */
export function accountSearch(search: string | null | undefined, field = 'search'): { where: Prisma.AccountWhereInput; searchFields: string[] } {
  const text = search?.trim();
  if (!text) return { where: {}, searchFields: [] };
  if (!text.includes('=')) {
    const lowered = text.toLowerCase();
    return { where: { OR: [{ normalizedName: containsText(normalizeName(text)) }, { email: containsText(lowered) }] }, searchFields: ['name', 'email'] };
  }
  const conditions: Prisma.AccountWhereInput[] = [];
  const searchFields: string[] = [];
  for (const pair of text.split('&')) {
    const [name, ...rest] = pair.split('=');
    const key = name.trim();
    const build = FILTERABLE[key];
    if (!build) throw badInput(`${field}: ${key} cannot be searched (one of ${Object.keys(FILTERABLE).join(', ')})`, field);
    conditions.push(build(decodeURIComponent(rest.join('=').trim())));
    searchFields.push(key);
  }
  return { where: { AND: conditions }, searchFields };
}

const SORTABLE: Record<string, keyof Prisma.AccountOrderByWithRelationInput> = {
  name: 'normalizedName',
  email: 'email',
  created: 'createdAt',
  modified: 'updatedAt',
  lastLogin: 'lastLoginAt',
};

export interface AccountListing {
  search?: string | null;
  offset: number;
  limit: number;
  sortBy?: string | null;
  /** 1 ascending; 2 or -1 descending (the seed documents 2). */
  sortDirection?: number | null;
}

/** One page of the site's accounts, searched and sorted, with the seed's pagination object. */
export async function listAccounts(db: Db, siteId: string, listing: AccountListing) {
  const { where, searchFields } = accountSearch(listing.search);
  const sortBy = listing.sortBy ?? 'created';
  const column = SORTABLE[sortBy];
  if (!column) throw badInput(`sortBy must be one of ${Object.keys(SORTABLE).join(', ')}`, 'sortBy');
  const direction = listing.sortDirection ?? 1;
  if (![1, 2, -1].includes(direction)) throw badInput('sortDirection must be 1 (ascending) or 2 / -1 (descending)', 'sortDirection');
  const order = direction === 1 ? 'asc' : 'desc';
  const scoped: Prisma.AccountWhereInput = { siteId, ...where };
  const [results, totalCount] = await Promise.all([
    db.account.findMany({ where: scoped, orderBy: [{ [column]: order }, { id: order }], skip: listing.offset, take: listing.limit }),
    db.account.count({ where: scoped }),
  ]);
  return {
    pagination: { limit: listing.limit, offset: listing.offset, searchFields, sortBy, sortDirection: direction, totalCount },
    results,
  };
}
