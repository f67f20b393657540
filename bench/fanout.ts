/**
 * Fan-out: N live viewers on one channel of one instance (clients spread over worker processes), then
 * broadcasts one at a time: five that warm the path to these viewers, not counted, then BENCH_FANOUT_BROADCASTS
 * (default 100) measured (see timeBroadcasts); latency from each broadcast call to each viewer's receipt, pooled, and server memory
 * per idle viewer. The floor (bench/floor.ts) is measured the same way, with the same clients.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { viewerAccounts } from './answers';
import { startFloor } from './chat';
import { createChannelPage, createSite, percentile, receiptsOf, request, rssOf, startInstance, startWorker, type Instance } from './harness';

export interface FanoutResult extends BroadcastTimes {
  viewers: number;
  memoryPerViewerKB: number;
  /** Viewers signed in (their watch time counted for a quest of the site) or with the site ID alone. */
  signedIn: boolean;
  /** Watch time written during the run, from the instances' metrics: minute masks and SQL statements. */
  watchTimeRows: number;
  watchTimeStatements: number;
  /** How long the viewers were connected (ms), for reading the two figures above. */
  watchedMs: number;
  /** The server's garbage collections during the measured broadcasts (cold runs). */
  gc?: GcPauses;
}

export interface FanoutOptions {
  /** Viewers sign in (a JWT each): their watch time is counted for a watch quest of the site. */
  signedIn?: boolean;
  /** Extra environment of the instance the run starts (e.g. WATCH_TIME=false for the baseline). */
  env?: Record<string, string>;
  /**
   * As a new user measures it: one broadcast right after the viewers joined, no warm-up, no CPU placement;
   * the server's garbage collections during that broadcast are read around it (`gc`).
   */
  cold?: boolean;
}

/** Garbage collections of a server over a span: how many, their total and (where known) their longest pause. */
export interface GcPauses {
  count: number;
  ms: number;
  maxMs: number | null;
}

/** The server's collections so far, from its /metrics (prom-client's nodejs_gc_duration_seconds, every kind). */
async function gcOfInstance(instance: Instance): Promise<GcPauses> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const total = (suffix: string) =>
    text
      .split('\n')
      .filter((row) => row.startsWith(`nodejs_gc_duration_seconds_${suffix}{`))
      .reduce((sum, row) => sum + Number(row.split(' ').pop()), 0);
  return { count: total('count'), ms: total('sum') * 1000, maxMs: null };
}

const gcBetween = (before: GcPauses, after: GcPauses): GcPauses => ({
  count: after.count - before.count,
  ms: Math.round((after.ms - before.ms) * 10) / 10,
  maxMs: after.maxMs === null ? null : Math.round(after.maxMs * 10) / 10,
});

/** A counter's value in an instance's /metrics (0 when absent). */
async function metricOf(instance: Instance, name: string): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/**
 * Where the scheduler put the measured server and its five client processes differed from run to run on a
 * machine of few cores — a client beside the server waits out its whole pass before it reads, a client on
 * another core reads while the pass goes on — and a run's p99 moved with it: five runs spread 12.7–15.9 % of
 * their median. So, for stagegraph and the floor alike, the server runs on every CPU but the last
 * (BENCH_FANOUT_SERVER_CPUS) and the clients on the last alone (BENCH_FANOUT_CLIENT_CPUS): taskset lists,
 * defaults when there are two CPUs or more, `all` to leave either free. Placed: 9.3, 4.0 and 4.3 % in three
 * sessions. (The clients alone placed gave 8.5 % and 3.3 %, but everyone's p99 rose ~10 % and our p50 read
 * 1.15× the floor's, ~1.0× here: the clients' one core was then part of what a run measured.)
 */
function place(pid: number, variable: string, fallback: string): void {
  const cpus = process.env[variable] ?? (availableParallelism() > 1 ? fallback : 'all');
  // -a: every thread the process has started already; those it starts later inherit the set.
  if (cpus !== 'all' && spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' }).status !== 0) {
    console.warn(`${variable}: taskset could not place process ${pid} on CPU ${cpus}; it runs free`);
  }
}

/** A measured server: on every CPU but the last. */
function placeServer(pid: number): void {
  const last = availableParallelism() - 1;
  place(pid, 'BENCH_FANOUT_SERVER_CPUS', last > 1 ? `0-${last - 1}` : '0');
}

/**
 * The viewers' client processes: on the last CPU when `placed` (above), and at a lower priority than the
 * server they measure (BENCH_FANOUT_CLIENT_NICE, default 10; 0 leaves them as they are). Below the server,
 * clients woken by a fan-out's first frames wait for its pass rather than take its core. (A slow broadcast's
 * server profile showed 50–80 ms without a sample: the server off the CPU, not working. At equal priority the
 * worst of five runs was 1.19× the floor, below it 1.14×.)
 */
