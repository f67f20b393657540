/** jest globalTeardown: prints how many REST answers were checked against the OpenAPI document during the run, and drops the template database. */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dropTemplateDatabase } from './database';
import { COUNT_DIR_VARIABLE } from './openapiCheck';

export default async function globalTeardown(): Promise<void> {
  await dropTemplateDatabase();
  const dir = process.env[COUNT_DIR_VARIABLE];
  if (!dir) return;
  const total = readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
  console.log(`\nREST answers validated against the OpenAPI document (status and body): ${total}`);
  rmSync(dir, { recursive: true, force: true });
}
