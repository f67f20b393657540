/**
 * Prisma on SQLite: a driver adapter over one `node:sqlite` connection, written against Prisma's public
 * driver-adapter interface (@prisma/driver-adapter-utils). It owns what an adapter owns:
 * - arguments and rows: Prisma's values to SQLite's and back, with a column type for each result column;
 * - errors: SQLite's extended result codes mapped to Prisma's kinds (a unique violation is P2002);
 * - locking: one writer. A transaction holds the adapter's lock from BEGIN to COMMIT or ROLLBACK, and a
 *   statement outside one waits for it, so the one connection never runs two transactions at once;
 * - BEGIN IMMEDIATE: the write lock is taken at BEGIN, so a transaction never reads, lets another
 *   connection commit, and then fails to write (SQLITE_BUSY_SNAPSHOT);
 * - literal LIKE: each LIKE gets `ESCAPE '\'`, so a search pattern means on SQLite what it means on
 *   PostgreSQL (see literalSearch.ts).
 *
 * The connection has no busy timeout, which would stop the event loop while it waits: a statement outside
 * a transaction, or a BEGIN, that finds another connection (another process, or the plain driver) holding
 * the lock is tried again shortly (whenUnlocked). node:sqlite resets a statement that failed, so trying
 * again is safe and leaves nothing held.
 */
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type ArgType,
  type ColumnType,
  type IsolationLevel,
  type MappedError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
  type TransactionOptions,
} from '@prisma/driver-adapter-utils';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { SqliteConnection, sqliteDate, whenUnlocked } from './sqlite';

const ADAPTER_NAME = 'stagegraph-sqlite';

/** Prepared statements kept per connection (Prisma sends the same few hundred SQL texts again and again). */
const STATEMENT_CACHE_SIZE = 500;

/** Column types by declared type, as SQLite's type affinity reads them; anything else is inferred from the values. */
const DECLARED_TYPES: Record<string, ColumnType> = {
  DECIMAL: ColumnTypeEnum.Numeric,
  FLOAT: ColumnTypeEnum.Float,
  DOUBLE: ColumnTypeEnum.Double,
  'DOUBLE PRECISION': ColumnTypeEnum.Double,
  NUMERIC: ColumnTypeEnum.Double,
  REAL: ColumnTypeEnum.Double,
  TINYINT: ColumnTypeEnum.Int32,
  SMALLINT: ColumnTypeEnum.Int32,
  MEDIUMINT: ColumnTypeEnum.Int32,
  INT: ColumnTypeEnum.Int32,
  INTEGER: ColumnTypeEnum.Int32,
  SERIAL: ColumnTypeEnum.Int32,
  INT2: ColumnTypeEnum.Int32,
  BIGINT: ColumnTypeEnum.Int64,
  'UNSIGNED BIG INT': ColumnTypeEnum.Int64,
  INT8: ColumnTypeEnum.Int64,
  DATETIME: ColumnTypeEnum.DateTime,
  TIMESTAMP: ColumnTypeEnum.DateTime,
  TIME: ColumnTypeEnum.Time,
  DATE: ColumnTypeEnum.Date,
  TEXT: ColumnTypeEnum.Text,
  CLOB: ColumnTypeEnum.Text,
  CHARACTER: ColumnTypeEnum.Text,
  VARCHAR: ColumnTypeEnum.Text,
  'VARYING CHARACTER': ColumnTypeEnum.Text,
  NCHAR: ColumnTypeEnum.Text,
  'NATIVE CHARACTER': ColumnTypeEnum.Text,
  NVARCHAR: ColumnTypeEnum.Text,
  BLOB: ColumnTypeEnum.Bytes,
  BOOLEAN: ColumnTypeEnum.Boolean,
  JSONB: ColumnTypeEnum.Json,
};

/** The type of a column with no declared type (an expression), from its first non-null value. */
function inferredType(value: unknown): ColumnType {
  if (typeof value === 'string') return ColumnTypeEnum.Text;
  if (typeof value === 'bigint') return ColumnTypeEnum.Int64;
  if (typeof value === 'number') return ColumnTypeEnum.UnknownNumber;
  if (value instanceof Uint8Array) return ColumnTypeEnum.Bytes;
  throw new TypeError(`SQLite returned a value of type ${typeof value}`);
}

