/**
 * Applies the SQL migrations in prisma/migrations/<provider>/ in name order, each in its own
 * transaction, recording what was applied in `_stagegraph_migrations`. Prisma 6.19's own
 * `migrate deploy` cannot deserialize PostgreSQL's catalog offline, so the SQL that `migrate diff`
 * wrote is applied here with the plain drivers, the same way for both databases. On PostgreSQL an
 * advisory lock lets several instances start at once.
 */
import { mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { migrationsDir } from '../paths';
import { providerOf, type DbProvider } from './providers';
import { LOCKED_WAIT_MS, SqliteConnection } from './sqlite';

interface Migration {
  name: string;
  sql: string;
}

export function listMigrations(provider: DbProvider): Migration[] {
  const dir = join(migrationsDir, provider);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'migration.sql')))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name, 'migration.sql'), 'utf8') }));
}

const LEDGER = `CREATE TABLE IF NOT EXISTS "_stagegraph_migrations" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`;

/** Path of the SQLite file named by a `file:` URL (relative paths are from the working directory). */
export function sqliteFilePath(databaseUrl: string): string {
  return databaseUrl.slice('file:'.length).replace(/\?.*$/, '');
}

function migrateSqlite(databaseUrl: string, migrations: Migration[]): string[] {
  const file = sqliteFilePath(databaseUrl);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  // Start-up waits (blocking) for another process that is migrating the same file.
  const db = new SqliteConnection(file, LOCKED_WAIT_MS);
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(LEDGER);
    const done = new Set((db.prepare('SELECT name FROM "_stagegraph_migrations"').all() as { name: string }[]).map((row) => row.name));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      db.transaction(() => {
        db.exec(migration.sql);
        db.prepare('INSERT INTO "_stagegraph_migrations" (name, "appliedAt") VALUES (?, ?)').run(migration.name, new Date().toISOString());
      }).immediate();
      applied.push(migration.name);
    }
    return applied;
  } finally {
    db.close();
  }
}

async function migratePostgres(databaseUrl: string, migrations: Migration[]): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(72657)');
    await client.query(LEDGER);
    const { rows } = await client.query<{ name: string }>('SELECT name FROM "_stagegraph_migrations"');
    const done = new Set(rows.map((row) => row.name));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO "_stagegraph_migrations" (name, "appliedAt") VALUES ($1, $2)', [migration.name, new Date().toISOString()]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      applied.push(migration.name);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock(72657)').catch(() => undefined);
    await client.end();
  }
}

/** Brings the database at `databaseUrl` up to date; returns the names of the migrations it applied. */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const provider = providerOf(databaseUrl);
  const migrations = listMigrations(provider);
  if (migrations.length === 0) throw new Error(`no migrations found in ${join(migrationsDir, provider)}`);
  return provider === 'sqlite' ? migrateSqlite(databaseUrl, migrations) : migratePostgres(databaseUrl, migrations);
}
