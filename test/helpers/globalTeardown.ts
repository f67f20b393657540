/** jest globalTeardown: prints how many REST answers were checked against the OpenAPI document during the run. */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COUNT_DIR_VARIABLE } from './openapiCheck';

export default function globalTeardown(): void {
  const dir = process.env[COUNT_DIR_VARIABLE];
  if (!dir) return;
  const total = readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
  console.log(`\nREST answers validated against the OpenAPI document (status and body): ${total}`);
  rmSync(dir, { recursive: true, force: true });
}
