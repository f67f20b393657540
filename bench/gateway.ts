/**
 * Gateway and REST bridge overhead, side by side in one run against one instance: the same overlay
 * query sent straight to the overlays subgraph and through the gateway; the REST call beside its own
 * route's document sent through the gateway (the same operation: what the bridge adds is the route, the
 * credentials and the projection); plus a query that joins two subgraphs through the Site entity. Load
 * from autocannon, closed-loop. The p50s are of every answer's own time (autocannon's own are whole
 * milliseconds, too coarse for a ratio of answers that take one or two).
 */
import autocannon from 'autocannon';
import { routes } from '../rest-bridge/routes';
import { signIdentity } from '../shared/auth/identity';
import { createSite, percentile, type Instance } from './harness';

export interface LoadFigures {
  p50Ms: number;
  /** Set by loadWithP95 (autocannon's own percentiles skip p95). */
  p95Ms?: number;
  p99Ms: number;
  requestsPerSecond: number;
  errors: number;
  /** Requests answered (set by loadWithP95). */
  answered?: number;
  /**
   * CPU time of the serving processes per request, in ms (the gateway comparison sets it): what the machine's
   * load moves least, since a busy machine stretches wall time but not the work done.
   */
  cpuMsPerRequest?: number;
}

export interface GatewayFigures {
  subgraphDirect: LoadFigures;
  gateway: LoadFigures;
  /** The REST route's own document (GET /overlay/v1's) through the gateway: what `rest` is compared with. */
  gatewayRouteDocument: LoadFigures;
  rest: LoadFigures;
  gatewayJoin: LoadFigures;
  gatewayOverSubgraphP50: number;
  restOverGatewayP50: number;
}

const QUERY = /* GraphQL */ `query Overlays { overlays { id name type duration } }`;
const JOIN = /* GraphQL */ `query SiteOverlays { site { id name overlays { id name } } }`;

/**
 * Requests answered per second over a run of fixed duration, to a tenth. A run of a fixed amount of requests
 * (the deep query's) is timed by loadWithP95 instead: autocannon notices the last answer at its next
 * once-a-second tick, so both its `requests.average` and its `duration` quantise such a run into whole seconds
 * (600 requests: 120, 100 or 86 req/s, nothing between).
 */
function perSecond(result: autocannon.Result): number {
  return result.duration > 0 ? Math.round((result.requests.total / result.duration) * 10) / 10 : Math.round(result.requests.average);
}

export async function load(options: autocannon.Options): Promise<LoadFigures> {
  const result = await autocannon({ connections: 10, duration: Number(process.env.BENCH_SECONDS ?? 8), ...options });
  return {
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requestsPerSecond: perSecond(result),
    errors: result.errors + result.non2xx,
  };
}

/**
 * As `load`, with p95 computed from every response's latency, and requests/s timed from the start to the last
 * answer (see perSecond).
 */
export async function loadWithP95(options: autocannon.Options): Promise<LoadFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon({ connections: 10, duration: Number(process.env.BENCH_SECONDS ?? 8), ...options }, (error, finished) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(finished),
    );
    run.on('response', (_client, _status, _bytes, ms: number) => {
      latencies.push(ms);
      lastAnswer = performance.now();
    });
  });
  const seconds = (lastAnswer - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    p50Ms: Math.round(percentile(latencies, 50) * 100) / 100,
    p95Ms: Math.round(percentile(latencies, 95) * 10) / 10,
    p99Ms: result.latency.p99,
    requestsPerSecond: seconds > 0 ? Math.round((latencies.length / seconds) * 10) / 10 : perSecond(result),
    errors: result.errors + result.non2xx,
    answered: latencies.length,
  };
}

/** A new site with five overlays, and the admin headers that read them: what the gateway queries measure. */
export async function siteWithOverlays(instance: Instance) {
  const site = createSite(instance);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  for (let index = 0; index < 5; index += 1) {
    await fetch(`${instance.url}/overlay/v1`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `Overlay ${index}`, type: 'instance', contents: { text: 'hello' }, duration: 10 }),
    });
  }
  return { site, headers };
}

/** Rounds of the REST bridge and of its operation through the gateway, alternating. */
const ROUTE_ROUNDS = 3;

/** The round with the median p50. */
function medianRound(rounds: LoadFigures[]): LoadFigures {
  return [...rounds].sort((a, b) => a.p50Ms - b.p50Ms)[Math.floor(rounds.length / 2)];
}

export async function measureGateway(instance: Instance): Promise<GatewayFigures> {
  const { site, headers } = await siteWithOverlays(instance);
  const subgraphUrl = `http://127.0.0.1:${Number(instance.env.SUBGRAPH_PORT_BASE) + 3}/graphql`;
  const identity = signIdentity({ siteId: site.siteId, developerKey: true, account: null, requestId: 'bench' }, instance.env.INTERNAL_SECRET);
  const body = JSON.stringify({ query: QUERY });

  const routeDocument = routes.find((route) => route.operationId === 'listOverlays')!.document;

  // Warm every path once (plans, documents, connections).
  await load({ url: `${instance.url}/graphql`, method: 'POST', headers, body, duration: 1 });
  await load({ url: `${instance.url}/overlay/v1`, method: 'GET', headers, duration: 1 });
  const subgraphDirect = await loadWithP95({
    url: subgraphUrl,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-stagegraph-identity': identity },
    body,
  });
  const gateway = await loadWithP95({ url: `${instance.url}/graphql`, method: 'POST', headers, body });
  // The bridge beside its operation through the gateway in alternating rounds, each side's median round
  // kept: a shared machine's load moves between runs more than the bridge's cost does.
  const gatewayRounds: LoadFigures[] = [];
  const restRounds: LoadFigures[] = [];
  for (let round = 0; round < ROUTE_ROUNDS; round += 1) {
    gatewayRounds.push(await loadWithP95({ url: `${instance.url}/graphql`, method: 'POST', headers, body: JSON.stringify({ query: routeDocument }) }));
    restRounds.push(await loadWithP95({ url: `${instance.url}/overlay/v1`, method: 'GET', headers }));
  }
  const gatewayRouteDocument = medianRound(gatewayRounds);
  const rest = medianRound(restRounds);
  const gatewayJoin = await loadWithP95({ url: `${instance.url}/graphql`, method: 'POST', headers, body: JSON.stringify({ query: JOIN }) });
  return {
    subgraphDirect,
    gateway,
    gatewayRouteDocument,
    rest,
    gatewayJoin,
    gatewayOverSubgraphP50: Math.round((gateway.p50Ms / subgraphDirect.p50Ms) * 100) / 100,
    restOverGatewayP50: Math.round((rest.p50Ms / gatewayRouteDocument.p50Ms) * 100) / 100,
  };
}
