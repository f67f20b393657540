/**
 * The database handle every service gets: a Prisma client on a driver adapter (node:sqlite or pg),
 * chosen by the URL. Both generated clients have the same model API, so code is typed against one.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient as SqlitePrismaClient, Prisma } from './generated/sqlite';
import { migrateDatabase, sqliteFilePath } from './migrate';
import { cacheReadPlans, type QueryCompilerModule } from './planCache';
import { providerOf, type DbProvider } from './providers';
import { SqliteConnection } from './sqlite';
import { PrismaSqlite } from './sqliteAdapter';
import { tracingEnabled, withSpan } from '../tracing';

export type Db = SqlitePrismaClient;
export { Prisma };

/**
 * The plain driver beside Prisma, for the few hot paths where one prepared statement costs a fraction
 * of a Prisma query (data events). A SQLite connection of its own, opened with no busy wait: it never
 * holds a lock across an await, and a caller that finds the database locked (a Prisma transaction
 * open) retries later instead of blocking the event loop. `counted` adds statements to queryCount.
 */
export type PlainDriver =
  | { provider: 'sqlite'; connection: SqliteConnection; counted(statements: number): void }
  | { provider: 'postgresql'; pool: Pool; counted(statements: number): void };

export interface Database {
  prisma: Db;
  provider: DbProvider;
  /** null for an in-memory SQLite database, which a second connection would not see. */
  plain: PlainDriver | null;
  /** True when a trivial query answers; used by /ready. */
  ping(): Promise<boolean>;
  /** SQL statements this process has sent so far (the bench reads it to count a storm's queries). */
  queryCount(): number;
  /** Of those sent through Prisma, the reads (SELECT): what a go-live's viewers cause (the bench's show). */
  readCount(): number;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
  /** Largest number of pooled PostgreSQL connections (default 10). */
  poolSize?: number;
}

/** A statement that reads (Prisma writes its reads as plain SELECTs; writes, BEGIN and COMMIT are the rest). */
const READ = /^\s*SELECT\b/i;

/** Query events are emitted (not printed) so each statement can be counted. */
const COUNT_QUERIES = [{ emit: 'event' as const, level: 'query' as const }];
/**
 * Interactive transactions wait for a pooled connection as long as plain queries would, rather than
 * Prisma's 2 s: on loaded cores a burst (or a start-up beside other processes) can keep the pool or the
 * event loop busy that long, and the write would fail although the database is fine. They may run for
 * 20 s before they are rolled back (Prisma's 5 s would abort a write that is only slow).
 */
const TRANSACTIONS = { maxWait: 15_000, timeout: 20_000 };

export async function openDatabase(databaseUrl: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.migrate !== false) await migrateDatabase(databaseUrl);
  const provider = providerOf(databaseUrl);
  let prisma: Db;
  let closeDriver = async (): Promise<void> => undefined;
  let queries = 0;
  const counted = (statements: number) => {
    queries += statements;
  };
  let plain: PlainDriver | null = null;
  if (provider === 'sqlite') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cacheReadPlans(require('./generated/sqlite/query_compiler_bg.js') as QueryCompilerModule);
    const file = sqliteFilePath(databaseUrl);
    prisma = new SqlitePrismaClient({ adapter: new PrismaSqlite(file), log: COUNT_QUERIES, transactionOptions: TRANSACTIONS });
    if (file !== ':memory:' && file !== '') {
      const connection = new SqliteConnection(file, 0);
      plain = { provider, connection, counted };
      closeDriver = async () => {
        connection.close();
      };
    }
  } else {
    // The PostgreSQL client is generated from the derived schema; its model API matches the SQLite one.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { PrismaClient } = require('./generated/postgresql') as { PrismaClient: new (options: unknown) => Db };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cacheReadPlans(require('./generated/postgresql/query_compiler_bg.js') as QueryCompilerModule);
    const pool = new Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
    // An idle connection the server ends (restart, failover, a dropped database) is an 'error' event on
    // the pool; unheard, it would crash the process. The pool has already discarded that connection and
    // the next query opens a new one (or fails, which /ready reports), so there is nothing more to do.
    pool.on('error', () => undefined);
    prisma = new PrismaClient({ adapter: new PrismaPg(pool), log: COUNT_QUERIES, transactionOptions: TRANSACTIONS });
    plain = { provider: 'postgresql', pool, counted };
    closeDriver = () => pool.end();
  }
  let reads = 0;
  (prisma as unknown as { $on(event: 'query', listener: (event: { query: string }) => void): void }).$on('query', (event) => {
    queries += 1;
    if (READ.test(event.query)) reads += 1;
  });
  await prisma.$connect();
  if (tracingEnabled()) prisma = withQuerySpans(prisma, provider);
  return {
    prisma,
    provider,
    plain,
    async ping() {
      try {
        await prisma.$queryRawUnsafe('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    queryCount: () => queries,
    readCount: () => reads,
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}

/**
 * The client with a span around each query of a traced request (only when tracing is on: the extension
 * costs a little per query). Background work (the webhook outbox polls every 2 s) makes no traces of its own.
 */
function withQuerySpans(prisma: Db, provider: DbProvider): Db {
  return prisma.$extends({
    query: {
      $allOperations({ model, operation, args, query }) {
        const name = model ? `prisma ${model}.${operation}` : `prisma ${operation}`;
        return withSpan(
          name,
          { 'db.system.name': provider, 'db.operation.name': operation, ...(model ? { 'db.collection.name': model } : {}) },
          () => query(args),
          true,
        );
      },
    },
  }) as unknown as Db;
}
