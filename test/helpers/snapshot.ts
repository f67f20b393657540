/**
 * Every row of every table of a stack's database, as one comparable value: a test that says "nothing
 * changed" compares the snapshots before and after, whatever tables a request could have written. Read
 * through the plain driver, which takes any column type as it is.
 */
import type { Stack } from '../../stack';

const TABLES = {
  sqlite: `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_prisma%' ORDER BY name`,
  postgresql: `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE '_prisma%' ORDER BY tablename`,
} as const;

/**
 * Columns that record that a credential was used, not what a request changed: a refused request with a
 * developer key still notes the key's use (written beside the request, at most once a minute).
 */
const USAGE_COLUMNS: Record<string, readonly string[]> = { DeveloperKey: ['lastUsedAt'] };

const withoutUsage = (table: string, row: Record<string, unknown>) =>
  USAGE_COLUMNS[table] ? Object.fromEntries(Object.entries(row).filter(([column]) => !USAGE_COLUMNS[table].includes(column))) : row;

const text = (row: unknown) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

/** Each table's rows, in a stable order, as JSON text. */
export async function databaseSnapshot(stack: Stack): Promise<Record<string, string>> {
  const plain = stack.database.plain;
  if (!plain) throw new Error('a database snapshot needs the plain driver (a SQLite file or PostgreSQL)');
  const read = async (sql: string): Promise<Record<string, unknown>[]> =>
    plain.provider === 'sqlite' ? plain.connection.prepare(sql).all() : (await plain.pool.query(sql)).rows;
  const snapshot: Record<string, string> = {};
  for (const { name } of (await read(TABLES[plain.provider])) as { name: string }[]) {
    snapshot[name] = (await read(`SELECT * FROM "${name}"`))
      .map((row) => text(withoutUsage(name, row)))
      .sort()
      .join('\n');
  }
  return snapshot;
}
