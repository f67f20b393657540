/** Locations inside the project, found from this file so they hold for sources and for dist/ alike. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot(__dirname);
export const migrationsDir = join(projectRoot, 'prisma', 'migrations');
/** The browser bundles (/sdk/v1/*.js) that scripts/bundle-sdk.ts writes and the gateway serves (git-ignored). */
export const sdkBuildDir = join(projectRoot, 'embed', 'build');
/** The icon browsers show for stagegraph's pages (a 32-pixel PNG in an ICO), served at /favicon.ico. */
export const faviconPath = join(projectRoot, 'embed', 'favicon.ico');
