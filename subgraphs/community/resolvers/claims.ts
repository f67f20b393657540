/** Resolvers of quest reward claims, and the claims joined onto the content subgraph's Quest. */
import DataLoader from 'dataloader';
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import type { Identity } from '../../../shared/auth/identity';
import type { Db } from '../../../shared/db/client';
import type { ClaimStatus } from '../../../shared/db/generated/sqlite';
import { findClaimStatus, listClaimStatuses, readableClaimStatus, recordQuestClaim, setClaimStatus, settleQuestRaffle } from '../claims';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

const questClaimLoaders = new WeakMap<Identity, DataLoader<string, ClaimStatus[]>>();

/**
 * The claims of one request's quests in one query: the gateway asks for a page of quests' claims as one
 * entity fetch, which would otherwise make a query per quest. Each quest's list keeps the order
 * `listClaimStatuses` gives it.
 */
function questClaimLoader(identity: Identity, db: Db): DataLoader<string, ClaimStatus[]> {
  let loader = questClaimLoaders.get(identity);
  if (!loader) {
    loader = new DataLoader(
      async (questIds: readonly string[]) => {
        const claims = await listClaimStatuses(db, identity, requireSite(identity), { questIds: [...questIds] });
        const byQuest = new Map<string, ClaimStatus[]>(questIds.map((id) => [id, []]));
        for (const claim of claims) byQuest.get(claim.questId)?.push(claim);
        return questIds.map((id) => byQuest.get(id) ?? []);
      },
      // Batching only: one identity may serve a socket's many operations, and claims change.
      { cache: false },
    );
    questClaimLoaders.set(identity, loader);
  }
  return loader;
}

/** Resolvers of claim statuses and Quest.claimStatuses. */
export function claimResolvers(): Resolvers {
  return {
    Query: {
      claimStatus: (_root, { id }, { identity, db }) => findClaimStatus(db, identity, requireSite(identity), id),
      claimStatuses: (_root, filter, { identity, db }) => listClaimStatuses(db, identity, requireSite(identity), filter),
    },
    Mutation: {
      recordQuestClaim: (_root, { input }, { identity, db }) => recordQuestClaim(db, requireAdmin(identity, Scope.claimStatuses, { write: true }), input),
      setClaimStatus: (_root, { id, status }, { identity, db }) => setClaimStatus(db, requireAdmin(identity, Scope.claimStatuses, { write: true }), id, status),
      settleQuestRaffle: (_root, { questId, winnerClaimIds }, { identity, db }) =>
        settleQuestRaffle(db, requireAdmin(identity, Scope.claimStatuses, { write: true }), questId, winnerClaimIds),
    },
    ClaimStatus: {
      __resolveReference: (reference, { identity, db }) => (identity.siteId ? readableClaimStatus(db, identity, identity.siteId, reference.id) : null),
      quest: (claim) => ({ id: claim.questId }),
      created: (claim) => claim.createdAt.getTime(),
      modified: (claim) => claim.updatedAt.getTime(),
    },
    Quest: {
      __resolveReference: (reference) => ({ id: reference.id }),
      claimStatuses: (quest, _args, { identity, db }) => questClaimLoader(identity, db).load(quest.id),
    },
  };
}
