/**
 * The one source of models is prisma/schema.prisma (SQLite). This module derives the schema of each
 * database from it: only the datasource provider, its placeholder URL and the client output differ.
 * Build scripts use it to generate both clients and to diff migrations.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../paths';

export const DB_PROVIDERS = ['sqlite', 'postgresql'] as const;
export type DbProvider = (typeof DB_PROVIDERS)[number];

export const sourceSchemaPath = join(projectRoot, 'prisma', 'schema.prisma');

export function providerOf(databaseUrl: string): DbProvider {
  return databaseUrl.startsWith('file:') ? 'sqlite' : 'postgresql';
}

/** The schema text for one provider, derived from the source schema text. */
export function deriveSchema(source: string, provider: DbProvider): string {
  if (provider === 'sqlite') return source;
  const derived = source
    .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
    .replace(/url\s*=\s*"file:[^"]*"/, 'url      = "postgresql://localhost/unused"')
    .replace(/generated\/sqlite"/, 'generated/postgresql"');
  if (derived === source) throw new Error('prisma/schema.prisma: datasource block not in the expected form');
  return derived;
}

export function readSourceSchema(): string {
  return readFileSync(sourceSchemaPath, 'utf8');
}