function startClients(count: number, placed: boolean): ChildProcess[] {
  const nice = Number(process.env.BENCH_FANOUT_CLIENT_NICE ?? 10);
  return Array.from({ length: count }, () => {
    const worker = startWorker();
    if (nice > 0) setPriority(worker.pid as number, nice);
    if (placed) place(worker.pid as number, 'BENCH_FANOUT_CLIENT_CPUS', String(availableParallelism() - 1));
    return worker;
  });
}

async function gcAndSettle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

/** What the measured broadcasts of a run took to reach the viewers (ms). */
export interface BroadcastTimes {
  /** The fewest viewers a measured broadcast reached. */
  received: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Each measured broadcast's own p99. */
  broadcastP99Ms: number[];
}

/**
 * Sends broadcasts one at a time through `send` (its broadcastId): BENCH_FANOUT_WARMUPS (default 5) warm the
 * path to these viewers and are not counted, then BENCH_FANOUT_BROADCASTS (default 100) are measured. Each is
 * waited for until all `viewers` received it (harness.ts `receiptsOf`). The milliseconds from each call to each
 * receipt, pooled (p50, p99, max), each measured broadcast's own p99, and the fewest viewers a measured one reached.
 * Why 100: the pooled p99 is the slowest 1 % of the receipts, and about one broadcast in twenty is slow, here as
 * at the floor (its write loop held off the CPU for tens of milliseconds). With 20, one slow broadcast was that
 * whole 1 % and a run's p99 was whether it drew one (the same build: 164–191 ms in five runs); with 100, every
 * run holds a few, and its p99 measures how slow they are.
 * (The first broadcasts to fresh connections are slower at the floor as here — by 25–80 % in p99 over the first
 * three or four, then steady — so a run measures the fan-out once its sockets carry traffic, as a live audience's do.)
 */
async function timeBroadcasts(workers: ChildProcess[], viewers: number, send: () => Promise<string>, cold = false): Promise<BroadcastTimes> {
  const measured = cold ? 1 : Number(process.env.BENCH_FANOUT_BROADCASTS ?? 100);
  const warmups = cold ? 0 : Number(process.env.BENCH_FANOUT_WARMUPS ?? 5);
  const latencies: number[] = [];
  const broadcastP99Ms: number[] = [];
  let received = viewers;
  for (let index = -warmups; index < measured; index += 1) {
    const sentAt = performance.timeOrigin + performance.now();
    const broadcastId = await send();
    const [times] = await receiptsOf([workers], broadcastId, [viewers]);
    if (index < 0) continue;
    const own = times.map((at) => at - sentAt).sort((a, b) => a - b);
    latencies.push(...own);
    broadcastP99Ms.push(Math.round(percentile(own, 99)));
    received = Math.min(received, times.length);
  }
  latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    received,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies[latencies.length - 1] ?? NaN),
    broadcastP99Ms,
  };
}

/**
 * `instances`: those to measure (default one started here); viewers are spread over them, or all go to
 * `entry` (a balancer in front of them) when given, and so does the broadcast call.
 */
