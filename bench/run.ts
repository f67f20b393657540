/**
 * `npm run bench`: builds, starts what it measures, prints a table of side-by-side figures and writes
 * them to bench/results/latest.json. BENCH_VIEWERS sets the number of live viewers (default 15000).
 * BENCH_ONLY=<section>[,<section>] runs only the named sections of SECTIONS (figures go to
 * bench/results/<sections>.json), e.g. `BENCH_ONLY=graphql-limits npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureAccessCodes } from './accesscodes';
import { measureBrowser } from './browser';
import { measureDataEvents } from './dataevents';
import { measureFanout } from './fanout';
import { measureGateway } from './gateway';
import { measureObservability } from './observability';
import { measureGraphQLLimits } from './limits';
import { measurePeerGateway } from './peer';
import { root, startInstance, startRedis } from './harness';
import { measureSoak } from './soak';

type Figures = Record<string, unknown>;

/** The GraphQL document limits: gateway p50 with them over without, on two instances side by side. */
async function graphqlLimitsSection(figures: Figures): Promise<void> {
  const limits = await measureGraphQLLimits();
  figures.graphqlLimits = limits;
  console.log('\nGraphQL document limits: the gateway query with the limits on and off (GRAPHQL_LIMITS=off), alternating rounds');
  console.table({ 'limits on': limits.limitsOn, 'limits off': limits.limitsOff });
  console.log(`limits on/off p50 = ${limits.onOverOffP50}× (target ≤ 1.05×); requests/s off/on = ${limits.offOverOnRequests}×`);
}

/** What metrics cost: gateway p50 with metrics on over METRICS=off, tracing off in both. */
async function observabilitySection(figures: Figures): Promise<void> {
  const observability = await measureObservability();
  figures.observability = observability;
  console.log(`\nmetrics cost: one-subgraph query through the gateway, 10 connections, ${observability.rounds} alternating rounds each; tracing off in both`);
  console.table({ [`baseline: ${observability.baseline}`]: observability.metricsOff, 'metrics on (default)': observability.metricsOn });
  console.log(`metrics on / off: p50 = ${observability.p50Ratio}× (target ≤ 1.05×)`);
}

/** Sections that can run alone: BENCH_ONLY=a,b or `npm run bench -- a`. */
const SECTIONS: Record<string, (figures: Figures) => Promise<void>> = {
  'graphql-limits': graphqlLimitsSection,
  observability: observabilitySection,
};

