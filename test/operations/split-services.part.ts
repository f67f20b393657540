/**
 * The split deployment: each subgraph (`subgraphs/<name>/index.ts`), the gateway (`gateway/index.ts`) and the
 * REST bridge (`rest-bridge/index.ts`) as a process of its own, as docs/design.md's "Public surface" promises, on
 * one migrated throwaway database and one Redis (several processes share broadcasts only through it: the test
 * starts its own redis-server when REDIS_URL is unset). Subgraphs reach each other's data through the gateway
 * process (the inter-process supergraph client, identities signed with INTERNAL_SECRET). A process that exits
 * before the file ends fails the test that was running, with its stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SUBGRAPH_NAMES } from '../../shared/config';
import { openDatabase, type Database } from '../../shared/db/client';
import { freePort, startRedis, type LocalServer } from '../../scripts/services';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { rest } from '../helpers/http';
import { walkRoutes } from '../helpers/routeWalk';
import { createTestSite, grantEntitlement, stopAll, testConfig, TEST_SECRETS, type TestSite } from '../helpers/stack';
import { entryArgs } from '../helpers/serverProcess';
import { watch, type Viewer } from '../helpers/viewer';

const root = join(__dirname, '..', '..');

/** A service process: what it wrote to stderr (for the failure message) and how it ended, if it did. */
interface ServiceProcess {
  name: string;
  child: ChildProcess;
  stderr: string;
  exit: string | null;
}

const services: ServiceProcess[] = [];
let stopping = false;
let database: TestDatabase;
let opened: Database;
let redis: LocalServer | null = null;
let dataDir: string;
let gateway: { url: string };
let bridge: { url: string };
let site: TestSite;
const viewers: Viewer[] = [];

/** Fails with the stderr of every service process that has exited on its own. */
function assertAllRunning(): void {
  const gone = services.filter((service) => service.exit !== null);
  if (gone.length) throw new Error(gone.map((service) => `${service.name} exited early (${service.exit}):\n${service.stderr}`).join('\n'));
}

/**
 * Starts `file` (its source through tsx, or its build: helpers/serverProcess.ts) and resolves once it logs
 * `ready` (its start-up line); rejects with its stderr when it exits first.
 */
function startService(name: string, file: string, env: Record<string, string>, ready: string): Promise<void> {
  const child = spawn(process.execPath, entryArgs(file), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const service: ServiceProcess = { name, child, stderr: '', exit: null };
  services.push(service);
  child.stderr.on('data', (chunk: Buffer) => (service.stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => {
      service.exit = `code ${code}, signal ${signal}`;
      if (!stopping) reject(new Error(`${name} exited before it was ready (${service.exit}):\n${service.stderr}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = line.startsWith('{') ? (JSON.parse(line) as { msg?: unknown }) : null;
      if (entry?.msg === ready) resolve();
    });
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  // Migrated once here, before any service opens it (each would otherwise race to migrate it).
  opened = await openDatabase(database.url);
  if (!process.env.REDIS_URL) {
    redis = await startRedis();
    if (!redis) throw new Error('the split deployment shares broadcasts through Redis: install redis-server (apt-get install redis-server) or set REDIS_URL');
  }
  dataDir = mkdtempSync(join(tmpdir(), 'stagegraph-split-'));
  const [gatewayPort, bridgePort, subgraphBase] = [await freePort(), await freePort(), await freePort(SUBGRAPH_NAMES.length + 1)];
  gateway = { url: `http://127.0.0.1:${gatewayPort}` };
  bridge = { url: `http://127.0.0.1:${bridgePort}` };
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...TEST_SECRETS,
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? redis!.url,
    REDIS_PREFIX: `sgtest-${randomBytes(4).toString('hex')}`,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(gatewayPort),
    SUBGRAPH_HOST: '127.0.0.1',
    SUBGRAPH_PORT_BASE: String(subgraphBase),
    GATEWAY_URL: `${gateway.url}/graphql`,
    REST_BRIDGE_PORT: String(bridgePort),
    // No balancer to drain from: SIGTERM stops at once.
    SHUTDOWN_GRACE_MS: '0',
    LOG_LEVEL: 'info',
  };
  await Promise.all([
    ...SUBGRAPH_NAMES.map((name) => startService(name, `subgraphs/${name}/index.ts`, env, `${name} started`)),
    startService('gateway', 'gateway/index.ts', env, 'gateway started'),
    startService('rest-bridge', 'rest-bridge/index.ts', env, 'rest bridge started'),
  ]);
  site = await createTestSite({ database: opened, config: testConfig(database.url) }, 'Split site');
}, 180_000);

afterEach(async () => {
  await Promise.all(viewers.splice(0).map((viewer) => viewer.close()));
  assertAllRunning();
});

afterAll(async () => {
  stopping = true;
  await Promise.all(
    services.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }),
  );
  await opened?.close();
  await redis?.stop();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await stopAll();
});

describe('the REST bridge process walks every route of the table', () => {
  walkRoutes(() => ({ url: bridge.url, siteId: site.siteId }));

  it('answers unknown paths with 404 in the REST error shape', async () => {
    const reply = await rest(bridge, 'GET', '/no/such/path', { headers: site.admin });
    expect(reply).toMatchObject({ status: 404, body: { success: false, message: 'no route for GET /no/such/path' } });
  });
});

it('a broadcast made through the REST bridge process reaches a graphql-ws viewer of the gateway process', async () => {
  // A real channel of the site: a viewer cannot subscribe to one it invents.
  const page = await rest(bridge, 'POST', '/pages/v3', { headers: site.admin, body: { slug: 'split-stage', type: 'channel', data: { name: 'Split stage' } } });
  expect(page.status).toBeLessThan(300);
  const stage = page.body._id as string;
  const viewer = await watch(gateway, { siteId: site.siteId, channelId: stage });
  viewers.push(viewer);
  const overlay = await rest(bridge, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Split', type: 'template', contents: { html: '<p>${name}</p>' }, duration: 20 },
  });
  expect(overlay.status).toBe(200);
  const sent = await rest(bridge, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, {
    headers: site.admin,
    body: { channelId: stage, variables: { name: 'Ada' } },
  });
  expect(sent.status).toBe(200);
  const event = await viewer.next();
  expect(event).toMatchObject({ kind: 'SHOW', broadcastId: sent.body.broadcastId, channelId: stage, overlay: { id: overlay.body._id } });
  expect(event.overlay.contents.html).toBe('<p>Ada</p>');
});

it('the content subgraph process asks the community subgraph process through the gateway process (a gated channel)', async () => {
  const page = await rest(bridge, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'split-gated',
      type: 'channel',
      data: { name: 'Gated', gate: { active: true, kind: 'subscription', gate: { subscriptions: ['season-pass'], title: 'Ticket' } } },
    },
  });
  expect(page.status).toBe(200);
  const { accountId, token } = await site.signIn([]);
  const check = () =>
    rest(bridge, 'GET', `/pages/v2/content/id/${page.body._id}`, {
      headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${token}`, 'x-service-device-id': 'device-1' },
    });
  const without = await check();
  expect(without.status).toBe(200);
  expect(without.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'none', userHasChannelGateEntitlement: false });
  // The entitlement lives in the community subgraph's tables; content learns of it only over the supergraph.
  await grantEntitlement({ database: opened }, site.siteId, accountId, 'season-pass');
  const withIt = await check();
  expect(withIt.body.canIPlayResponse.contentCheck).toMatchObject({ access: 'full', userHasChannelGateEntitlement: true });
});