export async function measureFanout(viewers: number, instances: Instance[] = [], entry?: string, options: FanoutOptions = {}): Promise<FanoutResult> {
  const own = instances.length === 0;
  const cold = options.cold === true;
  // Placed when it is one instance of its own; instances given (a fleet, two sharing a database), or a cold run, run free.
  if (own) {
    instances.push(await startInstance({ env: options.env }));
    if (!cold) placeServer(instances[0].pid);
  }
  const first = { url: entry ?? instances[0].url };
  const site = createSite(instances[0]);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const channel = await createChannelPage(instances[0], headers, 'main');
  // Up for an hour: each broadcast that ends sends its viewers a CLEAR, a pass of its own, and a run of
  // hundreds of broadcasts (BENCH_FANOUT_BROADCASTS) would otherwise measure them side by side after a minute.
  const overlay = (await (
    await fetch(`${first.url}/overlay/v1`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Bench', type: 'template', contents: { html: '<b>${score}</b>' }, duration: 3600 }),
    })
  ).json()) as { _id: string };

  const signedIn = options.signedIn === true;
  let tokens: string[] | null = null;
  if (signedIn) {
    tokens = await viewerAccounts(instances[0], site.siteId, viewers);
    // A quest that counts the channel's watch time: each batch then also adds to its counters.
    await fetch(`${first.url}/quest/v2`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: 'Watch',
        description: 'Watch the match',
        rewardDescription: 'A scarf',
        rewardType: 'prize',
        claimedMessage: 'Yours',
        siteId: site.siteId,
        actions: [{ kind: 'watch:any:video', valueRequired: 3600, channelId: channel }],
      }),
    });
  }
  const watchedBefore = await Promise.all(
    instances.map(async (instance) => [
      await metricOf(instance, 'stagegraph_watch_time_rows_total'),
      await metricOf(instance, 'stagegraph_watch_time_statements_total'),
    ]),
  );
  const connectedAt = Date.now();

  // Warm the path once (document caches, query plans) before measuring, on a channel nobody watches; not when cold.
  if (!cold) {
    const warmup = await createChannelPage(instances[0], headers, 'warmup');
    await fetch(`${first.url}/overlay/v1/broadcast/${overlay._id}`, { method: 'POST', headers, body: JSON.stringify({ channelId: warmup, duration: 1 }) });
  }

  await gcAndSettle();
  const rssBefore = instances.map((instance) => rssOf(instance.pid));
  const perWorker = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
  const workers = startClients(Math.ceil(viewers / perWorker), own && !cold);
  let assigned = 0;
  const ready = await Promise.all(
    workers.map((worker, index) => {
      const count = Math.min(perWorker, viewers - assigned);
      assigned += count;
      const url = entry ?? instances[index % instances.length].url;
      const slice = tokens ? tokens.slice(assigned - count, assigned) : undefined;
      return request(
        worker,
        { type: 'start', url: `${url.replace('http', 'ws')}/graphql`, siteId: site.siteId, channelId: channel, count, concurrency: 200, tokens: slice },
        'ready',
      );
    }),
  );
  const open = ready.reduce((sum, reply) => sum + reply.open, 0);
  // A cold run broadcasts right after the join, as a show's first poll goes out once the audience is in.
  if (!cold) await gcAndSettle();
  const rssAfter = instances.map((instance) => rssOf(instance.pid));
  const memoryPerViewerKB = rssAfter.reduce((sum, rss, index) => sum + rss - rssBefore[index], 0) / open / 1024;

  let score = 0;
  const gcBefore = cold ? await gcOfInstance(instances[0]) : null;
  const times = await timeBroadcasts(
    workers,
    open,
    async () => {
      score += 1;
      const reply = await fetch(`${first.url}/overlay/v1/broadcast/${overlay._id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ channelId: channel, variables: { score: `${score}-0` } }),
      });
      return ((await reply.json()) as { broadcastId: string }).broadcastId;
    },
    cold,
  );
  const gc = gcBefore ? gcBetween(gcBefore, await gcOfInstance(instances[0])) : undefined;
  // Signed-in viewers stay a little longer, so at least one watch-time batch (WATCH_FLUSH_MS, default 10 s) is written and counted.
  if (signedIn) await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_WATCH_HOLD_MS ?? 11_000)));
  const watchedAfter = await Promise.all(
    instances.map(async (instance) => [
      await metricOf(instance, 'stagegraph_watch_time_rows_total'),
      await metricOf(instance, 'stagegraph_watch_time_statements_total'),
    ]),
  );
  const watchedMs = Date.now() - connectedAt;
  for (const worker of workers) worker.send({ type: 'close' });
  if (own) await Promise.all(instances.map((instance) => instance.stop()));
  const written = (index: number) => watchedAfter.reduce((sum, after, at) => sum + after[index] - watchedBefore[at][index], 0);
  return {
    viewers: open,
    ...times,
    memoryPerViewerKB: Math.round(memoryPerViewerKB * 10) / 10,
    signedIn,
    watchTimeRows: written(0),
    watchTimeStatements: written(1),
    watchedMs,
    gc,
  };
}

/**
 * The fan-out section's floor: one SHOW frame from the bare ws server to N viewers (the fan-out's own clients),
 * `placed` as a single instance's fan-out is (above) when it stands beside one.
 */
export async function measureFanoutFloor(
  viewers: number,
  placed = false,
  cold = false,
): Promise<{ viewers: number; received: number; p50Ms: number; p99Ms: number; broadcastP99Ms: number[]; gc?: GcPauses }> {
  const floor = await startFloor();
  if (placed) placeServer(floor.pid);
  try {
    const perWorker = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
    const workers = startClients(Math.ceil(viewers / perWorker), placed);
    let assigned = 0;
    const ready = await Promise.all(
      workers.map((worker) => {
        const count = Math.min(perWorker, viewers - assigned);
        assigned += count;
        return request(
          worker,
          { type: 'start', url: `${floor.url.replace('http', 'ws')}/graphql`, siteId: 'floor', channelId: 'main', count, concurrency: 200 },
          'ready',
        );
      }),
    );
    if (!cold) await gcAndSettle();
    const open = ready.reduce((sum, reply) => sum + reply.open, 0);
    const gcOfFloor = async () => (await (await fetch(`${floor.url}/gc`)).json()) as GcPauses;
    const gcBefore = cold ? await gcOfFloor() : null;
    const times = await timeBroadcasts(
      workers,
      open,
      async () => {
        const { broadcastId } = (await (await fetch(`${floor.url}/broadcast`, { method: 'POST' })).json()) as { broadcastId: string };
        return broadcastId;
      },
      cold,
    );
    const gc = gcBefore ? gcBetween(gcBefore, await gcOfFloor()) : undefined;
    for (const worker of workers) worker.send({ type: 'close' });
    return { viewers: open, ...times, gc };
  } finally {
    await floor.stop();
  }
}
