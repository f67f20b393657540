/**
 * What metrics cost: the gateway's p50 for one overlay query with metrics on (the default, tracing off)
 * over the same with METRICS=off, two instances side by side in one run, measured in alternating rounds
 * so a busy neighbour on the machine hits both alike. METRICS=off exists for this baseline only; the
 * per-request trace id for logs runs in both, so the figure is the cost of recording and serving metrics.
 *
 * Latencies are timed per request here (closed loop, keep-alive, like autocannon) because autocannon
 * reports whole milliseconds, too coarse for a 5 % budget on a request of a few milliseconds.
 */
import { Agent, request } from 'node:http';
import { createSite, percentile, startInstance, type Instance } from './harness';

interface Figures {
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
  errors: number;
}

export interface ObservabilityFigures {
  /** This build with METRICS=off, or the build at BENCH_BEFORE_DIST. */
  metricsOff: Figures;
  metricsOn: Figures;
  baseline: string;
  /** Metrics on / off p50 (target ≤ 1.05). */
  p50Ratio: number;
  rounds: number;
}

const QUERY = /* GraphQL */ `query Overlays { overlays { id name type duration } }`;
const CONNECTIONS = 10;

interface Target {
  url: URL;
  headers: Record<string, string>;
  body: string;
  agent: Agent;
}

/** `connections` loops sending the query back to back for `seconds`; every latency in ms. */
async function closedLoop(target: Target, seconds: number): Promise<{ latencies: number[]; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const once = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(target.url, { method: 'POST', headers: target.headers, agent: target.agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) latencies.push(performance.now() - started);
          else errors += 1;
          resolve();
        });
      });
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(target.body);
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
  return { latencies, errors };
}

async function prepare(instance: Instance): Promise<Target> {
  const site = createSite(instance);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  for (let index = 0; index < 5; index += 1) {
    await fetch(`${instance.url}/overlay/v1`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `Overlay ${index}`, type: 'instance', contents: { text: 'hello' }, duration: 10 }),
    });
  }
  const target = {
    url: new URL(`${instance.url}/graphql`),
    headers,
    body: JSON.stringify({ query: QUERY }),
    agent: new Agent({ keepAlive: true, maxSockets: CONNECTIONS }),
  };
  await closedLoop(target, 2);
  return target;
}

/**
 * `baselineDist` (BENCH_BEFORE_DIST): another build's dist folder — e.g. the commit before metrics
 * existed — to run as the baseline instead of this build with METRICS=off.
 */
export async function measureObservability(
  rounds = Number(process.env.BENCH_ROUNDS ?? 6),
  baselineDist = process.env.BENCH_BEFORE_DIST,
): Promise<ObservabilityFigures> {
  const off = baselineDist ? await startInstance({ dist: baselineDist }) : await startInstance({ env: { METRICS: 'off' } });
  const on = await startInstance();
  try {
    const targets = { off: await prepare(off), on: await prepare(on) };
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const runs = { off: [] as { latencies: number[]; errors: number }[], on: [] as { latencies: number[]; errors: number }[] };
    for (let round = 0; round < rounds; round += 1) {
      // Alternate which goes first, so neither always runs on a warmer or quieter machine.
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const side of order) runs[side].push(await closedLoop(targets[side], seconds));
    }
    const summary = (results: { latencies: number[]; errors: number }[]): Figures => {
      const all = results.flatMap((result) => result.latencies).sort((a, b) => a - b);
      return {
        p50Ms: Math.round(percentile(all, 50) * 1000) / 1000,
        p99Ms: Math.round(percentile(all, 99) * 1000) / 1000,
        requestsPerSecond: Math.round(all.length / (rounds * seconds)),
        errors: results.reduce((sum, result) => sum + result.errors, 0),
      };
    };
    const metricsOff = summary(runs.off);
    const metricsOn = summary(runs.on);
    const exposition = await (await fetch(`${on.url}/metrics`)).text();
    if (!exposition.includes('stagegraph_graphql_operations_total{operation="Overlays",outcome="ok"}'))
      throw new Error('the measured instance recorded no metrics');
    // METRICS=off must really be off; an earlier build as the baseline serves its own metrics.
    if (!baselineDist && (await fetch(`${off.url}/metrics`)).status === 200) throw new Error('the baseline instance serves metrics');
    for (const target of Object.values(targets)) target.agent.destroy();
    return {
      metricsOff,
      metricsOn,
      baseline: baselineDist ?? 'this build, METRICS=off',
      p50Ratio: Math.round((metricsOn.p50Ms / metricsOff.p50Ms) * 1000) / 1000,
      rounds,
    };
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}
