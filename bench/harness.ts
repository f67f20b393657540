/**
 * Bench harness: starts stagegraph as a child process on free ports with its own SQLite file (or the
 * DATABASE_URL / REDIS_URL given), provisions a site with the CLI, and drives viewer workers.
 */
import { fork, spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = join(__dirname, '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface Instance {
  url: string;
  pid: number;
  env: Record<string, string>;
  stop(): Promise<void>;
}

const SECRETS = {
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
  INTERNAL_SECRET: 'bench-internal-secret-0123456789abcdef0123',
  ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef01234',
};

/**
 * Starts `node dist/main.js` (run `npm run build` first); `shareWith` makes a second instance of the same
 * deployment; `extraEnv` adds configuration (e.g. a rate limit the load must not hit).
 */
export async function startInstance(shareWith?: Instance, extraEnv: Record<string, string> = {}): Promise<Instance> {
  const port = await freePort();
  const base = (await freePort()) + 10;
  const dataDir = mkdtempSync(join(tmpdir(), 'stagegraph-bench-'));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...SECRETS,
    PORT: String(port),
    HOST: '127.0.0.1',
    SUBGRAPH_PORT_BASE: String(base),
    DATA_DIR: dataDir,
    DATABASE_URL: shareWith?.env.DATABASE_URL ?? process.env.DATABASE_URL ?? `file:${join(dataDir, 'bench.db')}`,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  if (shareWith?.env.REDIS_URL) env.REDIS_URL = shareWith.env.REDIS_URL;
  const child = spawn(process.execPath, ['--max-old-space-size=4096', join(root, 'dist', 'main.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      if (tries > 300) throw new Error('stagegraph did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    pid: child.pid as number,
    env,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function createSite(instance: Instance): { siteId: string; developerKey: string } {
  const out = execFileSync(process.execPath, [join(root, 'dist', 'scripts', 'cli.js'), 'site', 'create', '--name', 'Bench'], { env: instance.env, encoding: 'utf8' });
  return JSON.parse(out.trim()) as { siteId: string; developerKey: string };
}

/** Resident memory of a process in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

export function startWorker(): ChildProcess {
  return fork(join(__dirname, 'viewers.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

export function request(worker: ChildProcess, message: object, replyType: string): Promise<any> {
  return new Promise((resolve) => {
    const onMessage = (reply: { type: string }) => {
      if (reply.type !== replyType) return;
      worker.off('message', onMessage);
      resolve(reply);
    };
    worker.on('message', onMessage);
    worker.send(message);
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
