/**
 * `npm run fleet -- --instances N --port P`: N stagegraph instances from one build behind HAProxy on
 * port P (deploy/haproxy.cfg, its `server` lines filled in), sharing the PostgreSQL and Redis of
 * DATABASE_URL / REDIS_URL, or a private PostgreSQL and Redis started here in temp folders when those
 * are not given. Ctrl-C or SIGTERM stops everything it started and removes its temp folders.
 *
 * `startFleet` is the same thing as a function: the fleet tests and the bench's fleet section start
 * their fleets with it, and drive its instances (kill -9, a drain, a restart on the same port).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config';
import { build } from './build';
import { exited, freePort, installed, spawnTracked, startPostgres, startRedis, stopChild, waitForPort, type LocalServer } from './services';

const root = join(__dirname, '..');

export interface FleetOptions {
  /** How many instances (default 3). */
  instances?: number;
  /** The port HAProxy listens on (0: a free one). */
  port: number;
  /** The interface HAProxy and the instances listen on (default 127.0.0.1: this machine only). */
  host?: string;
  /** PostgreSQL to share (`postgresql://…`); none: a private server started here. */
  databaseUrl?: string | null;
  /** Redis to share; none: a private redis-server started here. */
  redisUrl?: string | null;
  /** More environment for every instance (SHUTDOWN_GRACE_MS, LOG_LEVEL, REDIS_PREFIX, secrets…). */
  env?: Record<string, string>;
  /**
   * What the instances run: `dist` (default; built first when dist/ is missing or was built from other
   * sources, as `npm start` does) or `source` (the TypeScript through tsx, no build: the tests).
   */
  from?: 'dist' | 'source';
  /** Where the instances' and HAProxy's output goes (default inherit: this terminal). */
  output?: 'inherit' | 'ignore';
  /** Where secrets are kept when a shared DATABASE_URL is given (default ./data, as `npm start`). */
  dataDir?: string;
  /**
   * A folder to write Prometheus's view of the fleet into (deploy/prometheus.yml reads deploy/fleet/):
   * `targets.json`, the instances for file-based service discovery, and `metrics-token`, the bearer token
   * of their /metrics (METRICS_TOKEN when given, else one made here and given to the instances). Both
   * files are removed when the fleet stops. None: nothing is written.
   */
  prometheusDir?: string;
}

export interface FleetInstance {
  /** Its name in HAProxy (app1, app2, …). */
  name: string;
  port: number;
  url: string;
  pid(): number | undefined;
  running(): boolean;
  /** Sends `signal` (SIGTERM drains, SIGKILL is a crash) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it (again) on its port; resolves when its /ready answers 200. */
  start(): Promise<void>;
}

export interface Fleet {
  /** The balancer's URL: what clients use. */
  url: string;
  port: number;
  instances: FleetInstance[];
  databaseUrl: string;
  redisUrl: string;
  /** The environment every instance runs with (the CLI of this deployment needs the same). */
  env: Record<string, string>;
  /** HAProxy's state of each server by name (UP, DOWN, MAINT, …), read from its admin socket. */
  serverStates(): Promise<Record<string, string>>;
  /** HAProxy's `show info` (Maxconn: the connections it takes, from the open-files limit; CurrConns…). */
  balancerInfo(): Promise<Record<string, string>>;
  /** Waits until HAProxy sees `name` in `state`. */
  waitForServer(name: string, state: 'UP' | 'DOWN', timeoutMs?: number): Promise<void>;
  /** Stops the instances, HAProxy and the private servers, and removes the temp folders. */
  stop(): Promise<void>;
}

/**
 * HAProxy's configuration for this fleet: deploy/haproxy.cfg as written, with its `bind` line on
 * `host:port`, its admin socket in `socketPath` and one `server` line per instance.
 */
