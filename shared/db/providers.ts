/**
 * The one source of models is the prisma/schema/ folder (SQLite form): `_datasource.prisma` and one
 * file per subgraph. This module joins it and derives the schema of each database: only the datasource
 * provider, its placeholder URL and the client output differ. Build scripts use it to generate both
 * clients and to diff migrations.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../paths';

export const DB_PROVIDERS = ['sqlite', 'postgresql'] as const;
export type DbProvider = (typeof DB_PROVIDERS)[number];

export const sourceSchemaDir = join(projectRoot, 'prisma', 'schema');

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
  if (derived === source) throw new Error('prisma/schema/_datasource.prisma: datasource block not in the expected form');
  return derived;
}

/** The source folder joined into one schema, `_datasource.prisma` first, then by file name. */
export function readSourceSchema(): string {
  return readdirSync(sourceSchemaDir)
    .filter((name) => name.endsWith('.prisma'))
    .sort()
    .map((name) => readFileSync(join(sourceSchemaDir, name), 'utf8').trimEnd())
    .join('\n\n')
    .concat('\n');
}
