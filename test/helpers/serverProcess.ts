/**
 * How tests start stagegraph's own processes — the quick start's server, fleets, the split services, the
 * CLI: from the TypeScript through tsx, as a developer runs them with no build, or, with
 * STAGEGRAPH_TEST_SERVER=dist (CI, after its `npm start` built), from dist/: what `npm start` and a
 * deployment run.
 */
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** The processes run from dist/ (STAGEGRAPH_TEST_SERVER=dist). */
export const fromBuild = process.env.STAGEGRAPH_TEST_SERVER === 'dist';

/** Node's arguments that run `entry` (a path from the project's root, e.g. `gateway/index.ts`): the source through tsx, or its build. */
export function entryArgs(entry: string): string[] {
  return fromBuild ? [join(root, 'dist', entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(root, entry)];
}
