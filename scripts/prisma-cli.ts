/** Runs the Prisma CLI of node_modules (build-time only) and returns its standard output. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../shared/paths';

export function prisma(args: string[]): string {
  return execFileSync(process.execPath, [join(projectRoot, 'node_modules', 'prisma', 'build', 'index.js'), ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