function columnTypes(declared: (string | null)[], rows: unknown[][]): ColumnType[] {
  return declared.map((type, column) => {
    const known = type === null ? undefined : DECLARED_TYPES[type.toUpperCase()];
    if (known !== undefined) return known;
    const sample = rows.find((row) => row[column] !== null)?.[column];
    // An expression that is null in every row: any type reads null.
    return sample === undefined ? ColumnTypeEnum.Int32 : inferredType(sample);
  });
}

/**
 * A result value as Prisma reads it. Integers are read as bigint (so none loses precision) and handed on
 * as text, as Prisma's own SQLite adapters do; a DateTime kept as milliseconds becomes ISO text.
 */
function resultValue(value: unknown, type: ColumnType): unknown {
  if (value instanceof Uint8Array) return Array.from(value);
  if (type === ColumnTypeEnum.DateTime && (typeof value === 'bigint' || typeof value === 'number')) return new Date(Number(value)).toISOString();
  if (typeof value === 'number' && (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64)) return Math.trunc(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** A Prisma argument as SQLite keeps it: dates in the one text format the plain driver writes too (sqliteDate). */
function argumentValue(value: unknown, type: ArgType | undefined): SQLInputValue {
  if (value === null || value === undefined) return null;
  const scalar = type?.scalarType;
  if (typeof value === 'string') {
    if (scalar === 'bigint') return BigInt(value);
    if (scalar === 'decimal') return Number.parseFloat(value);
    if (scalar === 'datetime') return sqliteDate(new Date(value));
    if (scalar === 'bytes') return Buffer.from(value, 'base64');
    return value;
  }
  if (value instanceof Date) return sqliteDate(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  if (Array.isArray(value) && scalar === 'bytes') return new Uint8Array(value as number[]);
  if (value instanceof Uint8Array) return value;
  throw new DriverAdapterError({ kind: 'UnsupportedNativeDataType', type: `${typeof value} argument` });
}

// SQLite's extended result codes (https://www.sqlite.org/rescode.html).
const SQLITE_BUSY = 5;
const SQLITE_CONSTRAINT_FOREIGNKEY = 787;
const SQLITE_CONSTRAINT_NOTNULL = 1299;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_TRIGGER = 1811;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** `table.column, table.column` after SQLite's constraint message: the only place it names the columns. */
function constraintFields(message: string): { fields: string[] } | undefined {
  const list = message.split('constraint failed: ')[1];
  return list === undefined ? undefined : { fields: list.split(', ').map((field) => field.split('.').pop() ?? field) };
}

/** The kind of a node:sqlite error, by its extended result code (`errcode`). */
function mappedError(code: number, message: string): MappedError {
  switch (code) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return { kind: 'UniqueConstraintViolation', constraint: constraintFields(message) };
    case SQLITE_CONSTRAINT_NOTNULL:
      return { kind: 'NullConstraintViolation', constraint: constraintFields(message) };
    case SQLITE_CONSTRAINT_FOREIGNKEY:
    case SQLITE_CONSTRAINT_TRIGGER:
      return { kind: 'ForeignKeyConstraintViolation', constraint: { foreignKey: {} } };
    default:
      // The low byte is the primary code: every SQLITE_BUSY_* means the lock was not to be had in time.
      return (code & 0xff) === SQLITE_BUSY ? { kind: 'SocketTimeout' } : { kind: 'sqlite', extendedCode: code, message };
  }
}

/** A database error as Prisma's error (P2002 and the rest); anything that is not one is thrown as it is. */
function asAdapterError(error: unknown): unknown {
  const { errcode, message } = error as { errcode?: unknown; message?: unknown };
  if (typeof errcode !== 'number' || typeof message !== 'string') return error;
  return new DriverAdapterError({ ...mappedError(errcode, message), originalCode: String(errcode), originalMessage: message });
}

const LIKE_WITHOUT_ESCAPE = /\bLIKE \?(?!\s*ESCAPE)/gi;

/** The statement with `ESCAPE '\'` after each LIKE Prisma writes (`LIKE ?`: patterns are always arguments). */
function withLikeEscape(sql: string): string {
  return sql.replace(LIKE_WITHOUT_ESCAPE, "LIKE ? ESCAPE '\\'");
}

interface Prepared {
  statement: StatementSync;
  names: string[];
  declared: (string | null)[];
}

/** The connection's prepared statements, least recently used dropped first. */
class Statements {
  private readonly cache = new Map<string, Prepared>();

  constructor(readonly connection: SqliteConnection) {}

  query(query: SqlQuery): SqlResultSet {
    const prepared = this.prepared(query.sql);
    const rows = prepared.statement.all(...this.values(query)) as unknown as unknown[][];
    const types = columnTypes(prepared.declared, rows);
    return { columnNames: prepared.names, columnTypes: types, rows: rows.map((row) => row.map((value, column) => resultValue(value, types[column]))) };
  }

  execute(query: SqlQuery): number {
    return Number(this.prepared(query.sql).statement.run(...this.values(query)).changes);
  }

  private values(query: SqlQuery): SQLInputValue[] {
    return query.args.map((value, index) => argumentValue(value, query.argTypes[index]));
  }

  private prepared(sql: string): Prepared {
    let entry = this.cache.get(sql);
    if (entry) {
      // Most recently used last, so the first key is the one to drop.
      this.cache.delete(sql);
    } else {
      const statement = this.connection.prepare(withLikeEscape(sql));
      statement.setReturnArrays(true);
      statement.setReadBigInts(true);
      const columns = statement.columns();
      entry = { statement, names: columns.map((column) => column.name), declared: columns.map((column) => column.type) };
      if (this.cache.size >= STATEMENT_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(sql, entry);
    return entry;
  }
}

/** Whoever holds it is the connection's one writer; the others wait in turn. */
class WriterLock {
  private last: Promise<void> = Promise.resolve();

  /** Resolves with the release function once every earlier holder has released. */
  acquire(): Promise<() => void> {
    const previous = this.last;
    let release!: () => void;
    this.last = new Promise<void>((resolve) => (release = resolve));
    return previous.then(() => release);
  }

  async holding<T>(work: () => T | Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

/** Runs `work` on the connection, its SQLite error mapped to Prisma's. */
async function mapped<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asAdapterError(error);
  }
}

class SqliteTransaction implements Transaction {
  readonly provider = 'sqlite';
  readonly adapterName = ADAPTER_NAME;
  // The adapter sends BEGIN, COMMIT and ROLLBACK itself; Prisma only calls commit() and rollback().
  readonly options: TransactionOptions = { usePhantomQuery: true };
  private open = true;

  constructor(
    private readonly statements: Statements,
    private readonly release: () => void,
  ) {}

  // Inside the transaction the write lock is held from BEGIN IMMEDIATE, so nothing waits here.
  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return mapped(() => this.statements.query(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return mapped(() => this.statements.execute(query));
  }

  commit(): Promise<void> {
    return this.end('COMMIT');
  }

  rollback(): Promise<void> {
    return this.end('ROLLBACK');
  }

  private async end(sql: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    if (!this.open) return;
    this.open = false;
    try {
      // A failed statement may already have rolled the transaction back.
      if (this.statements.connection.inTransaction) await mapped(() => this.statements.connection.exec(sql));
    } finally {
      this.release();
    }
  }
}

class SqliteAdapter implements SqlDriverAdapter {
  readonly provider = 'sqlite';
  readonly adapterName = ADAPTER_NAME;
  private readonly lock = new WriterLock();
  private readonly statements: Statements;

  constructor(private readonly connection: SqliteConnection) {
    this.statements = new Statements(connection);
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.outsideTransaction(() => this.statements.query(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.outsideTransaction(() => this.statements.execute(query));
  }

  executeScript(script: string): Promise<void> {
    return this.outsideTransaction(() => this.connection.exec(script));
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    // SQLite transactions are serializable and nothing else.
    if (isolationLevel && isolationLevel !== 'SERIALIZABLE') throw new DriverAdapterError({ kind: 'InvalidIsolationLevel', level: isolationLevel });
    const release = await this.lock.acquire();
    try {
      await mapped(() => whenUnlocked(() => this.connection.exec('BEGIN IMMEDIATE')));
    } catch (error) {
      release();
      throw error;
    }
    return new SqliteTransaction(this.statements, release);
  }

  dispose(): Promise<void> {
    this.connection.close();
    return Promise.resolve();
  }

  private outsideTransaction<T>(work: () => T): Promise<T> {
    return this.lock.holding(() => mapped(() => whenUnlocked(work)));
  }
}

/** Prisma's driver adapter for the SQLite file `file` (or ':memory:'); the CLI's shadow database is in memory. */
export class PrismaSqlite implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'sqlite';
  readonly adapterName = ADAPTER_NAME;

  constructor(private readonly file: string) {}

  connect(): Promise<SqlDriverAdapter> {
    return Promise.resolve(new SqliteAdapter(new SqliteConnection(this.file, 0)));
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return Promise.resolve(new SqliteAdapter(new SqliteConnection(':memory:', 0)));
  }
}
