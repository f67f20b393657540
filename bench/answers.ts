/**
 * Answers: N signed-in viewers subscribed to one poll's live results each answer it on their own socket
 * within a window (default 10 s). Figures: the answers' acknowledgement latency, whether the final count
 * is exact (database and results), how long after the last answer every viewer held the final count,
 * and the most result pushes any viewer got in one second. Accounts and their JWTs are made directly
 * (in the database, signed as the server signs them): sign-up is slow by design and not what is measured.
 */
import { randomBytes } from 'node:crypto';
import { signSessionToken } from '../shared/auth/credentials';
import { openDatabase } from '../shared/db/client';
import { createSite, percentile, request, startInstance, startWorker, type Instance, callJson as call } from './harness';

export interface AnswerFigures {
  instances: number;
  viewers: number;
  subscribed: number;
  /** Connections made again after the server closed one before its first results (graphql-ws clients retry). */
  reconnects: number;
  answered: number;
  refused: number;
  firstRefusal: string | null;
  ackP50Ms: number;
  ackP99Ms: number;
  ackMaxMs: number;
  /** Answers stored and counted in the results, against the viewers that answered. */
  storedAnswers: number;
  resultsTotal: number;
  finalCountExact: boolean;
  /** From the last answer's acknowledgement until the last viewer held the final count (-1: some never did). */
  finalResultsAtEveryViewerMs: number;
  viewersWithFinalCount: number;
  maxPushesPerSecondPerViewer: number;
}

const now = () => performance.timeOrigin + performance.now();
const round = (value: number) => Math.round(value * 10) / 10;

/** `count` viewer accounts of the site, written straight to the database, and a sign-in JWT for each. */
export async function viewerAccounts(instance: Instance, siteId: string, count: number): Promise<string[]> {
  const database = await openDatabase(instance.env.DATABASE_URL, { migrate: false });
  const tokens: string[] = [];
  try {
    const now = new Date();
    for (let start = 0; start < count; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, count - start) }, () => {
        const id = randomBytes(12).toString('hex');
        return {
          id,
          siteId,
          email: `${id}@bench.test`,
          name: `Viewer ${id.slice(0, 6)}`,
          normalizedName: `viewer ${id.slice(0, 6)}`,
          roles: [],
          tags: [],
          createdAt: now,
          updatedAt: now,
        };
      });
      await database.prisma.account.createMany({ data: rows });
      for (const row of rows) tokens.push(signSessionToken({ sub: row.id, site: siteId, roles: [] }, instance.env.JWT_SECRET, 3600));
    }
  } finally {
    await database.close();
  }
  return tokens;
}

/** The most pushes within any one second. */
function maxPerSecond(times: number[]): number {
  let max = 0;
  for (let first = 0, last = 0; last < times.length; last += 1) {
    while (times[last] - times[first] >= 1000) first += 1;
    max = Math.max(max, last - first + 1);
  }
  return max;
}

export async function measureAnswers(viewers: number, instances: Instance[] = [], windowMs = 10_000): Promise<AnswerFigures> {
  const own = instances.length === 0;
  if (own) instances.push(await startInstance());
  try {
    const [first] = instances;
    const site = createSite(first);
    const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
    const answers = [
      { id: 'a', text: 'A' },
      { id: 'b', text: 'B' },
      { id: 'c', text: 'C' },
    ];
    const poll = await call(first, 'POST', '/poll/v3/', admin, { type: 'poll', name: 'Bench poll', question: 'Which?', answers });
    const tokens = await viewerAccounts(first, site.siteId, viewers);

    const perWorker = Number(process.env.BENCH_ANSWERS_PER_WORKER ?? 3000);
    const workers = Array.from({ length: Math.ceil(viewers / perWorker) }, () => startWorker('answerers.ts'));
    const ready = await Promise.all(
      workers.map((worker, index) => {
        const slice = tokens.slice(index * perWorker, (index + 1) * perWorker);
        const instance = instances[index % instances.length];
        return request(
          worker,
          {
            type: 'start',
            url: `${instance.url.replace('http', 'ws')}/graphql`,
            siteId: site.siteId,
            pollId: poll._id,
            tokens: slice,
            answerIds: slice.map((_, at) => answers[(index * perWorker + at) % 3].id),
            concurrency: 200,
          },
          'ready',
        );
      }),
    );
    const subscribed = ready.reduce((sum, reply) => sum + reply.subscribed, 0);
    const reconnects = ready.reduce((sum, reply) => sum + reply.retries, 0);
    const startAt = now() + 500;
    await Promise.all(workers.map((worker) => request(worker, { type: 'answer', startAt, windowMs }, 'scheduled')));
    // The window, then time for the last acknowledgements and the final pushes (which must come within 1 s).
    await new Promise((resolve) => setTimeout(resolve, startAt - now() + windowMs + 4000));
    const reports = await Promise.all(workers.map((worker) => request(worker, { type: 'report' }, 'report')));
    for (const worker of workers) worker.send({ type: 'close' });

    const all = reports.flatMap((report) => report.viewers as { sentAt: number; ackAt: number; ackError: string | null; pushes: [number, number][] }[]);
    const acked = all.filter((viewer) => viewer.ackAt > 0 && !viewer.ackError);
    const refused = all.filter((viewer) => viewer.ackError);
    const latencies = acked.map((viewer) => viewer.ackAt - viewer.sentAt).sort((a, b) => a - b);
    const lastAck = Math.max(...acked.map((viewer) => viewer.ackAt));
    const results = await call(first, 'GET', `/poll/v3/${poll._id}/results`, { 'x-service-client-id': site.siteId });
    const database = await openDatabase(first.env.DATABASE_URL, { migrate: false });
    const storedAnswers = await database.prisma.pollAnswer.count({ where: { pollId: poll._id } });
    await database.close();
    const finalAt = all.map((viewer) => viewer.pushes.find(([, total]) => total === acked.length)?.[0] ?? Infinity);
    const withFinal = finalAt.filter(Number.isFinite).length;
    return {
      instances: instances.length,
      viewers,
      subscribed,
      reconnects,
      answered: acked.length,
      refused: refused.length,
      firstRefusal: refused[0]?.ackError ?? null,
      ackP50Ms: round(percentile(latencies, 50)),
      ackP99Ms: round(percentile(latencies, 99)),
      ackMaxMs: round(latencies[latencies.length - 1] ?? NaN),
      storedAnswers,
      resultsTotal: results.total,
      finalCountExact: storedAnswers === acked.length && results.total === acked.length,
      finalResultsAtEveryViewerMs: withFinal === all.length ? round(Math.max(...finalAt) - lastAck) : -1,
      viewersWithFinalCount: withFinal,
      maxPushesPerSecondPerViewer: Math.max(...all.map((viewer) => maxPerSecond(viewer.pushes.map(([at]) => at)))),
    };
  } finally {
    if (own) await Promise.all(instances.map((instance) => instance.stop()));
  }
}
