/**
 * A throwaway database per test file: a SQLite file in a temp folder, or, when DATABASE_URL points at
 * PostgreSQL, a new database on that server (dropped afterwards). Migrations are applied by the stack.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { createPostgresDatabase } from '../../scripts/services';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export const usingPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');
export const usingRedis = Boolean(process.env.REDIS_URL);

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!usingPostgres) {
    const dir = mkdtempSync(join(tmpdir(), 'stagegraph-test-'));
    return { url: `file:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.DATABASE_URL as string;
  const name = `sg_test_${randomBytes(6).toString('hex')}`;
  return {
    url: await createPostgresDatabase(adminUrl, name),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
