/**
 * `npm run generate`: everything derived from a source of truth, in one step, before build and test.
 *  1. the schema of each database derived from prisma/schema/, and a Prisma client for each;
 *  2. a check that the migrations cover the models (else: run `npm run db:migration -- NAME`);
 *  3. the supergraph composed from the four subgraph SDLs (a composition error stops here);
 *  4. typed resolvers from codegen.yml;
 *  5. the browser bundles /sdk/v1/embed.js and player.js from embed/ (esbuild).
 * Generated files are git-ignored and never edited by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_PROVIDERS, deriveSchema, readSourceSchema } from '../shared/db/providers';
import { migrationsDir, projectRoot } from '../shared/paths';
import { composeSupergraphSdl } from '../gateway/compose';
import { bundleSdk } from './bundle-sdk';
import { prisma } from './prisma-cli';

function step(label: string, run: () => void): void {
  const started = Date.now();
  run();
  console.log(`generate: ${label} (${Date.now() - started} ms)`);
}

const derivedDir = join(projectRoot, 'prisma', '.derived');
const source = readSourceSchema();

step('prisma clients', () => {
  mkdirSync(derivedDir, { recursive: true });
  for (const provider of DB_PROVIDERS) {
    const schemaPath = join(derivedDir, `${provider}.prisma`);
    writeFileSync(schemaPath, deriveSchema(source, provider));
    prisma(['generate', '--schema', schemaPath]);
  }
});

step('migrations cover the models', () => {
  const snapshotPath = join(migrationsDir, 'schema.snapshot.prisma');
  const snapshot = existsSync(snapshotPath) ? readFileSync(snapshotPath, 'utf8') : '';
  const strip = (schema: string) => schema.replace(/\/\/.*$/gm, '').replace(/\s+/g, ' ').trim();
  if (strip(snapshot) !== strip(source)) {
    throw new Error('prisma/schema/ changed since the last migration: run `npm run db:migration -- NAME`');
  }
});

step('supergraph', () => {
  writeFileSync(join(projectRoot, 'gateway', 'supergraph.generated.graphql'), composeSupergraphSdl());
});

step('resolver types', () => {
  execFileSync(process.execPath, [join(projectRoot, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js'), '--config', 'codegen.yml', '--silent'], {
    cwd: projectRoot,
    stdio: 'inherit',
  });
});

step('sdk bundles', bundleSdk);
