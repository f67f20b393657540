/**
 * The gateway's sections of `npm run bench` (bench/run.ts runs them): the gateway and REST bridge beside the
 * subgraph, stagegraph beside Hive Gateway (one-subgraph and deep queries), what the document limits and the
 * metrics cost, and the 50 ms rule under hostile input. Each prints its table and puts its figures in `figures`.
 */
import { loadavg } from 'node:os';
import { measureDeepGateway } from './deepQuery';
import { measureGateway } from './gateway';
import { startInstance } from './harness';
import { measureGraphQLLimits } from './limits';
import { LOOP_BLOCK_GOAL_MS, measureLoopBlocks } from './loopblock';
import { measureObservability } from './observability';
import { measurePeerGateway } from './peer';

/** What a section measured, by name: printed and written to bench/results/. */
export type Figures = Record<string, unknown>;

/** The 50 ms rule: the server's longest event-loop block per hostile case, beside an idle baseline (bench/loopblock.ts). */
export async function loopBlockSection(figures: Figures): Promise<void> {
  const blocks = await measureLoopBlocks();
  figures.loopBlock = blocks;
  console.log("\nthe 50 ms rule: the server's longest event-loop block while each case ran (monitorEventLoopDelay in the server process, read from /metrics)");
  console.table(blocks.rows.map((row) => ({ case: row.case, 'max block ms': row.maxBlockMs, answers: row.statuses })));
  console.log(`worst hostile case: ${blocks.worstMs} ms (${blocks.worstCase}); idle ${blocks.idleMs} ms; goal: every case ≤ ${LOOP_BLOCK_GOAL_MS} ms`);
}

/** The GraphQL document limits: gateway p50 with them over without, on two instances side by side. */
export async function graphqlLimitsSection(figures: Figures): Promise<void> {
  const limits = await measureGraphQLLimits();
  figures.graphqlLimits = limits;
  console.log('\nGraphQL document limits: the gateway query with the limits on and off (GRAPHQL_LIMITS=off), alternating rounds');
  console.table({ 'limits on': limits.limitsOn, 'limits off': limits.limitsOff });
  console.log(`limits on/off p50 = ${limits.onOverOffP50}× (target ≤ 1.05×); requests/s off/on = ${limits.offOverOnRequests}×`);
}

/** What metrics cost: gateway p50 with metrics on over METRICS=off (or an earlier build), tracing off in both. */
export async function observabilitySection(figures: Figures): Promise<void> {
  const observability = await measureObservability();
  figures.observability = observability;
  console.log(`\nmetrics cost: one-subgraph query through the gateway, 10 connections, ${observability.rounds} alternating rounds each; tracing off in both`);
  console.table({ [`baseline: ${observability.baseline}`]: observability.metricsOff, 'metrics on (default)': observability.metricsOn });
  console.log(`metrics on / off: p50 = ${observability.p50Ratio}× (target ≤ 1.05×)`);
}

/**
 * The gateway and REST bridge beside the subgraph, and stagegraph beside Hive Gateway on the one-subgraph and
 * deep queries: for each build given (this one, and BENCH_BEFORE_DIST's when set), one after the other in one
 * run, each with the machine's load average while it ran (the machine may be shared).
 */
export async function gatewaySection(figures: Figures, builds: [string, string | undefined][] = [['after', undefined]]): Promise<void> {
  const all: Record<string, unknown> = {};
  for (const [build, dist] of builds) {
    const loadBefore = loadavg()[0];
    const instance = await startInstance({ dist });
    const gateway = await measureGateway(instance);
    const peers = await measureDeepGateway(instance);
    await instance.stop();
    const load = { start: round(loadBefore), end: round(loadavg()[0]) };
    all[build] = { ...gateway, againstHiveGateway: peers, loadAverage: load };
    const label = builds.length > 1 ? ` (${build}${dist ? `: ${dist}` : ''})` : '';
    console.log(`\ngateway and REST bridge${label}: one-subgraph query (overlays), 10 connections; load average ${load.start} → ${load.end}`);
    console.table({
      'straight to subgraph': gateway.subgraphDirect,
      'through gateway': gateway.gateway,
      'through gateway, the REST route’s document': gateway.gatewayRouteDocument,
      'REST bridge (GET /overlay/v1)': gateway.rest,
      'gateway, 2-subgraph join': gateway.gatewayJoin,
    });
    console.log(
      `gateway/subgraph p50 = ${gateway.gatewayOverSubgraphP50}× (target ≤ 1.5×); REST/gateway p50, the same operation = ${gateway.restOverGatewayP50}× (target ≤ 1.15×)`,
    );
    console.log(
      `\nagainst Hive Gateway${label}: the same supergraph and subgraphs, 50 connections (targets: in one process ≥ 1.2× Hive req/s with p95 no worse; over HTTP ≥ 1.0×)`,
    );
    for (const row of peers) {
      console.log(`${row.query}: ${row.answerBytes} bytes answered, same answers: ${row.sameAnswers}`);
      console.table({
        'stagegraph, in-process subgraphs': row.stagegraphInProcess,
        'stagegraph gateway, HTTP to subgraphs': row.stagegraphOverHttp,
        'Hive Gateway, HTTP to subgraphs': row.hiveGatewayOverHttp,
        'Hive Gateway on the Rust planner, HTTP to subgraphs': row.hiveRustOverHttp,
      });
      console.log(
        `req/s over Hive: in one process ${row.inProcessOverHiveRps}×, over HTTP ${row.overHttpOverHiveRps}×; p95 over Hive: ${row.inProcessOverHiveP95}×, ${row.overHttpOverHiveP95}×`,
      );
      console.log(
        `req/s over Hive on the Rust planner: in one process ${row.inProcessOverHiveRustRps}×, over HTTP ${row.overHttpOverHiveRustRps}× (target over HTTP ≥ 1.0×); p99/p50 of stagegraph: in one process ${round((row.stagegraphInProcess.p99Ms ?? NaN) / row.stagegraphInProcess.p50Ms)}×, over HTTP ${round((row.stagegraphOverHttp.p99Ms ?? NaN) / row.stagegraphOverHttp.p50Ms)}× (target ≤ 2×)`,
      );
      if (row.roundsRps.hiveGatewayOverHttp.length > 1) console.log(`req/s of each round (the median round is shown): ${JSON.stringify(row.roundsRps)}`);
      console.log(`CPU ms per request of each round (the serving processes, subgraphs included): ${JSON.stringify(row.roundsCpuMs)}`);
    }
  }
  figures.gateway = builds.length > 1 ? all : all[builds[0][0]];
}

const round = (value: number) => Math.round(value * 100) / 100;

/** The peer baseline: the one-subgraph query through Hive Gateway beside stagegraph, both over HTTP. */
export async function peerSection(figures: Figures): Promise<void> {
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
}
