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
  const rowsByTable: Record<string, Record<string, unknown>[]> = {};
  if (plain.provider === 'sqlite') {
    for (const { name } of plain.connection.prepare(TABLES.sqlite).all() as { name: string }[]) {
      rowsByTable[name] = plain.connection.prepare(`SELECT * FROM "${name}"`).all();
    }
  } else {
    // One round trip for every table (a column each), not one per table: the write-route walk takes two
    // snapshots per case, ~1,500 in all.
    const names = ((await plain.pool.query(TABLES.postgresql)).rows as { name: string }[]).map(({ name }) => name);
    const columns = names.map((name, index) => `(SELECT coalesce(json_agg(t), '[]') FROM "${name}" t) AS t${index}`);
    const [row] = (await plain.pool.query(`SELECT ${columns.join(', ')}`)).rows as Record<string, Record<string, unknown>[]>[];
    names.forEach((name, index) => (rowsByTable[name] = row[`t${index}`]));
  }
  return Object.fromEntries(
    Object.entries(rowsByTable).map(([name, rows]) => [
      name,
      rows
        .map((row) => text(withoutUsage(name, row)))
        .sort()
        .join('\n'),
    ]),
  );
}