function writeFigures(name: string, figures: Figures): void {
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', `${name}.json`), `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const viewers = Number(process.env.BENCH_VIEWERS ?? 15000);
  const figures: Figures = {};
  const only = (process.env.BENCH_ONLY ?? process.argv[2])?.split(',').map((name) => name.trim()).filter(Boolean);
  if (only?.length) {
    for (const name of only) {
      const section = SECTIONS[name];
      if (!section) throw new Error(`BENCH_ONLY: no section "${name}" (sections: ${Object.keys(SECTIONS).join(', ')})`);
      await section(figures);
    }
    writeFigures(only.join('+'), figures);
    return;
  }
  await observabilitySection(figures);

  const instance = await startInstance();
  const gateway = await measureGateway(instance);
  const accessCodes = await measureAccessCodes(instance);
  await instance.stop();
  figures.gateway = gateway;
  console.log('\ngateway and REST bridge: one-subgraph query (overlays), 10 connections');
  console.table({
    'straight to subgraph': gateway.subgraphDirect,
    'through gateway': gateway.gateway,
    'REST bridge': gateway.rest,
    'gateway, 2-subgraph join': gateway.gatewayJoin,
  });
  console.log(`gateway/subgraph p50 = ${gateway.gatewayOverSubgraphP50}× (target ≤ 1.5×); REST/gateway p50 = ${gateway.restOverGatewayP50}× (target ≤ 1.15×)`);

  await graphqlLimitsSection(figures);

  const peerInstance = await startInstance();
  const peer = await measurePeerGateway(peerInstance);
  await peerInstance.stop();
  figures.peerGateway = peer;
  console.log('\npeer baseline: the same supergraph and query through @graphql-hive/gateway (request deduplication off)');
  console.table({
    'straight to subgraph': peer.subgraphDirect,
    'stagegraph gateway, in-process subgraphs (npm start)': peer.stagegraphInProcess,
    'stagegraph gateway, own process, HTTP to subgraphs': peer.stagegraphOverHttp,
    'Hive Gateway, own process, HTTP to subgraphs': peer.hiveGatewayOverHttp,
  });
  console.log(`stagegraph/Hive p50, both over HTTP = ${peer.stagegraphOverHiveP50}×`);

  figures.accessCodes = accessCodes;
  console.log('\nbulk access codes: one request of 100,000 next to 100 requests of 1,000 (all unique)');
  console.table({
    '100,000 in one request (JSON)': accessCodes.oneRequestJson,
    '100,000 in one request (CSV)': accessCodes.oneRequestCsv,
    '1,000 × 100 requests (JSON)': accessCodes.hundredRequestsOf1000,
  });
  console.log(`100,000 codes in ${accessCodes.oneRequestJson.ms} ms (target ≤ 5000 ms, ${(accessCodes.oneRequestJson.ms / 5000).toFixed(2)}× of target); one request / 100 requests = ${accessCodes.oneOverHundredRatio}×`);

  const fanout = await measureFanout(viewers);
  figures.fanout = fanout;
  console.log('\nfan-out: one broadcast to live viewers on one instance');
  console.table([{ viewers: fanout.viewers, received: fanout.received, 'p50 ms': fanout.p50Ms, 'p99 ms': fanout.p99Ms, 'max ms': fanout.maxMs, 'KB per idle viewer': fanout.memoryPerViewerKB }]);
  console.log(`targets: p99 ≤ 350 ms (${(fanout.p99Ms / 350).toFixed(2)}× of target), ≤ 15 KB per idle viewer (${(fanout.memoryPerViewerKB / 15).toFixed(2)}× of target)`);

  // Data events: the per-provider rate limit is lifted so the load measures the path, not the limiter.
  const eventsInstance = await startInstance({ env: { DATA_EVENT_RATE_LIMIT: '10000000' } });
  const dataEvents = await measureDataEvents(eventsInstance);
  await eventsInstance.stop();
  figures.dataEvents = dataEvents;
  console.log('\ndata events: signed events end to end (signature, schema, durable store, rule evaluation) on one instance');
  console.table({
    'signed events (POST …/events)': { connections: dataEvents.throughput.connections, 'per s': dataEvents.throughput.eventsPerSecond, 'p50 ms': dataEvents.throughput.p50Ms, 'p99 ms': dataEvents.throughput.p99Ms, errors: dataEvents.throughput.errors },
    'REST read (GET …/available)': { connections: dataEvents.throughput.connections, 'per s': dataEvents.restReadBaseline.requestsPerSecond, 'p50 ms': dataEvents.restReadBaseline.p50Ms, 'p99 ms': dataEvents.restReadBaseline.p99Ms, errors: dataEvents.restReadBaseline.errors },
  });
  console.log(`events/s = ${dataEvents.eventsOverRestRead}× the REST read's requests/s in the same run`);
  console.log('rule-triggered overlay: from the event’s 201 to each live viewer');
  console.table([{ events: dataEvents.ruleToViewer.events, viewers: dataEvents.ruleToViewer.viewers, received: dataEvents.ruleToViewer.received, 'p50 ms': dataEvents.ruleToViewer.p50Ms, 'p99 ms': dataEvents.ruleToViewer.p99Ms, 'max ms': dataEvents.ruleToViewer.maxMs }]);
  console.log(`targets: ≥ 2000 events/s (${(dataEvents.throughput.eventsPerSecond / 2000).toFixed(2)}× of target), p99 ≤ 100 ms (${(dataEvents.ruleToViewer.p99Ms / 100).toFixed(2)}× of target)`);

  const redis = await startRedis();
  if (redis) {
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'bench' };
    const first = await startInstance({ env });
    const second = await startInstance({ shareWith: first, env });
    const two = await measureFanout(viewers * 2, [first, second]);
    await Promise.all([first.stop(), second.stop()]);
    await redis.stop();
    figures.fanoutTwoInstances = two;
    console.log('\nfan-out: two instances behind Redis, the broadcast sent to one of them');
    console.table([{ viewers: two.viewers, received: two.received, 'p50 ms': two.p50Ms, 'p99 ms': two.p99Ms, 'max ms': two.maxMs, 'KB per idle viewer': two.memoryPerViewerKB }]);
    console.log(`p99 two instances / one instance = ${(two.p99Ms / fanout.p99Ms).toFixed(2)}×`);
  } else {
    figures.fanoutTwoInstances = 'not measured: redis-server is not installed here';
    console.log('\nfan-out across two instances: not measured (redis-server is not installed here)');
  }

  const soakSeconds = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
  const soak = await measureSoak(soakSeconds, 200);
  figures.soak = soak;
  console.log(`\nsoak: ${soak.viewersPerSecond} viewers/s connecting and leaving for ${soak.seconds} s while broadcasts run`);
  console.table([soak]);
  console.log(`memory after / before = ${(soak.rssAfterMB / soak.rssBeforeMB).toFixed(2)}× (target ≤ 1.10×); missed broadcasts: ${soak.missedShows} of ${soak.expectedShows}`);

  const browserInstance = await startInstance();
  const browser = await measureBrowser(browserInstance);
  await browserInstance.stop();
  figures.browser = browser;
  console.log('\nviewers in the browser: from the broadcast call to the overlay in the embed\'s DOM (headless Chromium), and the SDK scripts');
  console.table([browser]);

  writeFigures('latest', figures);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
