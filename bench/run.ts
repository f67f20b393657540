/**
 * `npm run bench`: builds, starts what it measures, prints a table of side-by-side figures and writes
 * them to bench/results/latest.json. BENCH_VIEWERS sets the number of live viewers (default 15000);
 * BENCH_ONLY (comma-separated: gateway, limits, observability, peer, accesscodes, fanout, fanout-cold, join, dataevents,
 * fanout2, answers, chat, qa, fleet, costs, soak, browser, runtimes, httpsubs, show, playback, latency, renditions, loopblock; or `npm run bench -- join,dataevents`) runs only those sections, with figures in
 * bench/results/<sections>.json; BENCH_SKIP_BUILD=true skips the build; BENCH_BEFORE_DIST (an earlier
 * build's dist folder) puts that build's figures beside this one's in the gateway, join, data-event and
 * metrics-cost sections. BENCH_SHOW_VIEWERS sets the show section's viewers (default 15000). BENCH_REPEAT
 * repeats the fan-out (each run beside its own floor; BENCH_FANOUT_SIGNED_IN=false leaves out its signed-in runs).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureAccessCodes } from './accesscodes';
import { measureAnswers, type AnswerFigures } from './answers';
import { fanoutColdSection } from './fanoutCold';
import { measureBrowser } from './browser';
import { measureDataEvents, type DataEventFigures } from './dataevents';
import { measureCosts } from './costs';
import { measureHttpFanout } from './httpSubscriptions';
import { measureFleet } from './fleet';
import { gatewaySection, graphqlLimitsSection, loopBlockSection, observabilitySection, peerSection, type Figures } from './gatewaySections';
import { root, startInstance, startPostgres, startRedis } from './harness';
import { builds, chatSection, fanoutSection, joinSection, twoInstancesSection } from './liveSections';
import { latencySection } from './latency';
import { playbackSection } from './playback';
import { qaSection } from './qa';
import { renditionsSection } from './renditions';
import { showSection } from './showSection';
import { measureSoak } from './soak';
import { measureRuntimes } from './runtimes';

const only = (process.env.BENCH_ONLY ?? process.argv[2] ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
/** Whether a section runs in this bench run. */
const section = (name: string) => only.length === 0 || only.includes(name);

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== 'true') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const viewers = Number(process.env.BENCH_VIEWERS ?? 15000);
  const figures: Record<string, unknown> = {};

  if (section('gateway')) await gatewaySection(figures, builds());
  if (section('limits')) await graphqlLimitsSection(figures);
  if (section('observability')) await observabilitySection(figures);
  if (section('peer')) await peerSection(figures);
  if (section('accesscodes')) await accessCodesSection(figures);
  if (section('fanout')) await fanoutSection(figures, viewers);
  if (section('fanout-cold')) await fanoutColdSection(figures, viewers);
  if (section('join')) await joinSection(figures, viewers);
  if (section('dataevents')) await dataEventsSection(figures);
  if (section('fanout2')) await twoInstancesSection(figures, viewers);
  if (section('answers')) await answersSection(figures);
  if (section('chat')) await chatSection(figures, viewers);
  if (section('qa')) await qaSection(figures, viewers);
  if (section('fleet')) await fleetSection(figures, viewers);
  if (section('costs')) await costsSection(figures);
  if (section('soak')) await soakSection(figures);
  if (section('browser')) await browserSection(figures);
  if (section('runtimes')) await runtimesSection(figures, viewers);
  if (section('httpsubs')) await httpSubscriptionsSection(figures, viewers);
  if (section('show')) await showSection(figures, Number(process.env.BENCH_SHOW_VIEWERS ?? 15000));
  if (section('playback')) await playbackSection(figures);
  if (section('latency')) await latencySection(figures);
  if (section('renditions')) await renditionsSection(figures);
  if (section('loopblock')) await loopBlockSection(figures);

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  const name = only.length ? only.join('+') : 'latest';
  writeFileSync(join(root, 'bench', 'results', `${name}.json`), `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
}

/**
 * Subscriptions over HTTP: SSE viewers and multipart viewers, each beside as many graphql-ws viewers in
 * one run on one instance (BENCH_VIEWERS each side; a process holds at most 20,000 open files here, so
 * 15,000 a side needs the two sides' sum under that on the server). Targets: HTTP p99 ≤ 1.2× the socket's.
 */
async function httpSubscriptionsSection(figures: Figures, viewers: number): Promise<void> {
  const runs = [];
  for (const transport of ['sse', 'multipart'] as const) runs.push(await measureHttpFanout(transport, viewers));
  figures.httpSubscriptions = runs;
  console.log(
    `\nsubscriptions over HTTP: broadcasts (2 that warm the paths, then ${process.env.BENCH_HTTP_BROADCASTS ?? 10} measured, their receipts pooled) to ${viewers} HTTP viewers ` +
      `and ${viewers} graphql-ws viewers of one group, on one instance`,
  );
  console.table(
    runs.map((run) => ({
      transport: run.transport,
      'viewers (ws / http)': `${run.viewers.websocket} / ${run.viewers.http}`,
      'received (ws / http)': `${run.received.websocket} / ${run.received.http}`,
      'p50 ms (ws / http)': `${run.p50Ms.websocket} / ${run.p50Ms.http}`,
      'p99 ms (ws / http)': `${run.p99Ms.websocket} / ${run.p99Ms.http}`,
      'p99 http / ws': (run.p99Ms.http / run.p99Ms.websocket).toFixed(2),
      'each broadcast p99 http / ws': run.broadcastRatios.join(' '),
      'KB per idle viewer (ws / http)': `${run.memoryPerViewerKB.websocket} / ${run.memoryPerViewerKB.http}`,
    })),
  );
  console.log('target: p99 over HTTP ≤ 1.2× the socket’s in the same run');
}

/** Viewers in the browser: from the broadcast call to the overlay in the embed's DOM, and the SDK scripts' size. */
async function browserSection(figures: Figures): Promise<void> {
  const instance = await startInstance();
  const browser = await measureBrowser(instance);
  await instance.stop();
  figures.browser = browser;
  console.log("\nviewers in the browser: from the broadcast call to the overlay in the embed's DOM (headless Chromium), and the SDK scripts");
  console.table([browser]);
}

/** The same build on the Node.js of `npm ci` beside the machine's (bench/runtimes.ts), as ratios. */
async function runtimesSection(figures: Figures, viewers: number): Promise<void> {
  const runtimes = await measureRuntimes(viewers, Number(process.env.BENCH_ANSWERS_VIEWERS ?? viewers));
  figures.runtimes = runtimes;
  if (typeof runtimes === 'string') return void console.log(`\nruntimes: ${runtimes}`);
  const { baseline, current } = runtimes.runtimes;
  console.log(`\nruntimes: the same build on Node.js ${current} and ${baseline}, on a private PostgreSQL + Redis (lower is better but for requests/s)`);
  console.table(
    Object.fromEntries(
      Object.entries(runtimes.figures).map(([figure, value]) => [
        figure,
        { [baseline]: value.baseline, [current]: value.current, [`${current} / ${baseline}`]: value.ratio },
      ]),
    ),
  );
}

async function accessCodesSection(figures: Figures): Promise<void> {
  const instance = await startInstance();
  const accessCodes = await measureAccessCodes(instance);
  await instance.stop();
  figures.accessCodes = accessCodes;
  console.log('\nbulk access codes: one request of 100,000 next to 100 requests of 1,000 (all unique)');
  console.table({
    '100,000 in one request (JSON)': accessCodes.oneRequestJson,
    '100,000 in one request (CSV)': accessCodes.oneRequestCsv,
    '1,000 × 100 requests (JSON)': accessCodes.hundredRequestsOf1000,
  });
  console.log(
    `100,000 codes in ${accessCodes.oneRequestJson.ms} ms (target ≤ 5000 ms, ${(accessCodes.oneRequestJson.ms / 5000).toFixed(2)}× of target); one request / 100 requests = ${accessCodes.oneOverHundredRatio}×`,
  );
}

async function dataEventsSection(figures: Figures): Promise<void> {
  const all: Record<string, DataEventFigures> = {};
  for (const [build, dist] of builds()) {
    // The per-provider rate limit is lifted so the load measures the path, not the limiter.
    const eventsInstance = await startInstance({ env: { DATA_EVENT_RATE_LIMIT: '10000000' }, dist });
    all[build] = await measureDataEvents(eventsInstance);
    await eventsInstance.stop();
  }
  figures.dataEvents = process.env.BENCH_BEFORE_DIST ? all : all.after;
  console.log('\ndata events: signed events end to end (signature, schema, durable store, rule evaluation) on one instance');
  const label = (build: string) => (process.env.BENCH_BEFORE_DIST ? `, ${build}` : '');
  console.table(
    Object.fromEntries(
      Object.entries(all).flatMap(([build, dataEvents]) => [
        [
          `signed events (POST …/events)${label(build)}`,
          {
            connections: dataEvents.throughput.connections,
            'per s': dataEvents.throughput.eventsPerSecond,
            'p50 ms': dataEvents.throughput.p50Ms,
            'p99 ms': dataEvents.throughput.p99Ms,
            errors: dataEvents.throughput.errors,
          },
        ],
        [
          `REST read (GET …/available)${label(build)}`,
          {
            connections: dataEvents.throughput.connections,
            'per s': dataEvents.restReadBaseline.requestsPerSecond,
            'p50 ms': dataEvents.restReadBaseline.p50Ms,
            'p99 ms': dataEvents.restReadBaseline.p99Ms,
            errors: dataEvents.restReadBaseline.errors,
          },
        ],
      ]),
    ),
  );
  console.log('rule-triggered overlay: from the event’s 201 to each live viewer');
  console.table(
    Object.fromEntries(
      Object.entries(all).map(([build, dataEvents]) => [
        build,
        {
          events: dataEvents.ruleToViewer.events,
          viewers: dataEvents.ruleToViewer.viewers,
          received: dataEvents.ruleToViewer.received,
          'p50 ms': dataEvents.ruleToViewer.p50Ms,
          'p99 ms': dataEvents.ruleToViewer.p99Ms,
          'max ms': dataEvents.ruleToViewer.maxMs,
        },
      ]),
    ),
  );
  for (const [build, dataEvents] of Object.entries(all)) {
    console.log(
      `${build}: events/s = ${dataEvents.eventsOverRestRead}× the REST read's requests/s in the same run; targets: ≥ 4000 events/s (${(dataEvents.throughput.eventsPerSecond / 4000).toFixed(2)}× of target), p99 ≤ 100 ms (${(dataEvents.ruleToViewer.p99Ms / 100).toFixed(2)}× of target)`,
    );
  }
  if (all.before) console.log(`events/s after / before = ${(all.after.throughput.eventsPerSecond / all.before.throughput.eventsPerSecond).toFixed(2)}×`);
}

