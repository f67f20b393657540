/**
 * The OpenAPI document the code builds passes `redocly lint` with the repo's redocly.yaml (the
 * recommended rules; the seeds' trailing-slash paths excepted): no error, no warning.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../rest-bridge/openapi';
import { routes } from '../../rest-bridge/routes';
import { projectRoot } from '../../shared/paths';

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

it('passes redocly lint (recommended rules) with 0 errors and 0 warnings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-openapi-'));
  try {
    const documentPath = join(dir, 'openapi.json');
    writeFileSync(documentPath, JSON.stringify(buildOpenApiDocument(routes)));
    const cli = join(projectRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const args = [cli, 'lint', documentPath, '--config', join(projectRoot, 'redocly.yaml'), '--format=json'];
    // redocly exits 1 when it finds errors; the report on stdout says which.
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: projectRoot, maxBuffer: 64 * 1024 * 1024 }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    const report = JSON.parse(stdout) as LintReport;
    const problems = report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60000);
