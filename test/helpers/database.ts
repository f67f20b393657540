/**
 * A throwaway database per test file: a SQLite file in a temp folder, or, when DATABASE_URL points at
 * PostgreSQL, a new database on that server (dropped afterwards). Each starts as a copy of one database the
 * run migrated once (globalSetup), so a file's stacks do not each apply every migration; the stack still
 * runs its migrations on open, which then find nothing to apply. The migrations themselves are tested from
 * empty databases (test/operations/).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { createPostgresDatabase } from '../../scripts/services';
import { migrateDatabase } from '../../shared/db/migrate';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export const usingPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');
export const usingRedis = Boolean(process.env.REDIS_URL);

/** Set by globalSetup for the workers: the migrated SQLite file, or the name of the migrated PostgreSQL database. */
const TEMPLATE_VARIABLE = 'STAGEGRAPH_TEST_TEMPLATE_DATABASE';

async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** globalSetup: the run's migrated database that every test database is copied from. */
export async function createTemplateDatabase(): Promise<void> {
  if (usingPostgres) {
    const name = `sg_template_${randomBytes(6).toString('hex')}`;
    await migrateDatabase(await createPostgresDatabase(process.env.DATABASE_URL as string, name));
    process.env[TEMPLATE_VARIABLE] = name;
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-template-'));
  await migrateDatabase(`file:${join(dir, 'migrating.db')}`);
  // One self-contained file (nothing left in a WAL beside it) that a copy can start from.
  const db = new DatabaseSync(join(dir, 'migrating.db'));
  db.exec(`VACUUM INTO '${join(dir, 'template.db')}'`);
  db.close();
  process.env[TEMPLATE_VARIABLE] = join(dir, 'template.db');
}

/** globalTeardown: drops the template. */
export async function dropTemplateDatabase(): Promise<void> {
  const template = process.env[TEMPLATE_VARIABLE];
  if (!template) return;
  if (usingPostgres) await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  else rmSync(join(template, '..'), { recursive: true, force: true });
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_VARIABLE];
  if (!usingPostgres) {
    const dir = mkdtempSync(join(tmpdir(), 'stagegraph-test-'));
    if (template) copyFileSync(template, join(dir, 'test.db'));
    return { url: `file:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.DATABASE_URL as string;
  const name = `sg_test_${randomBytes(6).toString('hex')}`;
  return {
    url: await createPostgresDatabase(adminUrl, name, template),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
