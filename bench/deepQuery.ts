/** The deep query of the gateway section (test/helpers/deepQuery.ts), seeded on a bench instance and measured against the peers. */
import { seedDeepSite, type DeepQuery } from '../test/helpers/deepQuery';
import { siteWithOverlays } from './gateway';
import { callJson, createSite, type Instance } from './harness';
import { comparePeers, startPeers, type PeerRow } from './peer';

/** Seeds a new site of `instance` and returns the deep request. */
export function seedDeepQuery(instance: Instance): Promise<DeepQuery> {
  return seedDeepSite((method, path, headers, body) => callJson(instance, method, path, headers, body), createSite(instance), instance.env.JWT_SECRET);
}

/** Concurrent clients of the comparison (issue #39). */
const CONNECTIONS = 50;

/**
 * The one-subgraph query and the deep query, each through stagegraph in one process, stagegraph's
 * gateway over HTTP and Hive Gateway over HTTP, 50 concurrent clients, in one run.
 */
export async function measureDeepGateway(instance: Instance): Promise<PeerRow[]> {
  const overlays = await siteWithOverlays(instance);
  const deep = await seedDeepQuery(instance);
  const peers = await startPeers(instance);
  try {
    const duration = Number(process.env.BENCH_SECONDS ?? 5);
    return await comparePeers(
      instance,
      peers,
      [
        {
          name: 'one subgraph (overlays)',
          body: JSON.stringify({ query: 'query Overlays { overlays { id name type duration } }' }),
          headers: overlays.headers,
          siteId: overlays.site.siteId,
        },
        { name: 'deep (4 subgraphs)', body: deep.body, headers: deep.headers, siteId: deep.siteId, amount: Number(process.env.BENCH_DEEP_REQUESTS ?? 100) },
      ],
      CONNECTIONS,
      duration,
    );
  } finally {
    await peers.stop();
  }
}
