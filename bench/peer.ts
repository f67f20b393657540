/**
 * Peer baseline: the same supergraph and query served by @graphql-hive/gateway (the Node.js peer, a
 * dev dependency used only here) next to stagegraph's gateway, all against the subgraphs of one running
 * instance. Both gateways reach the subgraphs over HTTP here; stagegraph's in-process path (npm start)
 * is measured too. Hive Gateway does no authentication: it forwards the signed identity a client of the
 * deployment presents, so it does less work per request than stagegraph's gateway. Its default
 * deduplication of identical in-flight upstream requests is turned off so both do the same work.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeSupergraphSdl } from '../gateway/compose';
import { SUBGRAPH_NAMES } from '../shared/config';
import { signIdentity } from '../shared/auth/identity';
import { load, type LoadFigures } from './gateway';
import { createSite, freePort, root, type Instance } from './harness';

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
  return () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')));
}

export async function measurePeerGateway(instance: Instance): Promise<PeerFigures> {
  const site = createSite(instance);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  for (let index = 0; index < 5; index += 1) {
    await fetch(`${instance.url}/overlay/v1`, { method: 'POST', headers, body: JSON.stringify({ name: `Overlay ${index}`, type: 'instance', contents: { text: 'hi' }, duration: 10 }) });
  }
  const base = Number(instance.env.SUBGRAPH_PORT_BASE);
  const subgraphUrl = (name: (typeof SUBGRAPH_NAMES)[number]) => `http://127.0.0.1:${base + SUBGRAPH_NAMES.indexOf(name) + 1}/graphql`;
  const identity = signIdentity({ siteId: site.siteId, developerKey: true, account: null, requestId: 'bench' }, instance.env.INTERNAL_SECRET);
  const signed = { 'content-type': 'application/json', 'x-stagegraph-identity': identity };
  const body = JSON.stringify({ query: QUERY });

  // Hive Gateway on the same supergraph, composed with the instance's subgraph URLs.
  const work = mkdtempSync(join(tmpdir(), 'stagegraph-hive-'));
  const hivePort = await freePort();
  writeFileSync(join(work, 'supergraph.graphql'), composeSupergraphSdl(subgraphUrl));
  writeFileSync(
    join(work, 'gateway.config.mjs'),
    `export const gatewayConfig = {
  supergraph: ${JSON.stringify(join(work, 'supergraph.graphql'))},
  port: ${hivePort},
  host: '127.0.0.1',
  logging: 'error',
  propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ 'x-stagegraph-identity': request.headers.get('x-stagegraph-identity') }) },
  // Hive Gateway shares one upstream request among identical concurrent ones by default; stagegraph's
  // gateway does not, so the baseline sends every request upstream too.
  transportEntries: { '*.http': { options: { deduplicateInflightRequests: false } } },
};\n`,
  );
  const stopHive = run(process.execPath, [join(root, 'node_modules', '@graphql-hive', 'gateway', 'dist', 'bin.js'), 'supergraph'], { cwd: work });
  // stagegraph's gateway as its own process, reaching the same subgraphs over HTTP.
  const gatewayPort = await freePort();
  const stopGateway = run(process.execPath, [join(root, 'dist', 'gateway', 'index.js')], { env: { ...instance.env, PORT: String(gatewayPort) } });
  const hiveUrl = `http://127.0.0.1:${hivePort}/graphql`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}/graphql`;
  await waitFor(hiveUrl, { method: 'POST', headers: signed, body });
  await waitFor(`http://127.0.0.1:${gatewayPort}/health`);

  const check = await (await fetch(hiveUrl, { method: 'POST', headers: signed, body })).json() as { data?: { overlays: unknown[] } };
  if (!check.data || check.data.overlays.length !== 5) throw new Error(`Hive Gateway answered ${JSON.stringify(check)}`);

  for (const url of [hiveUrl, gatewayUrl]) await load({ url, method: 'POST', headers: url === hiveUrl ? signed : headers, body, duration: 1 });
  const subgraphDirect = await load({ url: subgraphUrl('overlays'), method: 'POST', headers: signed, body });
  const stagegraphInProcess = await load({ url: `${instance.url}/graphql`, method: 'POST', headers, body });
  const stagegraphOverHttp = await load({ url: gatewayUrl, method: 'POST', headers, body });
  const hiveGatewayOverHttp = await load({ url: hiveUrl, method: 'POST', headers: signed, body });
  await Promise.all([stopHive(), stopGateway()]);
  return {
    subgraphDirect,
    stagegraphInProcess,
    stagegraphOverHttp,
    hiveGatewayOverHttp,
    stagegraphOverHiveP50: Math.round((stagegraphOverHttp.p50Ms / hiveGatewayOverHttp.p50Ms) * 100) / 100,
  };
}
