/**
 * jest globalSetup: the directory where test processes count the REST answers checked against the OpenAPI
 * document, and the migrated database each test file's database is copied from.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTemplateDatabase } from './database';
import { COUNT_DIR_VARIABLE } from './openapiCheck';

export default async function globalSetup(): Promise<void> {
  // Set before the workers start, so each inherits them.
  process.env[COUNT_DIR_VARIABLE] = mkdtempSync(join(tmpdir(), 'stagegraph-openapi-count-'));
  await createTemplateDatabase();
}
