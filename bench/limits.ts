/**
 * What the GraphQL document limits cost: the gateway's one-subgraph query on two instances started
 * side by side, one with the limits (the default) and one with GRAPHQL_LIMITS=off (a switch that
 * exists for this measurement only). Rounds alternate between them so load on the machine falls on
 * both alike; each side's figure is the median of its rounds.
 */
import { load, siteWithOverlays, type LoadFigures } from './gateway';
import { startInstance, type Instance } from './harness';

export interface LimitsFigures {
  limitsOn: LoadFigures;
  limitsOff: LoadFigures;
  /** Gateway p50 with the limits over without (target ≤ 1.05×). */
  onOverOffP50: number;
  /** Requests per second without the limits over with them (≥ 1 = the limits cost throughput). */
  offOverOnRequests: number;
}

const QUERY = /* GraphQL */ `query Overlays { overlays { id name type duration } }`;
const ROUNDS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function prepared(instance: Instance) {
  const { headers } = await siteWithOverlays(instance);
  const options = { url: `${instance.url}/graphql`, method: 'POST' as const, headers, body: JSON.stringify({ query: QUERY }) };
  await load({ ...options, duration: 1 });
  return options;
}

function combined(rounds: LoadFigures[]): LoadFigures {
  return {
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map((round) => round.p99Ms)),
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
  };
}

export async function measureGraphQLLimits(): Promise<LimitsFigures> {
  const [on, off] = await Promise.all([startInstance(), startInstance({ env: { GRAPHQL_LIMITS: 'off' } })]);
  try {
    const onOptions = await prepared(on);
    const offOptions = await prepared(off);
    const onRounds: LoadFigures[] = [];
    const offRounds: LoadFigures[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      onRounds.push(await load(onOptions));
      offRounds.push(await load(offOptions));
    }
    const limitsOn = combined(onRounds);
    const limitsOff = combined(offRounds);
    return {
      limitsOn,
      limitsOff,
      onOverOffP50: Math.round((limitsOn.p50Ms / limitsOff.p50Ms) * 100) / 100,
      offOverOnRequests: Math.round((limitsOff.requestsPerSecond / limitsOn.requestsPerSecond) * 100) / 100,
    };
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}
