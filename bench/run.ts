/**
 * `npm run bench`: builds, starts what it measures, prints a table of side-by-side figures and writes
 * them to bench/results/latest.json. BENCH_VIEWERS sets the number of live viewers (default 15000).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureDataEvents } from './dataevents';
import { measureFanout } from './fanout';
import { measureGateway } from './gateway';
import { root, startInstance } from './harness';

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const viewers = Number(process.env.BENCH_VIEWERS ?? 15000);
  const figures: Record<string, unknown> = {};

  const instance = await startInstance();
  const gateway = await measureGateway(instance);
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

  const fanout = await measureFanout(viewers);
  figures.fanout = fanout;
  console.log('\nfan-out: one broadcast to live viewers on one instance');
  console.table([{ viewers: fanout.viewers, received: fanout.received, 'p50 ms': fanout.p50Ms, 'p99 ms': fanout.p99Ms, 'max ms': fanout.maxMs, 'KB per idle viewer': fanout.memoryPerViewerKB }]);
  console.log(`targets: p99 ≤ 350 ms (${(fanout.p99Ms / 350).toFixed(2)}× of target), ≤ 15 KB per idle viewer (${(fanout.memoryPerViewerKB / 15).toFixed(2)}× of target)`);

  // Data events: the per-provider rate limit is lifted so the load measures the path, not the limiter.
  const eventsInstance = await startInstance(undefined, { DATA_EVENT_RATE_LIMIT: '10000000' });
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

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'latest.json'), `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
