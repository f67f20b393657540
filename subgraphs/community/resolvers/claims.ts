/** Resolvers of quest reward claims, and the claims joined onto the content subgraph's Quest. */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import { findClaimStatus, listClaimStatuses, recordQuestClaim, setClaimStatus, settleQuestRaffle } from '../claims';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

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
      quest: (claim) => ({ id: claim.questId }),
      created: (claim) => claim.createdAt.getTime(),
      modified: (claim) => claim.updatedAt.getTime(),
    },
    Quest: {
      __resolveReference: (reference) => ({ id: reference.id }),
      claimStatuses: (quest, _args, { identity, db }) => listClaimStatuses(db, identity, requireSite(identity), { questId: quest.id }),
    },
  };
}