/**
 * Answers: BENCH_ANSWERS_VIEWERS (default BENCH_VIEWERS) signed-in viewers each answer one poll within
 * 10 s on their own socket, on SQLite with one instance, and on PostgreSQL + Redis with one and with two instances
 * (each also for BENCH_BEFORE_DIST's build, when given, in the same run).
 */
async function answersSection(figures: Figures): Promise<void> {
  const viewers = Number(process.env.BENCH_ANSWERS_VIEWERS ?? process.env.BENCH_VIEWERS ?? 15000);
  const results: Record<string, AnswerFigures> = {};
  const named = (label: string, build: string, dist: string | undefined) => `${label}${dist ? `, ${build}` : ''}`;
  for (const [build, dist] of builds()) {
    const alone = await startInstance({ dist });
    results[named('SQLite, one instance', build, dist)] = await measureAnswers(viewers, [alone]).finally(() => alone.stop());
  }
  const postgres = await startPostgres();
  const redis = postgres && (await startRedis());
  if (postgres && redis) {
    for (const [build, dist] of builds()) {
      const env = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, REDIS_PREFIX: `bench-answers-${build}` };
      // One instance on the same PostgreSQL + Redis first: what the database costs, apart from a second
      // instance sharing the two cores.
      const alone = await startInstance({ dist, env: { ...env, REDIS_PREFIX: `bench-answers-one-${build}` } });
      results[named('PostgreSQL + Redis, one instance', build, dist)] = await measureAnswers(viewers, [alone]).finally(() => alone.stop());
      const first = await startInstance({ dist, env });
      const second = await startInstance({ dist, shareWith: first, env });
      results[named('PostgreSQL + Redis, two instances', build, dist)] = await measureAnswers(viewers, [first, second]).finally(() =>
        Promise.all([first.stop(), second.stop()]),
      );
    }
  }
  await redis?.stop();
  await postgres?.stop();
  figures.answers = results;
  console.log(`\nanswers: ${viewers} signed-in viewers subscribed to a poll's results each answer it on their socket within 10 s`);
  console.table(
    Object.fromEntries(
      Object.entries(results).map(([label, result]) => [
        label,
        {
          viewers: result.viewers,
          subscribed: result.subscribed,
          reconnects: result.reconnects,
          answered: result.answered,
          refused: result.refused,
          'ack p50 ms': result.ackP50Ms,
          'ack p99 ms': result.ackP99Ms,
          'final count exact': result.finalCountExact ? 'yes' : 'no',
          'final results at every viewer (ms after last answer)': result.finalResultsAtEveryViewerMs,
          'max pushes/s per viewer': result.maxPushesPerSecondPerViewer,
        },
      ]),
    ),
  );
  for (const [label, result] of Object.entries(results)) {
    console.log(
      `${label}: ack p99 ${result.ackP99Ms} ms (target ≤ 250 ms: ${(result.ackP99Ms / 250).toFixed(2)}× of target); final count exact: ${result.finalCountExact ? 'yes' : 'no'} ` +
        `(${result.storedAnswers} stored, results ${result.resultsTotal}, ${result.answered} acknowledged); final results at every viewer ${result.finalResultsAtEveryViewerMs} ms after the last answer ` +
        `(target ≤ 1000 ms; ${result.viewersWithFinalCount} of ${result.viewers} viewers); at most ${result.maxPushesPerSecondPerViewer} pushes/s per viewer (target ≤ 2)`,
    );
    if (result.firstRefusal) console.log(`  first refusal: ${result.firstRefusal}`);
  }
  if (!postgres) console.log('PostgreSQL + Redis: not measured (postgres binaries or redis-server not installed here)');
}

