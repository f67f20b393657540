/**
 * Peer baseline: the same supergraph and queries served by @graphql-hive/gateway (the Node.js peer, in
 * bench/peers/ with its own lockfile, installed here the first time the bench needs it) next to stagegraph's gateway, all against the subgraphs of one running
 * instance: stagegraph with its subgraphs in-process (npm start), stagegraph's gateway as its own
 * process reaching them over HTTP, and Hive Gateway over HTTP. Hive Gateway does no authentication: it
 * forwards the signed identity a client of the deployment presents, so it does less work per request
 * than stagegraph's gateway. Its default deduplication of identical in-flight upstream requests is
 * turned off so both do the same work.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeSupergraphSdl } from '../gateway/compose';
import { SUBGRAPH_NAMES } from '../shared/config';
import { signIdentity } from '../shared/auth/identity';
import { load, loadWithP95, type LoadFigures } from './gateway';
import { cpuMsOf, createSite, freePort, root, type Instance } from './harness';

export interface PeerFigures {
  subgraphDirect: LoadFigures;
  stagegraphInProcess: LoadFigures;
  stagegraphOverHttp: LoadFigures;
  hiveGatewayOverHttp: LoadFigures;
  stagegraphOverHiveP50: number;
}

const QUERY = /* GraphQL */ `query Overlays { overlays { id name type duration } }`;

