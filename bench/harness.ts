/**
 * Bench harness: starts stagegraph as a child process on free ports with its own SQLite file (or the
 * DATABASE_URL / REDIS_URL given), provisions a site with the CLI, and drives viewer workers.
 */
import { fork, spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = join(__dirname, '..');

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below the kernel's ephemeral range (32768+), where the thousands of client sockets of a
 * fan-out run take theirs; `count` consecutive ports from it are free too.
 */
export async function freePort(count = 1): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const ports = Array.from({ length: count }, (_, index) => base + index);
    if ((await Promise.all(ports.map(portIsFree))).every(Boolean)) return base;
  }
}

export interface Instance {
  url: string;
  /** The build it runs. */
  dist: string;
  pid: number;
  env: Record<string, string>;
  stop(): Promise<void>;
}

const SECRETS = {
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
  INTERNAL_SECRET: 'bench-internal-secret-0123456789abcdef0123',
  ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef01234',
};

export interface InstanceOptions {
  /** Another instance of the same deployment: same database and Redis. */
  shareWith?: Instance;
  /** Extra environment (e.g. REDIS_URL). */
  env?: Record<string, string>;
  /**
   * Another build to run (the `dist` folder of an earlier commit), to measure before and after side by
   * side in one run; default this checkout's dist.
   */
  dist?: string;
}

/** Processes the bench started; a bench that fails half-way must not leave them behind. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

function killAtExit(child: ChildProcess): void {
  started.add(child);
  child.once('exit', () => started.delete(child));
}

/** Starts `node dist/main.js` (run `npm run build` first) on free ports. */
export async function startInstance({ shareWith, env: extra = {}, dist = join(root, 'dist') }: InstanceOptions = {}): Promise<Instance> {
  const port = await freePort();
  // Subgraphs listen on base+1..base+4.
  const base = await freePort(5);
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
    ...extra,
  };
  if (shareWith?.env.REDIS_URL) env.REDIS_URL = shareWith.env.REDIS_URL;
  if (shareWith?.env.REDIS_PREFIX) env.REDIS_PREFIX = shareWith.env.REDIS_PREFIX;
  // BENCH_NODE_ARGS adds flags for the measured process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, ['--max-old-space-size=4096', ...nodeArgs, join(dist, 'main.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  killAtExit(child);
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
    dist,
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
  const out = execFileSync(process.execPath, [join(instance.dist, 'scripts', 'cli.js'), 'site', 'create', '--name', 'Bench'], { env: instance.env, encoding: 'utf8' });
  return JSON.parse(out.trim()) as { siteId: string; developerKey: string };
}

/** Resident memory of a process in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A bench worker process (viewers.ts by default), run with tsx, talking over IPC. */
export function startWorker(file = 'viewers.ts'): ChildProcess {
  return fork(join(__dirname, file), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

/** Waits until something accepts connections on the loopback `port`, for at most `timeoutMs`. */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A private redis-server on a free port, or null when Redis is not installed here. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> } | null> {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  killAtExit(child);
  await waitForPort(port, 5000);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Where PostgreSQL's server binaries are looked for: POSTGRES_BIN, else the Debian places. */
function postgresBin(): string | null {
  const candidates = [process.env.POSTGRES_BIN, '/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];
  for (const dir of candidates) {
    if (!dir) continue;
    try {
      execFileSync(join(dir, 'postgres'), ['--version'], { stdio: 'ignore' });
      return dir;
    } catch {
      // not there
    }
  }
  return null;
}

/**
 * A private PostgreSQL server (its own data directory, a free port, fsync off: a bench, not a store),
 * or null when the binaries are not installed here. As root the server runs as the postgres user.
 */
export async function startPostgres(): Promise<{ url: string; stop(): Promise<void> } | null> {
  const bin = postgresBin();
  if (!bin) return null;
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-bench-pg-'));
  const run = (command: string, args: string[]) => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]) as [string, string[]];
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const [initCommand, initArgs] = run(join(bin, 'initdb'), ['-D', dir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  execFileSync(initCommand, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  const [command, args] = run(join(bin, 'postgres'), ['-D', dir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'max_connections=200']);
  const child = spawn(command, args, { stdio: 'ignore' });
  killAtExit(child);
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  await waitForPort(port, 20_000);
  // Accepting connections is not yet accepting queries: wait for the server to finish starting.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return {
    url,
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const [stopCommand, stopArgs] = run(join(bin, 'pg_ctl'), ['stop', '-D', dir, '-m', 'fast']);
      execFileSync(stopCommand, stopArgs, { stdio: 'ignore' });
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
