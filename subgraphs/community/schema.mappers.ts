/** GraphQL types of the community subgraph mapped to Prisma models. */
import type { Account } from '../../shared/db/generated/sqlite';

export type AccountModel = Account;
