/** jest globalSetup: the directory where test processes count the REST answers checked against the OpenAPI document. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COUNT_DIR_VARIABLE } from './openapiCheck';

export default function globalSetup(): void {
  // Set before the workers start, so each inherits it.
  process.env[COUNT_DIR_VARIABLE] = mkdtempSync(join(tmpdir(), 'stagegraph-openapi-count-'));
}
