/** GraphQL types of the community subgraph mapped to Prisma models (and the shapes resolvers hold). */
import type { AccessCode, Account, ClaimStatus, DeveloperKey, Entitlement, Invite, Bundle, Subscription } from '../../shared/db/generated/sqlite';

export type AccountModel = Account;
export type EntitlementModel = Entitlement;
export type AccountSubscriptionModel = Subscription & { entitlement: Entitlement };
export type AccessCodeModel = AccessCode;
/** The token is present only in the answer that creates the invite. */
export type InviteModel = Invite & { token?: string };
export type BundleModel = Bundle;
export type ClaimStatusModel = ClaimStatus;
export type QuestReference = { id: string };
export type DeveloperKeyModel = DeveloperKey;