export function fleetHaproxyConfig(host: string, port: number, socketPath: string, servers: { name: string; port: number }[]): string {
  const template = readFileSync(join(root, 'deploy', 'haproxy.cfg'), 'utf8');
  let serversWritten = false;
  return template
    .split('\n')
    .flatMap((line) => {
      if (/^\s*bind\s/.test(line)) return [`    bind ${host}:${port}`];
      if (/^\s*stats socket\s/.test(line)) return [line.replace(/stats socket \S+/, `stats socket ${socketPath}`)];
      if (/^\s*server\s/.test(line)) {
        if (serversWritten) return [];
        serversWritten = true;
        return servers.map((server) => `    server ${server.name} 127.0.0.1:${server.port}`);
      }
      return [line];
    })
    .join('\n');
}

/** Sends one command to HAProxy's admin socket and returns its answer. */
function adminCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.end(`${command}\n`));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/**
 * Prometheus's view of the fleet: its instances as file_sd target groups (labelled with their HAProxy
 * names) and the token of their /metrics. Each file is written whole and renamed into place, since
 * Prometheus reads the targets again as soon as the file changes.
 */
export function writePrometheusFiles(files: { targets: string; token: string }, instances: { name: string; port: number }[], token: string): void {
  mkdirSync(dirname(files.targets), { recursive: true });
  const groups = instances.map((instance) => ({ targets: [`127.0.0.1:${instance.port}`], labels: { server: instance.name } }));
  for (const [path, body, mode] of [
    [files.token, token, 0o600],
    [files.targets, `${JSON.stringify(groups, null, 2)}\n`, 0o644],
  ] as const) {
    writeFileSync(`${path}.tmp`, body, { mode });
    renameSync(`${path}.tmp`, path);
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`fleet: ${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const count = options.instances ?? 3;
  const host = options.host ?? '127.0.0.1';
  const from = options.from ?? 'dist';
  const stdio = options.output ?? 'inherit';
  if (!installed('haproxy', '-v')) throw new Error('fleet: haproxy is not installed (apt-get install haproxy)');
  if (from === 'dist') build({ ifStale: true });

  const temp = mkdtempSync(join(tmpdir(), 'stagegraph-fleet-'));
  const privateServers: LocalServer[] = [];
  const children = new Set<ChildProcess>();
  let haproxy: ChildProcess | null = null;
  const prometheusFiles = options.prometheusDir
    ? { targets: join(options.prometheusDir, 'targets.json'), token: join(options.prometheusDir, 'metrics-token') }
    : null;
  const cleanup = async () => {
    await Promise.all([...children].map((child) => stopChild(child, 'SIGINT')));
    if (haproxy) await stopChild(haproxy, 'SIGTERM');
    for (const server of privateServers.reverse()) await server.stop();
    rmSync(temp, { recursive: true, force: true });
    if (prometheusFiles) for (const file of Object.values(prometheusFiles)) rmSync(file, { force: true });
  };

  try {
    let databaseUrl = options.databaseUrl ?? null;
    if (!databaseUrl) {
      const postgres = await startPostgres({ detached: true });
      if (!postgres) throw new Error('fleet: no DATABASE_URL given and PostgreSQL is not installed here (/usr/lib/postgresql/*/bin)');
      privateServers.push(postgres);
      databaseUrl = postgres.url;
    }
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('fleet: instances share one database, so DATABASE_URL must be PostgreSQL');
    let redisUrl = options.redisUrl ?? null;
    if (!redisUrl) {
      const redis = await startRedis(undefined, { detached: true });
      if (!redis) throw new Error('fleet: no REDIS_URL given and redis-server is not installed here');
      privateServers.push(redis);
      redisUrl = redis.url;
    }

    // Every instance signs and encrypts with the same secrets: those given, else the ones kept in the data
    // folder (generated there once, as `npm start` does; the private database's in the temp folder).
    const dataDir = options.databaseUrl ? (options.dataDir ?? join(process.cwd(), 'data')) : join(temp, 'data');
    const kept = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...options.env });
    // Prometheus scrapes with a bearer token, as it would off this host: the one given, or one for this fleet.
    const metricsToken = kept.metricsToken ?? (prometheusFiles ? randomBytes(24).toString('base64url') : null);
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      LOG_LEVEL: 'warn',
      ...options.env,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      JWT_SECRET: kept.jwtSecret,
      INTERNAL_SECRET: kept.internalSecret,
      ENCRYPTION_KEY: kept.encryptionKey,
      ...(metricsToken ? { METRICS_TOKEN: metricsToken } : {}),
    };

    const instances: FleetInstance[] = [];
    for (let index = 1; index <= count; index += 1) {
      const port = await freePort();
      const name = `app${index}`;
      // Without a terminal to show it, each instance's output goes to a log in the temp folder, and a
      // start that fails says what the instance said.
      const logPath = join(temp, `${name}.log`);
      const url = `http://127.0.0.1:${port}`;
      let child: ChildProcess | null = null;
      const running = () => child !== null && child.exitCode === null && child.signalCode === null;
      instances.push({
        name,
        port,
        url,
        pid: () => child?.pid,
        running,
        async stop(signal: NodeJS.Signals = 'SIGTERM') {
          if (child) await stopChild(child, signal);
        },
        async start() {
          if (running()) throw new Error(`fleet: ${name} is running`);
          const args = from === 'dist' ? [join(root, 'dist', 'main.js')] : ['--import', 'tsx', join(root, 'main.ts')];
          const output = stdio === 'inherit' ? 'inherit' : openSync(logPath, 'a');
          const started = spawnTracked(process.execPath, args, {
            cwd: root,
            // Subgraphs on ports the system picks: only the public port must stay the same across restarts.
            env: { ...env, PORT: String(port), SUBGRAPH_PORT_BASE: '0' },
            stdio: ['ignore', output, output],
            detached: true,
          });
          if (typeof output === 'number') closeSync(output);
          child = started;
          children.add(started);
          void exited(started).then(() => children.delete(started));
          const lastWords = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8').slice(-2000) : '(its output went to this terminal)');
          const deadline = Date.now() + 240_000;
          for (;;) {
            if (started.exitCode !== null || started.signalCode !== null)
              throw new Error(`fleet: ${name} exited while starting (${started.exitCode ?? started.signalCode}); its last words:\n${lastWords()}`);
            if (
              (await fetch(`${url}/ready`).then(
                (reply) => reply.status,
                () => 0,
              )) === 200
            )
              break;
            if (Date.now() > deadline) throw new Error(`fleet: ${name} not ready within 240 s; its last words:\n${lastWords()}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        },
      });
    }
    // One at a time: the first applies the migrations, the others find them done.
    await instances[0].start();
    await Promise.all(instances.slice(1).map((instance) => instance.start()));
    if (prometheusFiles) writePrometheusFiles(prometheusFiles, instances, metricsToken as string);

    const port = options.port || (await freePort());
    const socketPath = join(temp, 'haproxy.sock');
    const configPath = join(temp, 'haproxy.cfg');
    writeFileSync(configPath, fleetHaproxyConfig(host, port, socketPath, instances));
    haproxy = spawnTracked('haproxy', ['-db', '-f', configPath], { stdio: ['ignore', stdio, stdio], detached: true });
    if (!(await waitForPort(port, 10_000))) throw new Error('fleet: HAProxy did not start');

    const serverStates = async () => {
      const states: Record<string, string> = {};
      for (const line of (await adminCommand(socketPath, 'show stat')).split('\n')) {
        const fields = line.split(',');
        // pxname, svname, …, status is the 18th field of `show stat`.
        if (fields[0] === 'stagegraph' && fields[1] !== 'BACKEND') states[fields[1]] = fields[17];
      }
      return states;
    };
    const balancerInfo = async () =>
      Object.fromEntries(
        (await adminCommand(socketPath, 'show info'))
          .split('\n')
          .map((line) => line.split(': '))
          .filter((pair) => pair.length === 2),
      ) as Record<string, string>;
    const waitForServer = (name: string, state: 'UP' | 'DOWN', timeoutMs = 30_000) =>
      waitUntil(async () => ((await serverStates())[name] ?? '').startsWith(state), timeoutMs, `${name} ${state} in HAProxy`);
    for (const instance of instances) await waitForServer(instance.name, 'UP');

    let stopping: Promise<void> | null = null;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      instances,
      databaseUrl,
      redisUrl,
      env,
      serverStates,
      balancerInfo,
      waitForServer,
      stop: () => (stopping ??= cleanup()),
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * What a fleet started here runs with that a production deployment does not: said in its banner (and the
 * README), so nobody takes its speed or its durability for a deployment's.
 */
export function fleetDifferences(options: { logLevel: string; privateDatabase: boolean; privateRedis: boolean }): string[] {
  return [
    `instances log at ${options.logLevel} (LOG_LEVEL=${options.logLevel}; production's default is info)`,
    'HAProxy and the instances listen on 127.0.0.1 only (production: HOST, default 0.0.0.0, behind your balancer)',
    ...(options.privateDatabase
      ? [
          'the private PostgreSQL runs with fsync=off and synchronous_commit=off (faster; a crash of the machine loses what it acknowledged), max_connections=300, trust auth on loopback, its data in a temp folder removed on exit',
        ]
      : []),
    ...(options.privateRedis ? ['the private Redis keeps nothing on disk (no RDB snapshots, no AOF) and is removed on exit'] : []),
  ];
}

/** Hides a password in a URL for printing. */
const redacted = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { instances: { type: 'string', default: '3' }, port: { type: 'string', default: '8080' } } });
  const instances = Number(values.instances);
  const port = Number(values.port);
  if (!Number.isInteger(instances) || instances < 1 || instances > 32) throw new Error('--instances must be a whole number from 1 to 32');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a port number');
  // A tool like the bench: it reads the two URLs a user points it at and hands them to the instances.
  const logLevel = process.env.LOG_LEVEL || 'warn';
  const fleet = await startFleet({
    instances,
    port,
    databaseUrl: process.env.DATABASE_URL || null,
    redisUrl: process.env.REDIS_URL || null,
    // The instances read METRICS_TOKEN from the environment anyway: passed on here so Prometheus gets the same one.
    env: { LOG_LEVEL: logLevel, ...(process.env.METRICS_TOKEN ? { METRICS_TOKEN: process.env.METRICS_TOKEN } : {}) },
    prometheusDir: join(root, 'deploy', 'fleet'),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the fleet\n`);
    fleet.stop().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const lines = [
    `stagegraph fleet on ${fleet.url} (HAProxy from deploy/haproxy.cfg, ${instances} instance${instances > 1 ? 's' : ''})`,
    ...fleet.instances.map((instance) => `  ${instance.name}  ${instance.url}  pid ${instance.pid()}`),
    `  PostgreSQL ${redacted(fleet.databaseUrl)}${process.env.DATABASE_URL ? '' : ' (private, removed on exit)'}`,
    `  Redis      ${redacted(fleet.redisUrl)}${process.env.REDIS_URL ? '' : ' (private, removed on exit)'}`,
    'Not as in production (a fleet to try on one machine):',
    ...fleetDifferences({ logLevel, privateDatabase: !process.env.DATABASE_URL, privateRedis: !process.env.REDIS_URL }).map((line) => `  - ${line}`),
    'First credentials:',
    `  DATABASE_URL=${process.env.DATABASE_URL ? '$DATABASE_URL' : fleet.databaseUrl} DATA_DIR=${fleet.env.DATA_DIR} npm run --silent cli -- site create --name "My site"`,
    'Prometheus (targets and token in deploy/fleet/): prometheus --config.file=deploy/prometheus.yml --storage.tsdb.path=data/prometheus',
    'Try a drain: kill -TERM <pid>; a crash: kill -9 <pid>. Ctrl-C (or SIGTERM to this process) stops everything.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
