/**
 * `npm run db:migration -- NAME`: writes the SQL that brings both databases from the last migrated
 * models (prisma/migrations/schema.snapshot.prisma) to the models in prisma/schema/, as
 * prisma/migrations/{sqlite,postgresql}/<timestamp>_<NAME>/migration.sql, then moves the snapshot.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_PROVIDERS, deriveSchema, readSourceSchema } from '../shared/db/providers';
import { migrationsDir } from '../shared/paths';
import { prisma } from './prisma-cli';

const name = (process.argv[2] ?? '').trim();
if (!/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:migration -- NAME   (NAME: lowercase letters, digits and _)');
  process.exit(2);
}

const snapshotPath = join(migrationsDir, 'schema.snapshot.prisma');
const source = readSourceSchema();
const snapshot = existsSync(snapshotPath) ? readFileSync(snapshotPath, 'utf8') : null;
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const work = mkdtempSync(join(tmpdir(), 'stagegraph-migration-'));

let wrote = 0;
for (const provider of DB_PROVIDERS) {
  const to = join(work, `${provider}.to.prisma`);
  writeFileSync(to, deriveSchema(source, provider));
  const from = snapshot === null ? ['--from-empty'] : ['--from-schema-datamodel', join(work, `${provider}.from.prisma`)];
  if (snapshot !== null) writeFileSync(join(work, `${provider}.from.prisma`), deriveSchema(snapshot, provider));
  const sql = prisma(['migrate', 'diff', ...from, '--to-schema-datamodel', to, '--script']);
  if (!/\b(CREATE|ALTER|DROP)\b/.test(sql)) continue;
  const dir = join(migrationsDir, provider, `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  console.log(`wrote ${dir}/migration.sql`);
  wrote += 1;
}
if (wrote === 0) {
  console.log('no model changes since the last migration');
} else {
  writeFileSync(snapshotPath, source);
}
