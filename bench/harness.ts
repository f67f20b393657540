/**
 * Bench harness: starts stagegraph as a child process on free ports with its own SQLite file (or the
 * DATABASE_URL / REDIS_URL given), provisions a site with the CLI, and drives viewer workers.
 */
import { fork, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnTracked } from '../scripts/services';

export const root = join(__dirname, '..');

export { freePort, startPostgres, startRedis } from '../scripts/services';

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

/** The Node.js binary instances run on: this process's own unless a comparison set another (onRuntime). */
let instanceRuntime = process.execPath;

/** Runs `measure` with every instance it starts on the Node.js binary `node` (the same build). */
export async function onRuntime<T>(node: string, measure: () => Promise<T>): Promise<T> {
  const previous = instanceRuntime;
  instanceRuntime = node;
  try {
    return await measure();
  } finally {
    instanceRuntime = previous;
  }
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
    // The bench stops instances with SIGTERM; there is no balancer to drain from.
    SHUTDOWN_GRACE_MS: '0',
    ...extra,
  };
  if (shareWith?.env.REDIS_URL) env.REDIS_URL = shareWith.env.REDIS_URL;
  if (shareWith?.env.REDIS_PREFIX) env.REDIS_PREFIX = shareWith.env.REDIS_PREFIX;
  // BENCH_NODE_ARGS adds flags for the measured process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Tracked: a bench that fails half-way must not leave it behind.
  const child = spawnTracked(instanceRuntime, ['--max-old-space-size=4096', ...nodeArgs, join(dist, 'main.js')], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
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

export function createSite(instance: Pick<Instance, 'dist' | 'env'>): { siteId: string; developerKey: string } {
  const out = execFileSync(process.execPath, [join(instance.dist, 'scripts', 'cli.js'), 'site', 'create', '--name', 'Bench'], {
    env: instance.env,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim()) as { siteId: string; developerKey: string };
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux, 100 clock ticks a second). */
export function cpuMsOf(pid: number): number {
  // The command name (field 2) may hold spaces: the fields after it are counted from its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A new channel page of the admin's site (viewers subscribe only to a site's real channels); its ID. */
export async function createChannelPage(instance: Instance, admin: Record<string, string>, slug: string): Promise<string> {
  return ((await callJson(instance, 'POST', '/pages/v3', admin, { slug, type: 'channel', data: { name: slug } })) as { _id: string })._id;
}

/**
 * A new site on `instance`, its admin's JSON headers (C + D), an overlay of it (`name`, template `html`,
 * `duration` s) to broadcast, and a channel of it for the viewers.
 */
export async function siteWithOverlay(instance: Instance, name: string, html: string, duration: number) {
  const site = createSite(instance);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const reply = await fetch(`${instance.url}/overlay/v1`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name, type: 'template', contents: { html }, duration }),
  });
  const overlay = (await reply.json()) as { _id: string };
  const channel = await createChannelPage(instance, headers, 'main');
  return { site, headers, overlay, channel };
}

/** What a viewers worker (viewers.ts, showViewers.ts) is told to open. */
export interface ViewersStart {
  type: 'start';
  url: string;
  siteId: string;
  channelId: string;
  count: number;
  /** Sockets opened at once. */
  concurrency: number;
  /** Sign-in JWTs, one per viewer (signed-in viewers: their watch time counts for quests, a gated channel's check lets them play); absent = the site ID alone. */
  tokens?: string[];
}

/** A bench worker process (viewers.ts by default), run with tsx, talking over IPC. */
export function startWorker(file = 'viewers.ts'): ChildProcess {
  // --expose-gc: a client collects its garbage when the bench asks, between measurements (bench/fanout.ts).
  return fork(join(__dirname, file), [], { execArgv: ['--expose-gc', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** A JSON call to an instance; anything but 2xx throws with the answer. */
export async function callJson(instance: Instance, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const reply = await fetch(`${instance.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await reply.json()) as any;
  if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(json)}`);
  return json;
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

/** How long one broadcast may take to reach every viewer before the next is sent (ms). */
const RECEIPT_WAIT_MS = 3000;

/**
 * The receipt times (wall-clock ms) of `broadcastId` in each group of client processes, asked every 250 ms
 * until each group has `expected[i]` of them (or RECEIPT_WAIT_MS passed); then every client collects its
 * garbage, so that no collection falls in the middle of the next broadcast (a client's full collection held
 * its receipts for 40–80 ms, in the same broadcast of every run, at the floor too).
 */
export async function receiptsOf(groups: ChildProcess[][], broadcastId: string, expected: number[]): Promise<number[][]> {
  const report = async (group: ChildProcess[]) =>
    (await Promise.all(group.map((worker) => request(worker, { type: 'report', broadcastId }, 'receipts')))).flatMap((receipt) => receipt.times as number[]);
  let times: number[][] = groups.map(() => []);
  for (let waited = 0; waited < RECEIPT_WAIT_MS; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    times = await Promise.all(groups.map(report));
    if (times.every((group, index) => group.length >= expected[index])) break;
  }
  await Promise.all(groups.flat().map((worker) => request(worker, { type: 'collect' }, 'collected')));
  return times;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Resolves once the reference provider's nginx answers on its playback port `url` (it starts after the provider listens). */
export async function untilPlaybackServes(provider: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (provider.exitCode !== null) throw new Error('bench: the reference provider exited');
    if ((await fetch(url).catch(() => null))?.status === 404) return;
    if (Date.now() > deadline) throw new Error('bench: the reference provider did not serve playback within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
