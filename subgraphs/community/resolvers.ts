/** Resolvers of the community subgraph, one file per area under resolvers/, merged per type. */
import type { CommunityRuntime } from './runtime';
import type { Resolvers } from './resolvers.generated';
import { accessCodeResolvers } from './resolvers/accessCodes';
import { accountResolvers } from './resolvers/accounts';
import { claimResolvers } from './resolvers/claims';
import { communityResolvers } from './resolvers/community';
import { entitlementResolvers } from './resolvers/entitlements';
import { inviteResolvers } from './resolvers/invites';
import { receiptResolvers } from './resolvers/receipts';

/** Every area's resolvers merged into one map, bound to the server's runtime. */
export function createResolvers(runtime: CommunityRuntime): Resolvers {
  const areas: Resolvers[] = [
    accountResolvers(runtime),
    accessCodeResolvers(),
    inviteResolvers(),
    entitlementResolvers(),
    communityResolvers(runtime),
    receiptResolvers(),
    claimResolvers(),
  ];
  const merged: Record<string, Record<string, unknown>> = {};
  for (const area of areas) {
    for (const [typeName, fields] of Object.entries(area)) merged[typeName] = { ...merged[typeName], ...(fields as object) };
  }
  return merged as Resolvers;
}