/** Instances behind HAProxy beside one instance direct, both on a private PostgreSQL + Redis (bench/fleet.ts). */
async function fleetSection(figures: Figures, viewers: number): Promise<void> {
  const fleet = await measureFleet(viewers, Number(process.env.BENCH_FLEET_INSTANCES ?? 3));
  if (!fleet) {
    figures.fleet = 'not measured: haproxy, redis-server or the PostgreSQL server binaries are not installed here';
    console.log('\nfleet: not measured (haproxy, redis-server or the PostgreSQL server binaries are not installed here)');
    return;
  }
  figures.fleet = fleet;
  console.log(
    `\nfleet: ${fleet.fleet.instances} instances behind HAProxy beside one instance direct, PostgreSQL + Redis (HAProxy takes ${fleet.balancerMaxconn} connections here)`,
  );
  const row = (side: typeof fleet.fleet) => ({
    viewers: side.viewers,
    'join s': side.storms.join.seconds,
    'joins/s': side.storms.join.perSecond,
    'join failures': side.storms.join.failures,
    'reconnect s': side.storms.reconnect.seconds,
    'join db statements': side.storms.join.databaseQueries,
    'fan-out p50 ms': side.fanout.p50Ms,
    'fan-out p99 ms': side.fanout.p99Ms,
    received: side.fanout.received,
    'KB per idle viewer': side.fanout.memoryPerViewerKB,
  });
  console.table({ 'one instance, direct': row(fleet.oneInstance), [`${fleet.fleet.instances} instances, HAProxy`]: row(fleet.fleet) });
  console.log(
    `fleet / one instance: joins/s ${(fleet.fleet.storms.join.perSecond / fleet.oneInstance.storms.join.perSecond).toFixed(2)}×, ` +
      `fan-out p99 ${(fleet.fleet.fanout.p99Ms / fleet.oneInstance.fanout.p99Ms).toFixed(2)}× (all on the same cores: a figure to watch, not a target)`,
  );
}

