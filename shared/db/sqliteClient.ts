/**
 * Prisma on SQLite: Prisma's libSQL driver adapter (its type mapping, argument encoding and error
 * codes) over one `node:sqlite` connection instead of the libSQL client. The adapter calls only
 * `execute`, `transaction`, `executeMultiple` and `close` of the client it is given, and holds its own
 * lock from a transaction's start to its end, so one connection serves it, as it served Prisma's
 * better-sqlite3 adapter before.
 *
 * Transactions begin IMMEDIATE: the write lock is taken at BEGIN, so a transaction never reads, lets
 * another connection commit, and then fails to write (SQLITE_BUSY_SNAPSHOT), and its statements never
 * find the database locked. The connection has no busy timeout, which would stop the event loop while
 * it waits: a statement outside a transaction, or a BEGIN, that finds another connection (another
 * process, or the plain driver) holding the lock is tried again shortly (whenUnlocked). node:sqlite
 * resets a statement that failed, so trying again is safe and leaves nothing held.
 */
import type { Client, Config, InStatement, InValue, ResultSet, Row, Transaction } from '@libsql/client';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { SqliteConnection, whenUnlocked } from './sqlite';

// The adapter's web build: the same adapter, without loading the libSQL client's native addon, which is
// never used here (this project's TypeScript resolves no package subpaths, hence the typed require).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PrismaLibSQL } = require('@prisma/adapter-libsql/web') as typeof import('@prisma/adapter-libsql');

/** Prepared statements kept per connection (Prisma sends the same few hundred SQL texts again and again). */
const STATEMENT_CACHE_SIZE = 500;

function toSql(value: InValue): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value;
}

/** Blobs as the adapter reads them (ArrayBuffer); every other value as node:sqlite returns it. */
function fromSql(value: unknown): unknown {
  return value instanceof Uint8Array ? value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) : value;
}

/** The adapter maps errors by SQLite's extended result code, which it reads as `rawCode`. */
function asDriverError(error: unknown): unknown {
  const { errcode } = error as { errcode?: unknown };
  return typeof errcode === 'number' ? Object.assign(error as Error, { rawCode: errcode }) : error;
}

class Statements {
  private readonly cache = new Map<string, { statement: StatementSync; columns: string[]; columnTypes: string[] }>();

  constructor(private readonly connection: SqliteConnection) {}

  execute(stmt: InStatement): ResultSet {
    const { sql, args } = typeof stmt === 'string' ? { sql: stmt, args: [] } : stmt;
    if (!Array.isArray(args)) throw new TypeError('only positional arguments are supported');
    try {
      const prepared = this.prepared(sql);
      const values = args.map(toSql);
      if (prepared.columns.length === 0) {
        const { changes, lastInsertRowid } = prepared.statement.run(...values);
        return { columns: [], columnTypes: [], rows: [], rowsAffected: Number(changes), lastInsertRowid: BigInt(lastInsertRowid), toJSON: () => ({}) };
      }
      const rows = (prepared.statement.all(...values) as unknown as unknown[][]).map((row) => row.map(fromSql) as unknown as Row);
      return { columns: prepared.columns, columnTypes: prepared.columnTypes, rows, rowsAffected: 0, lastInsertRowid: undefined, toJSON: () => ({}) };
    } catch (error) {
      throw asDriverError(error);
    }
  }

  private prepared(sql: string) {
    let entry = this.cache.get(sql);
    if (entry) {
      // Most recently used last, so the first key is the one to drop.
      this.cache.delete(sql);
    } else {
      const statement = this.connection.prepare(sql);
      statement.setReturnArrays(true);
      statement.setReadBigInts(true);
      const columns = statement.columns();
      entry = { statement, columns: columns.map((column) => column.name), columnTypes: columns.map((column) => column.type ?? '') };
      if (this.cache.size >= STATEMENT_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(sql, entry);
    return entry;
  }
}

/** The subset of @libsql/client's Client that Prisma's libSQL adapter uses, on one node:sqlite connection. */
function sqliteClient(file: string): Client {
  const connection = new SqliteConnection(file, 0);
  const statements = new Statements(connection);
  const transaction: Transaction = {
    execute: async (stmt) => statements.execute(stmt),
    batch: async (stmts) => stmts.map((stmt) => statements.execute(stmt)),
    executeMultiple: async (sql) => connection.exec(sql),
    commit: async () => connection.exec('COMMIT'),
    rollback: async () => {
      if (connection.inTransaction) connection.exec('ROLLBACK');
    },
    close: () => {
      if (connection.inTransaction) connection.exec('ROLLBACK');
    },
    get closed() {
      return !connection.inTransaction;
    },
  };
  const client = {
    protocol: 'file',
    closed: false,
    execute: (stmt: InStatement) => whenUnlocked(() => statements.execute(stmt)),
    batch: async () => {
      throw new Error('batch is not used by the Prisma adapter');
    },
    transaction: async () => {
      await whenUnlocked(() => connection.exec('BEGIN IMMEDIATE'));
      return transaction;
    },
    executeMultiple: async (sql: string) => connection.exec(sql),
    sync: async () => undefined,
    close: () => {
      client.closed = true;
      connection.close();
    },
  };
  return client as unknown as Client;
}

/** Prisma's driver adapter for the SQLite file `file` (or ':memory:'). */
export class PrismaSqlite extends PrismaLibSQL {
  constructor(file: string) {
    super({ url: file === ':memory:' ? ':memory:' : `file:${file}` });
  }

  /** `config.url` is the constructor's, or ':memory:' for the CLI's shadow database. */
  override createClient(config: Config): Client {
    return sqliteClient(config.url === ':memory:' ? ':memory:' : config.url.slice('file:'.length));
  }
}
