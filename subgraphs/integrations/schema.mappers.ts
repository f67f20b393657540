/** GraphQL types of the integrations subgraph mapped to Prisma models. */
import type { DataProvider } from '../../shared/db/generated/sqlite';

export type DataProviderModel = DataProvider;