async function waitFor(url: string, init?: RequestInit): Promise<void> {
  for (let tries = 0; tries < 300; tries += 1) {
    try {
      if ((await fetch(url, init)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not start`);
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'inherit'] });
  process.once('exit', () => child.kill('SIGKILL'));
  return { pid: child.pid as number, stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

/** Hive Gateway and a stagegraph gateway process, both over `instance`'s subgraphs. */
export interface Peers {
  hiveUrl: string;
  /** Hive Gateway on the Rust query planner (@graphql-hive/router-runtime, HIVE_ROUTER_RUNTIME=true). */
  hiveRustUrl: string;
  gatewayUrl: string;
  /** The processes of both Hive Gateways and of the separate stagegraph gateway (their CPU time is read). */
  hivePid: number;
  hiveRustPid: number;
  gatewayPid: number;
  subgraphUrl(name: (typeof SUBGRAPH_NAMES)[number]): string;
  /** Headers Hive Gateway forwards: the identity of `siteId`'s developer key, signed now (it lives 60 s). */
  hiveHeaders(siteId: string): Record<string, string>;
  stop(): Promise<void>;
}

const PEERS = join(root, 'bench', 'peers');
const HIVE_GATEWAY_BIN = join(PEERS, 'node_modules', '@graphql-hive', 'gateway', 'dist', 'bin.js');

/**
 * Hive Gateway's entry point, installed from bench/peers' lockfile when it is not yet (npm ci there, with the
 * npm that runs the bench): ~600 packages the suite and `npm start` never need stay out of the project's install.
 */
function hiveGatewayBin(): string {
  if (existsSync(HIVE_GATEWAY_BIN)) return HIVE_GATEWAY_BIN;
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  console.log('installing the peer gateway (bench/peers: npm ci)');
  const installed = spawnSync(command, [...args, 'ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: PEERS, stdio: 'inherit' });
  if (installed.status !== 0 || !existsSync(HIVE_GATEWAY_BIN)) throw new Error('could not install the peer gateway in bench/peers (npm ci)');
  return HIVE_GATEWAY_BIN;
}

export async function startPeers(instance: Instance): Promise<Peers> {
  const base = Number(instance.env.SUBGRAPH_PORT_BASE);
  const subgraphUrl = (name: (typeof SUBGRAPH_NAMES)[number]) => `http://127.0.0.1:${base + SUBGRAPH_NAMES.indexOf(name) + 1}/graphql`;
  // Hive Gateway on the same supergraph, composed with the instance's subgraph URLs: on its JavaScript planner,
  // and on the Rust query planner of Hive Router (@graphql-hive/router-runtime), each in a folder of its own.
  const startHive = async (rust: boolean) => {
    const work = mkdtempSync(join(tmpdir(), 'stagegraph-hive-'));
    const port = await freePort();
    writeFileSync(join(work, 'supergraph.graphql'), composeSupergraphSdl(subgraphUrl));
    writeFileSync(
      join(work, 'gateway.config.mjs'),
      `export const gatewayConfig = {
  supergraph: ${JSON.stringify(join(work, 'supergraph.graphql'))},
  port: ${port},
  host: '127.0.0.1',
  logging: 'error',
  propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ 'x-stagegraph-identity': request.headers.get('x-stagegraph-identity') }) },
  // Hive Gateway shares one upstream request among identical concurrent ones by default; stagegraph's
  // gateway does not, so the baseline sends every request upstream too.
  transportEntries: { '*.http': { options: { deduplicateInflightRequests: false } } },
};\n`,
    );
    const env = { ...process.env, HIVE_ROUTER_RUNTIME: rust ? 'true' : '' };
    return { port, process: run(process.execPath, [hiveGatewayBin(), 'supergraph'], { cwd: work, env }) };
  };
  const [javascript, rust] = [await startHive(false), await startHive(true)];
  const hive = javascript.process;
  const hivePort = javascript.port;
  // stagegraph's gateway as its own process, reaching the same subgraphs over HTTP.
  const gatewayPort = await freePort();
  const gateway = run(process.execPath, [join(instance.dist, 'gateway', 'index.js')], { env: { ...instance.env, PORT: String(gatewayPort) } });
  const peers: Peers = {
    hiveUrl: `http://127.0.0.1:${hivePort}/graphql`,
    hiveRustUrl: `http://127.0.0.1:${rust.port}/graphql`,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}/graphql`,
    hivePid: hive.pid,
    hiveRustPid: rust.process.pid,
    gatewayPid: gateway.pid,
    subgraphUrl,
    hiveHeaders: (siteId) => ({
      'content-type': 'application/json',
      'x-stagegraph-identity': signIdentity({ siteId, developerKey: true, account: null, requestId: 'bench' }, instance.env.INTERNAL_SECRET),
    }),
    stop: async () => {
      await Promise.all([hive.stop(), rust.process.stop(), gateway.stop()]);
    },
  };
  await waitFor(`http://127.0.0.1:${hivePort}/healthcheck`);
  await waitFor(`http://127.0.0.1:${rust.port}/healthcheck`);
  await waitFor(`http://127.0.0.1:${gatewayPort}/health`);
  return peers;
}

/** One operation to compare: its JSON body and the C + D headers of the site it reads. */
export interface PeerRequest {
  name: string;
  body: string;
  headers: Record<string, string>;
  siteId: string;
  /**
   * Requests per gateway instead of a fixed duration: a deep query under 50 clients on a loaded machine
   * may answer none within a few seconds, so it is measured over a fixed amount of work.
   */
  amount?: number;
}

const GATEWAYS = ['stagegraphInProcess', 'stagegraphOverHttp', 'hiveGatewayOverHttp', 'hiveRustOverHttp'] as const;
type Gateway = (typeof GATEWAYS)[number];

export interface PeerRow {
  query: string;
  answerBytes: number;
  /** Whether the four answered the same JSON (stagegraph's two answers byte for byte). */
  sameAnswers: boolean;
  stagegraphInProcess: LoadFigures;
  stagegraphOverHttp: LoadFigures;
  hiveGatewayOverHttp: LoadFigures;
  hiveRustOverHttp: LoadFigures;
  /** stagegraph requests/s over Hive Gateway's: in one process, and over HTTP. */
  inProcessOverHiveRps: number;
  overHttpOverHiveRps: number;
  inProcessOverHiveP95: number;
  overHttpOverHiveP95: number;
  /** stagegraph requests/s over Hive Gateway's on the Rust planner: in one process, and over HTTP. */
  inProcessOverHiveRustRps: number;
  overHttpOverHiveRustRps: number;
  /** Requests/s of every round, per gateway (the figures above are each gateway's median round). */
  roundsRps: Record<Gateway, number[]>;
  /** CPU ms per request of every round, per gateway (its processes and the subgraphs' process). */
  roundsCpuMs: Record<Gateway, number[]>;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The round whose requests/s is the median of the rounds (the lower middle one of an even count). */
function medianRound(rounds: LoadFigures[]): LoadFigures {
  return [...rounds].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor((rounds.length - 1) / 2)];
}

/**
 * Each request through the four gateways in turn, `connections` concurrent clients each, `rounds` times
 * (BENCH_PEER_ROUNDS, default 1): on a shared machine the load moves between runs, and rounds that take the
 * four in turn again and again, each gateway's median round reported, are less at its mercy than one pass.
 */
export async function comparePeers(
  instance: Instance,
  peers: Peers,
  requests: PeerRequest[],
  connections: number,
  duration: number,
  rounds = Number(process.env.BENCH_PEER_ROUNDS ?? 1),
): Promise<PeerRow[]> {
  const rows: PeerRow[] = [];
  for (const request of requests) {
    // Each gateway's processes, whose CPU time per request is read: the subgraphs run in the instance's.
    const targets = [
      { url: `${instance.url}/graphql`, headers: () => request.headers, pids: [instance.pid] },
      { url: peers.gatewayUrl, headers: () => request.headers, pids: [peers.gatewayPid, instance.pid] },
      { url: peers.hiveUrl, headers: () => peers.hiveHeaders(request.siteId), pids: [peers.hivePid, instance.pid] },
      { url: peers.hiveRustUrl, headers: () => peers.hiveHeaders(request.siteId), pids: [peers.hiveRustPid, instance.pid] },
    ];
    const answers = await Promise.all(
      targets.map(async (target) => (await fetch(target.url, { method: 'POST', headers: target.headers(), body: request.body })).text()),
    );
    for (const answer of answers) {
      const parsed = JSON.parse(answer) as { data?: unknown; errors?: unknown };
      if (!parsed.data || parsed.errors) throw new Error(`${request.name}: ${answer.slice(0, 500)}`);
    }
    const measured: LoadFigures[][] = targets.map(() => []);
    for (let round = 0; round < Math.max(1, rounds); round += 1) {
      for (const [index, target] of targets.entries()) {
        const options = { url: target.url, method: 'POST' as const, headers: target.headers(), body: request.body, connections };
        if (round === 0) await load({ ...options, ...(request.amount ? { amount: connections } : { duration: 1 }) });
        // A deep answer under 50 clients may take longer than autocannon's 10 s default to come back.
        const cpuBefore = sum(target.pids.map(cpuMsOf));
        const figures = await loadWithP95({ ...options, timeout: 60, ...(request.amount ? { amount: request.amount } : { duration }) });
        const answered = figures.answered ?? 0;
        const cpuMsPerRequest = answered > 0 ? Math.round(((sum(target.pids.map(cpuMsOf)) - cpuBefore) / answered) * 100) / 100 : NaN;
        measured[index].push({ ...figures, cpuMsPerRequest });
      }
    }
    const figures = measured.map(medianRound);
    const [inProcess, overHttp, hive, hiveRust] = figures;
    const same = (answer: string) => JSON.stringify(JSON.parse(answers[0])) === JSON.stringify(JSON.parse(answer));
    const perGateway = (read: (round: LoadFigures) => number) =>
      Object.fromEntries(GATEWAYS.map((name, index) => [name, measured[index].map(read)])) as Record<Gateway, number[]>;
    rows.push({
      query: request.name,
      answerBytes: Buffer.byteLength(answers[0]),
      sameAnswers: answers[0] === answers[1] && same(answers[2]) && same(answers[3]),
      stagegraphInProcess: inProcess,
      stagegraphOverHttp: overHttp,
      hiveGatewayOverHttp: hive,
      hiveRustOverHttp: hiveRust,
      inProcessOverHiveRps: ratio(inProcess.requestsPerSecond, hive.requestsPerSecond),
      overHttpOverHiveRps: ratio(overHttp.requestsPerSecond, hive.requestsPerSecond),
      inProcessOverHiveP95: ratio(inProcess.p95Ms ?? NaN, hive.p95Ms ?? NaN),
      overHttpOverHiveP95: ratio(overHttp.p95Ms ?? NaN, hive.p95Ms ?? NaN),
      inProcessOverHiveRustRps: ratio(inProcess.requestsPerSecond, hiveRust.requestsPerSecond),
      overHttpOverHiveRustRps: ratio(overHttp.requestsPerSecond, hiveRust.requestsPerSecond),
      roundsRps: perGateway((round) => round.requestsPerSecond),
      roundsCpuMs: perGateway((round) => round.cpuMsPerRequest ?? NaN),
    });
  }
  return rows;
}

/** The one-subgraph overlay query, 10 connections, beside the subgraph itself (the `peer` section). */
export async function measurePeerGateway(instance: Instance): Promise<PeerFigures> {
  const site = createSite(instance);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  for (let index = 0; index < 5; index += 1) {
    await fetch(`${instance.url}/overlay/v1`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `Overlay ${index}`, type: 'instance', contents: { text: 'hi' }, duration: 10 }),
    });
  }
  const body = JSON.stringify({ query: QUERY });
  const peers = await startPeers(instance);
  const signed = peers.hiveHeaders(site.siteId);
  const check = (await (await fetch(peers.hiveUrl, { method: 'POST', headers: signed, body })).json()) as { data?: { overlays: unknown[] } };
  if (!check.data || check.data.overlays.length !== 5) throw new Error(`Hive Gateway answered ${JSON.stringify(check)}`);

  for (const url of [peers.hiveUrl, peers.gatewayUrl])
    await load({ url, method: 'POST', headers: url === peers.hiveUrl ? signed : headers, body, duration: 1 });
  const subgraphDirect = await load({ url: peers.subgraphUrl('overlays'), method: 'POST', headers: signed, body });
  const stagegraphInProcess = await load({ url: `${instance.url}/graphql`, method: 'POST', headers, body });
  const stagegraphOverHttp = await load({ url: peers.gatewayUrl, method: 'POST', headers, body });
  const hiveGatewayOverHttp = await load({ url: peers.hiveUrl, method: 'POST', headers: peers.hiveHeaders(site.siteId), body });
  await peers.stop();
  return {
    subgraphDirect,
    stagegraphInProcess,
    stagegraphOverHttp,
    hiveGatewayOverHttp,
    stagegraphOverHiveP50: Math.round((stagegraphOverHttp.p50Ms / hiveGatewayOverHttp.p50Ms) * 100) / 100,
  };
}
