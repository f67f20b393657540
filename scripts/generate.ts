/**
 * `npm run generate`: everything derived from a source of truth, in one step, before build and test.
 *  1. the schema of each database derived from prisma/schema/, and a Prisma client for each;
 *  2. a check that the migrations cover the models (else: run `npm run db:migration -- NAME`);
 *  3. the supergraph composed from the four subgraph SDLs (a composition error stops here), its API
 *     schema (what the GraphQL linter reads), and every REST route's document validated against it and its
 *     parameter and body schemas compiled;
 *  4. typed resolvers from codegen.yml;
 *  5. the OpenAPI document of the REST paths and a typed client generated from it (openapi-typescript),
 *     the way a legacy client would generate one;
 *  6. the browser bundles /sdk/v1/embed.js and player.js from embed/ (esbuild).
 * Generated files are git-ignored and never edited by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, printSchema, validate } from 'graphql';
import { join } from 'node:path';
import { DB_PROVIDERS, deriveSchema, readSourceSchema } from '../shared/db/providers';
import { migrationsDir, projectRoot } from '../shared/paths';
import { composeSupergraph, KEPT_SUPERGRAPH_PATH, keptSupergraphFile } from '../gateway/compose';
import { buildOpenApiDocument } from '../rest-bridge/openapi';
import { compileEveryInputSchema } from '../rest-bridge/requestInput';
import { routes } from '../rest-bridge/routes';
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
  const strip = (schema: string) =>
    schema
      .replace(/\/\/.*$/gm, '')
      .replace(/\s+/g, ' ')
      .trim();
  if (strip(snapshot) !== strip(source)) {
    throw new Error('prisma/schema/ changed since the last migration: run `npm run db:migration -- NAME`');
  }
});

step('supergraph', () => {
  const { supergraphSdl, apiSchema } = composeSupergraph();
  writeFileSync(KEPT_SUPERGRAPH_PATH, keptSupergraphFile(supergraphSdl));
  writeFileSync(join(projectRoot, 'gateway', 'api-schema.generated.graphql'), `${printSchema(apiSchema)}\n`);
  // A REST route whose document the supergraph no longer accepts would fail only when called: stop here.
  const invalid = routes.flatMap((route) =>
    validate(apiSchema, parse(route.document)).map((error) => `- ${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${error.message}`),
  );
  if (invalid.length) throw new Error(`REST route documents the supergraph refuses:\n${invalid.join('\n')}`);
  // A server compiles a route's schemas on its first request; a schema ajv refuses stops the build instead.
  compileEveryInputSchema(routes);
});

step('resolver types', () => {
  execFileSync(process.execPath, [join(projectRoot, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js'), '--config', 'codegen.yml', '--silent'], {
    cwd: projectRoot,
    stdio: 'inherit',
  });
});

step('OpenAPI document and typed client', () => {
  const generatedDir = join(projectRoot, 'test', 'generated');
  mkdirSync(generatedDir, { recursive: true });
  const documentPath = join(generatedDir, 'openapi.generated.json');
  writeFileSync(documentPath, JSON.stringify(buildOpenApiDocument(routes), null, 2));
  execFileSync(
    process.execPath,
    [
      join(projectRoot, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
      documentPath,
      '--output',
      join(generatedDir, 'openapi.generated.ts'),
      '--silent',
    ],
    {
      cwd: projectRoot,
      stdio: 'inherit',
    },
  );
});

step('sdk bundles', bundleSdk);