/** What a broadcast and a data event cost PostgreSQL and Redis (bench/costs.ts), for docs/capacity.md. */
async function costsSection(figures: Figures): Promise<void> {
  const postgres = await startPostgres();
  const redis = postgres && (await startRedis());
  if (!postgres || !redis) {
    await postgres?.stop();
    figures.costs = 'not measured: the PostgreSQL server binaries or redis-server are not installed here';
    console.log('\ncosts: not measured (PostgreSQL server binaries or redis-server not installed here)');
    return;
  }
  const instance = await startInstance({ env: { DATABASE_URL: postgres.url, REDIS_URL: redis.url, DATA_EVENT_RATE_LIMIT: '10000000' } });
  try {
    const costs = await measureCosts(instance, redis.url);
    figures.costs = costs;
    console.log('\ncosts per operation on one instance, PostgreSQL + Redis: SQL statements sent, Redis commands and bytes (in: to Redis, out: from Redis)');
    console.table(
      Object.fromEntries(
        Object.entries(costs).map(([name, cost]) => [
          name,
          {
            'SQL statements': cost.sqlStatements,
            'Redis commands': Object.entries(cost.redisCommands)
              .map(([command, calls]) => `${command} ${calls}`)
              .join(', '),
            'Redis bytes in': cost.redisBytesIn,
            'Redis bytes out': cost.redisBytesOut,
          },
        ]),
      ),
    );
  } finally {
    await instance.stop();
    await redis.stop();
    await postgres.stop();
  }
}

async function soakSection(figures: Figures): Promise<void> {
  const soakSeconds = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
  const soak = await measureSoak(soakSeconds, 200);
  figures.soak = soak;
  console.log(`\nsoak: ${soak.viewersPerSecond} viewers/s connecting and leaving for ${soak.seconds} s while broadcasts run`);
  console.table([soak]);
  console.log(
    `memory after / before = ${(soak.rssAfterMB / soak.rssBeforeMB).toFixed(2)}× (target ≤ 1.10×); missed broadcasts: ${soak.missedShows} of ${soak.expectedShows}`,
  );
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
