/** Resolvers of the community subgraph, one file per area under resolvers/, merged per type. */
import { mergeResolvers } from '../../shared/subgraph';
import type { CommunityRuntime } from './runtime';
import type { Resolvers } from './resolvers.generated';
import { accessCodeResolvers } from './resolvers/accessCodes';
import { accountResolvers } from './resolvers/accounts';
import { claimResolvers } from './resolvers/claims';
import { communityResolvers } from './resolvers/community';
import { developerKeyResolvers } from './resolvers/developerKeys';
import { entitlementResolvers } from './resolvers/entitlements';
import { inviteResolvers } from './resolvers/invites';
import { leaderboardResolvers } from './resolvers/leaderboard';
import { receiptResolvers } from './resolvers/receipts';

/** Every area's resolvers merged into one map, bound to the server's runtime. */
export function createResolvers(runtime: CommunityRuntime): Resolvers {
  return mergeResolvers<Resolvers>(
    accountResolvers(runtime),
    accessCodeResolvers(runtime),
    inviteResolvers(),
    entitlementResolvers(runtime),
    communityResolvers(runtime),
    receiptResolvers(),
    claimResolvers(),
    leaderboardResolvers(),
    developerKeyResolvers(),
  );
}
