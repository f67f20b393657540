/**
 * Quest reward claims. Quests live in the content subgraph, which records a claim here when a player
 * completes one (recordQuestClaim, with the site's service identity or a developer key); admins then
 * fulfil or reject it. A player reads their own claims; an admin reads all of the site's.
 */
import type { Identity } from '../../shared/auth/identity';
import { hasAdminAccess } from '../../shared/auth/access';
import type { Db, Prisma } from '../../shared/db/client';
import type { ClaimStatus } from '../../shared/db/generated/sqlite';
import { notFound, unauthenticated } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { findAccount } from './accounts';
import { Scope } from './scopes';
import { checkText } from './validation';

export type ClaimState = 'PENDING' | 'APPROVED' | 'FULFILLED' | 'REJECTED';

/** Whose claims the caller may read: all of the site's (admin) or only its own. */
function readerScope(identity: Identity): Prisma.ClaimStatusWhereInput {
  if (hasAdminAccess(identity, Scope.claimStatuses, { write: false })) return {};
  if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> or x-service-developer-key is required');
  return { accountId: identity.account.id };
}

/** A claim the caller may read (its own, or any as an admin), or NOT_FOUND. */
/** The claim, when the caller may read it (its own, or any with read access to ClaimStatuses); else null. */
export function readableClaimStatus(db: Db, identity: Identity, siteId: string, id: string): Promise<ClaimStatus | null> {
  return db.claimStatus.findFirst({ where: { id, siteId, ...readerScope(identity) } });
}

export async function findClaimStatus(db: Db, identity: Identity, siteId: string, id: string): Promise<ClaimStatus> {
  const claim = await readableClaimStatus(db, identity, siteId, id);
  if (!claim) throw notFound(`claim status ${id}`);
  return claim;
}

/** The claims the caller may read, optionally of one quest (or of several) or account. */
export function listClaimStatuses(
  db: Db,
  identity: Identity,
  siteId: string,
  filter: { questId?: string | null; questIds?: string[]; accountId?: string | null },
) {
  return db.claimStatus.findMany({
    where: {
      siteId,
      ...(filter.questId ? { questId: filter.questId } : {}),
      ...(filter.questIds ? { questId: { in: filter.questIds } } : {}),
      ...(filter.accountId ? { accountId: filter.accountId } : {}),
      ...readerScope(identity),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/**
 * A player's claim of a quest's reward (PENDING unless told otherwise); recording it again returns the
 * same claim. The content subgraph passes the claim's ID it decided at completion, so a retry after a
 * crash finds the claim it made (the unique key (site, quest, account) makes it one either way).
 */
export async function recordQuestClaim(
  db: Db,
  siteId: string,
  input: { questId: string; accountId: string; productId: string; id?: string | null; status?: ClaimState | null },
): Promise<ClaimStatus> {
  const questId = checkText(input.questId, 'questId', 128);
  const productId = checkText(input.productId, 'productId', 200);
  const id = input.id ? checkText(input.id, 'id', 64) : newId();
  await findAccount(db, siteId, input.accountId);
  const now = new Date();
  return db.claimStatus.upsert({
    where: { siteId_questId_accountId: { siteId, questId, accountId: input.accountId } },
    create: { id, siteId, questId, productId, accountId: input.accountId, status: input.status ?? 'PENDING', createdAt: now, updatedAt: now },
    update: {},
  });
}

/**
 * A quest raffle's outcome: the winners' claims APPROVED, the quest's other claims REJECTED, in one
 * transaction; repeating it writes the same states. Answers the quest's claims.
 */
export async function settleQuestRaffle(db: Db, siteId: string, questId: string, winnerClaimIds: readonly string[]): Promise<ClaimStatus[]> {
  const now = new Date();
  // Everyone rejected, then the winners approved, in one transaction; winners in lists of 500 (Prisma
  // allows a SQLite statement at most 999 parameters).
  const winners: string[][] = [];
  for (let start = 0; start < winnerClaimIds.length; start += 500) winners.push(winnerClaimIds.slice(start, start + 500));
  await db.$transaction([
    db.claimStatus.updateMany({ where: { siteId, questId }, data: { status: 'REJECTED', updatedAt: now } }),
    ...winners.map((part) => db.claimStatus.updateMany({ where: { siteId, questId, id: { in: part } }, data: { status: 'APPROVED', updatedAt: now } })),
  ]);
  return db.claimStatus.findMany({ where: { siteId, questId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** An admin's decision on a claim: PENDING, FULFILLED or REJECTED. */
export async function setClaimStatus(db: Db, siteId: string, id: string, status: ClaimState): Promise<ClaimStatus> {
  const claim = await db.claimStatus.findFirst({ where: { id, siteId } });
  if (!claim) throw notFound(`claim status ${id}`);
  return db.claimStatus.update({ where: { id: claim.id }, data: { status, updatedAt: new Date() } });
}
