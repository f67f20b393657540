/**
 * The runtime comparison: the same build on this process's Node.js (the one `npm ci` installed) and on
 * a baseline Node.js (BENCH_BASELINE_NODE, default the first other `node` on PATH: the machine's), in
 * one run, section by section, each runtime on a fresh database: gateway, fan-out, join storm, answers.
 * It runs on a private PostgreSQL + Redis: SQLite is node:sqlite, which Node.js 20 does not have.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { measureAnswers } from './answers';
import { measureFanout } from './fanout';
import { measureGateway } from './gateway';
import { onRuntime, startInstance, startPostgres, startRedis } from './harness';
import { createPostgresDatabase } from '../scripts/services';
import { measureJoinStorms } from './join';

export interface RuntimeFigures {
  runtimes: { baseline: string; current: string };
  /** Each figure on the baseline, on the current runtime, and current / baseline. */
  figures: Record<string, { baseline: number; current: number; ratio: number }>;
}

const versionOf = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

/** BENCH_BASELINE_NODE, or the first `node` on PATH that is not this process's binary. */
function baselineNode(): string | null {
  if (process.env.BENCH_BASELINE_NODE) return process.env.BENCH_BASELINE_NODE;
  const own = realpathSync(process.execPath);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    if (existsSync(candidate) && realpathSync(candidate) !== own) return candidate;
  }
  return null;
}

type Measure = (env: Record<string, string>) => Promise<Record<string, number>>;

/** `viewers` for fan-out and the join storm, `answerers` for answers; a reason when it cannot run here. */
export async function measureRuntimes(viewers: number, answerers: number): Promise<RuntimeFigures | string> {
  const baseline = baselineNode();
  if (!baseline) return 'not measured: no other Node.js on PATH (set BENCH_BASELINE_NODE)';
  const runtimes = { baseline: versionOf(baseline), current: process.version };
  if (runtimes.baseline === runtimes.current) return `not measured: the baseline is this runtime (${runtimes.current})`;
  const postgres = await startPostgres();
  const redis = postgres && (await startRedis());
  if (!postgres || !redis) {
    await postgres?.stop();
    return 'not measured: the PostgreSQL server binaries or redis-server are not installed here';
  }
  const withInstance =
    (measure: (instance: Awaited<ReturnType<typeof startInstance>>) => Promise<Record<string, number>>): Measure =>
    async (env) => {
      const instance = await startInstance({ env });
      try {
        return await measure(instance);
      } finally {
        await instance.stop();
      }
    };
  const sections: Record<string, Measure> = {
    gateway: withInstance(async (instance) => {
      const figures = await measureGateway(instance);
      return {
        'gateway p50 ms': figures.gateway.p50Ms,
        'gateway requests/s': figures.gateway.requestsPerSecond,
        'REST p50 ms': figures.rest.p50Ms,
        'REST requests/s': figures.rest.requestsPerSecond,
      };
    }),
    fanout: withInstance(async (instance) => {
      const figures = await measureFanout(viewers, [instance]);
      return { 'fan-out p50 ms': figures.p50Ms, 'fan-out p99 ms': figures.p99Ms, 'fan-out KB per idle viewer': figures.memoryPerViewerKB };
    }),
    join: async (env) => {
      const figures = await measureJoinStorms(viewers, env);
      return { 'join storm s': figures.join.seconds, 'reconnect storm s': figures.reconnect.seconds };
    },
    answers: withInstance(async (instance) => {
      const figures = await measureAnswers(answerers, [instance]);
      return { 'answer ack p50 ms': figures.ackP50Ms, 'answer ack p99 ms': figures.ackP99Ms };
    }),
  };
  const figures: RuntimeFigures['figures'] = {};
  try {
    let run = 0;
    for (const [index, [name, measure]] of Object.entries(sections).entries()) {
      const results: Record<string, Record<string, number>> = {};
      // Each on a database and a Redis prefix of its own; which runtime goes first alternates by section,
      // so a machine getting busier or quieter during the run does not favour one.
      const order = [
        ['baseline', baseline],
        ['current', process.execPath],
      ] as const;
      for (const [label, node] of index % 2 === 0 ? order : [...order].reverse()) {
        run += 1;
        const env = {
          DATABASE_URL: await createPostgresDatabase(postgres.url, `bench_runtime_${run}`),
          REDIS_URL: redis.url,
          REDIS_PREFIX: `bench-runtime-${run}`,
        };
        results[label] = await onRuntime(node, () => measure(env));
        console.log(`runtimes: ${name} on ${runtimes[label]} done`);
      }
      for (const [figure, value] of Object.entries(results.current)) {
        const before = results.baseline[figure];
        figures[figure] = { baseline: before, current: value, ratio: Math.round((value / before) * 100) / 100 };
      }
    }
  } finally {
    await redis.stop();
    await postgres.stop();
  }
  return { runtimes, figures };
}
