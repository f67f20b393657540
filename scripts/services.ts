/**
 * Private servers on this machine for what runs a whole deployment locally (the fleet script, the bench,
 * the fleet tests): free ports, a redis-server and a PostgreSQL server from Debian's binaries in temp
 * folders, each stopped and removed by its `stop()`. Every child started here is killed when this process
 * exits, so a run that fails half-way leaves none behind.
 */
import { spawn, execFileSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** A server started here: where it is, and how to stop it and remove what it left. */
export interface LocalServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();
process.once('exit', () => {
  // The whole process group: a server started through runuser leaves no postgres behind.
  for (const child of started) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
});

/**
 * Spawns a child that this process kills when it exits. With `detached` it has its own process group,
 * so a Ctrl-C at the terminal reaches only the parent, which then stops its children in order (the
 * fleet script); without, a Ctrl-C reaches them all at once (the bench).
 */
export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, options);
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Sends `signal` and waits for the child to exit. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const done = exited(child);
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await done;
}

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

/** Waits until something accepts connections on the loopback `port`; false after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Whether `command <versionFlag>` runs here. */
export function installed(command: string, versionFlag = '--version'): boolean {
  try {
    execFileSync(command, [versionFlag], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A private redis-server (no persistence) on `port` (default a free one), or null when Redis is not
 * installed here. Starting one again on the same port after `stop()` is a Redis restart.
 */
export async function startRedis(port?: number, options: { detached?: boolean } = {}): Promise<LocalServer | null> {
  if (!installed('redis-server')) return null;
  const chosen = port ?? (await freePort());
  const child = spawnTracked('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
    detached: options.detached,
  });
  if (!(await waitForPort(chosen, 5000))) throw new Error(`redis-server did not start on port ${chosen}`);
  return { url: `redis://127.0.0.1:${chosen}`, port: chosen, stop: () => stopChild(child) };
}

/** Where PostgreSQL's server binaries are: POSTGRES_BIN, else the newest of Debian's /usr/lib/postgresql/<version>/bin. */
function postgresBin(): string | null {
  const candidates = [process.env.POSTGRES_BIN, ...['18', '17', '16', '15', '14'].map((version) => `/usr/lib/postgresql/${version}/bin`)];
  return candidates.find((dir) => dir && installed(join(dir, 'postgres'))) ?? null;
}

/**
 * A private PostgreSQL server (its own data directory in a temp folder, a free port, fsync off: for
 * trying and measuring, not for keeping data), or null when the binaries are not installed here. As
 * root the server runs as the postgres user (runuser), as PostgreSQL refuses to run as root.
 */
export async function startPostgres(options: { detached?: boolean } = {}): Promise<LocalServer | null> {
  const bin = postgresBin();
  if (!bin) return null;
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-pg-'));
  const run = (command: string, args: string[]) => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]) as [string, string[]];
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const [initCommand, initArgs] = run(join(bin, 'initdb'), ['-D', dir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  execFileSync(initCommand, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  const [command, args] = run(join(bin, 'postgres'), [
    '-D',
    dir,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'max_connections=300',
  ]);
  const child = spawnTracked(command, args, { stdio: 'ignore', detached: options.detached });
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    const done = exited(child);
    const [stopCommand, stopArgs] = run(join(bin, 'pg_ctl'), ['stop', '-D', dir, '-m', 'fast']);
    try {
      execFileSync(stopCommand, stopArgs, { stdio: 'ignore' });
    } catch {
      child.kill('SIGKILL');
    }
    await done;
    rmSync(dir, { recursive: true, force: true });
  };
  await waitForPort(port, 20_000);
  // Accepting connections is not yet accepting queries: wait until a query runs.
  const [readyCommand, readyArgs] = [join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres']];
  for (let tries = 0; tries < 100; tries += 1) {
    try {
      execFileSync(readyCommand, readyArgs, { stdio: 'ignore' });
      return { url, port, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await stop();
  throw new Error('PostgreSQL did not start');
}

/** Creates the database `name` on the PostgreSQL server of `adminUrl` (a copy of `template` when given); returns its URL. */
export async function createPostgresDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
