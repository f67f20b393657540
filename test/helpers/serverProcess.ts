/**
 * How tests start stagegraph's own processes — the quick start's server, fleets, the split services, the
 * CLI: from the TypeScript through tsx, as a developer runs them with no build, or, with
 * STAGEGRAPH_TEST_SERVER=dist (CI, after its `npm start` built), from dist/: what `npm start` and a
 * deployment run.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..');

/** The processes run from dist/ (STAGEGRAPH_TEST_SERVER=dist). */
export const fromBuild = process.env.STAGEGRAPH_TEST_SERVER === 'dist';

/** Node's arguments that run `entry` (a path from the project's root, e.g. `gateway/index.ts`): the source through tsx, or its build. */
export function entryArgs(entry: string): string[] {
  return fromBuild ? [join(root, 'dist', entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(root, entry)];
}

/** Runs the CLI (scripts/cli.ts, or its build) with `args` in environment `env`: its stdout and stderr, or a rejection carrying its exit code. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [...entryArgs('scripts/cli.ts'), ...args], { cwd: root, env });
}
