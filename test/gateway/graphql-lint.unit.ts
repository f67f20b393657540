/**
 * The supergraph's API schema passes the repo's GraphQL linter (eslint.config.mjs, @graphql-eslint):
 * every type, field, argument, input field, enum value and root field has a description that survived
 * composition, and none of the usual schema smells. The schema is composed afresh from the SDLs here.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { printSchema } from 'graphql';
import { composeSupergraph } from '../../gateway/compose';
import { projectRoot } from '../../shared/paths';

interface LintResult {
  messages: { ruleId: string | null; severity: number; line: number; message: string }[];
}

it('passes the GraphQL linter with 0 errors and 0 warnings', async () => {
  // The file the linter's config names, written as `npm run generate` writes it.
  const schemaPath = join(projectRoot, 'gateway', 'api-schema.generated.graphql');
  writeFileSync(schemaPath, `${printSchema(composeSupergraph().apiSchema)}\n`);
  const eslint = join(projectRoot, 'node_modules', 'eslint', 'bin', 'eslint.js');
  // eslint exits 1 when it finds problems; the report on stdout lists them.
  const { stdout } = await promisify(execFile)(process.execPath, [eslint, '--format', 'json', schemaPath], {
    cwd: projectRoot,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout || `[{"messages":[{"ruleId":null,"severity":2,"line":0,"message":${JSON.stringify(error.stderr)}}]}]`,
  }));
  const results = JSON.parse(stdout) as LintResult[];
  expect(results).toHaveLength(1);
  const problems = results.flatMap((result) => result.messages.map((message) => `${message.ruleId} line ${message.line}: ${message.message}`));
  expect(problems).toEqual([]);
}, 60000);
