/** GraphQL types of the community subgraph mapped to Prisma models. */
import type { Account, Entitlement, Subscription } from '../../shared/db/generated/sqlite';

export type AccountModel = Account;
export type EntitlementModel = Entitlement;
export type AccountSubscriptionModel = Subscription & { entitlement: Entitlement };
