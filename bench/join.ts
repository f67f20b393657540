/**
 * Join storm and reconnect storm on one instance. Join: N viewers open one channel at once — page
 * configuration, content check with their own device ID, live subscription until the late-joiner
 * broadcast arrives. Reconnect: the same N viewers dropped at once come back and have the broadcast
 * again. Each storm reports its wall time and the database statements the instance sent meanwhile.
 */
import { startFloor } from './chat';
import { createSite, request, startInstance, startWorker, type Instance } from './harness';

export interface StormFigures {
  viewers: number;
  failures: number;
  /** From the first request to the last viewer holding the broadcast. */
  seconds: number;
  perSecond: number;
  /** SQL statements the instance sent during the storm. */
  databaseQueries: number;
  firstFailure: string | null;
}

export interface JoinFigures {
  join: StormFigures;
  reconnect: StormFigures;
}

async function call(instance: Pick<Instance, 'url'>, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const reply = await fetch(`${instance.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await reply.json()) as any;
  if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(json)}`);
  return json;
}

/** Statements the instance has sent to its database so far (GET /internal/v1/database-queries). */
export async function databaseQueries(instance: Pick<Instance, 'url' | 'env'>): Promise<number> {
  const reply = await fetch(`${instance.url}/internal/v1/database-queries`, { headers: { 'x-internal-secret': instance.env.INTERNAL_SECRET } });
  return ((await reply.json()) as { queries: number }).queries;
}

const now = () => performance.timeOrigin + performance.now();

/** Instances already running behind one entry (a balancer): the storms go to `url`, statements are summed over `instances`. */
export interface JoinTarget {
  url: string;
  instances: Instance[];
}

/** `dist`: another build to measure (see InstanceOptions.dist); `through`: a fleet to measure instead of a new instance. */
export async function measureJoinStorms(viewers: number, env: Record<string, string> = {}, dist?: string, through?: JoinTarget): Promise<JoinFigures> {
  const started = through ? null : await startInstance({ env, dist });
  const counted = through?.instances ?? [started as Instance];
  const instance = { url: through?.url ?? counted[0].url };
  const statements = async () => (await Promise.all(counted.map(databaseQueries))).reduce((sum, count) => sum + count, 0);
  try {
    const site = createSite(counted[0]);
    const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
    const panels = await Promise.all(
      ['chat', 'store'].map((type) => call(instance, 'POST', '/panel/v3/', admin, { siteId: site.siteId, renderer: { panel_type: type, panel_name: type } })),
    );
    const page = await call(instance, 'POST', '/pages/v3', admin, {
      slug: 'main-stage',
      type: 'channel',
      data: { name: 'Main stage', gate: { active: false, kind: 'none' } },
      renderers: { sidebar: { items: panels.map((panel, index) => ({ array_id: String(index), id: panel._id })) } },
    });
    const overlay = await call(instance, 'POST', '/overlay/v1', admin, {
      name: 'Welcome',
      type: 'template',
      contents: { html: '<b>welcome</b>' },
      duration: 600,
    });
    const { broadcastId } = await call(instance, 'POST', `/overlay/v1/broadcast/${overlay._id}`, admin, { channelId: page._id, duration: 600 });

    return await runStorms(viewers, { url: instance.url, siteId: site.siteId, pageId: page._id, broadcastId }, statements);
  } finally {
    await started?.stop();
  }
}

/** Where a storm goes: the entry's URL, the site and channel, and the live broadcast a joiner waits for. */
interface StormTarget {
  url: string;
  siteId: string;
  pageId: string;
  broadcastId: string;
}

/** The join storm, then the reconnect storm, of `viewers` viewers at `target`; `statements` counts the database's statements so far. */
async function runStorms(viewers: number, target: StormTarget, statements: () => Promise<number>): Promise<JoinFigures> {
  // Two client processes (BENCH_JOIN_WORKERS): the viewers' side shares this machine's two cores with
  // the instance, and every extra process adds scheduling the real viewers' browsers do not cost it.
  const perWorker = Math.ceil(viewers / Number(process.env.BENCH_JOIN_WORKERS ?? 2));
  const workers = Array.from({ length: Math.ceil(viewers / perWorker) }, () => startWorker('joiners.ts'));
  // Worker start-up (tsx) is not part of the storm.
  await new Promise((resolve) => setTimeout(resolve, 2000));

  const storm = async (start: (worker: (typeof workers)[number], index: number, count: number) => Promise<any>): Promise<StormFigures> => {
    const queriesBefore = await statements();
    const startedAt = now();
    let assigned = 0;
    const replies = await Promise.all(
      workers.map((worker, index) => {
        const count = Math.min(perWorker, viewers - assigned);
        assigned += count;
        return start(worker, index, count);
      }),
    );
    const seconds = (Math.max(...replies.map((reply) => reply.at as number)) - startedAt) / 1000;
    const queries = (await statements()) - queriesBefore;
    return {
      viewers,
      failures: replies.reduce((sum, reply) => sum + reply.failures, 0),
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(viewers / seconds),
      databaseQueries: queries,
      firstFailure: replies.find((reply) => reply.firstFailure)?.firstFailure ?? null,
    };
  };

  // 500 viewers in flight at once in all (BENCH_JOIN_CONCURRENCY per worker), as before.
  const concurrency = Number(process.env.BENCH_JOIN_CONCURRENCY ?? Math.ceil(500 / workers.length));
  const join = await storm((worker, index, count) =>
    request(
      worker,
      { type: 'join', url: target.url, siteId: target.siteId, pageId: target.pageId, broadcastId: target.broadcastId, count, concurrency, worker: index },
      'joined',
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const reconnect = await storm((worker) => request(worker, { type: 'reconnect' }, 'reconnected'));
  for (const worker of workers) worker.send({ type: 'close' });
  return { join, reconnect };
}

/**
 * The join floor: the same viewer clients and storms against bench/floor.ts, a bare Node + ws server that
 * answers the two reads with fixed JSON and sends the live broadcast on subscribe, storing nothing.
 */
export async function measureJoinFloor(viewers: number): Promise<JoinFigures> {
  const broadcastId = 'f100f100f100f100f100f100';
  const floor = await startFloor({ FLOOR_BROADCAST_ID: broadcastId });
  try {
    return await runStorms(viewers, { url: floor.url, siteId: 'floor', pageId: '0'.repeat(24), broadcastId }, () => Promise.resolve(0));
  } finally {
    await floor.stop();
  }
}
