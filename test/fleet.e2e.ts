/**
 * A fleet behind a real HAProxy (deploy/haproxy.cfg through scripts/fleet.ts): three instances as their
 * own processes on one PostgreSQL and a redis-server of this test's own, live viewers (the graphql-ws
 * client with retries and jittered backoff) and a writer, all through the balancer. Faults for real:
 * kill -9 of an instance, a rolling SIGTERM restart of all three, Redis stopped and started again. Each
 * counts failed writes (0; after a kill -9 at most the one in flight, answered 502, never run twice) and
 * lost writes (0), the longest viewer gap (≤ 10 s, from the socket closing to the
 * live overlay being back) and checks every viewer has the live overlay again.
 *
 * It needs PostgreSQL (DATABASE_URL), Redis (REDIS_URL) and haproxy on PATH, as `.ci/run` provides in its
 * PostgreSQL + Redis pass; in the SQLite pass only the HAProxy configuration is checked, and the test's
 * title says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { openDatabase } from '../shared/db/client';
import { provisionSite } from '../subgraphs/community/sites';
import { fleetHaproxyConfig, type Fleet } from '../scripts/fleet';
import { installed, startRedis, type LocalServer } from '../scripts/services';
import { createTestDatabase, usingPostgres, usingRedis, type TestDatabase } from './helpers/database';
import { startTestFleet } from './helpers/fleet';
import { rest } from './helpers/http';
import { VIEWER_SUBSCRIPTION } from './helpers/viewer';

const haproxyInstalled = installed('haproxy', '-v');
const GAP_LIMIT_MS = 10_000;

it(`the shipped HAProxy configuration and the fleet's are valid${usingPostgres && usingRedis ? '' : ' (the fleet faults below run only on PostgreSQL + Redis with haproxy: not in this run)'}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-haproxy-'));
  try {
    const generated = fleetHaproxyConfig('127.0.0.1', 18080, join(dir, 'admin.sock'), [{ name: 'app1', port: 18081 }, { name: 'app2', port: 18082 }]);
    expect(generated).toMatch(/^\s+bind 127\.0\.0\.1:18080$/m);
    expect(generated.match(/^\s+server .*$/gm)).toEqual(['    server app1 127.0.0.1:18081', '    server app2 127.0.0.1:18082']);
    expect(generated).toMatch(/http-check send meth GET uri \/ready/);
    expect(generated).toMatch(/retry-on conn-failure empty-response$/m);
    // No sticky sessions: nothing outside the comments pins a client to an instance.
    expect(generated.replace(/#.*$/gm, '')).not.toMatch(/\bcookie\b|stick|balance source/);
    if (!haproxyInstalled) return;
    writeFileSync(join(dir, 'fleet.cfg'), generated);
    for (const file of [join(__dirname, '..', 'deploy', 'haproxy.cfg'), join(dir, 'fleet.cfg')]) {
      expect(execFileSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' })).toMatch(/Configuration file is valid/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

if (usingPostgres && usingRedis) {
  it('haproxy is installed (the fleet tests need it wherever PostgreSQL and Redis are given, as in .ci/run)', () => {
    expect(haproxyInstalled).toBe(true);
  });
}

/** A viewer through the balancer, with the time it went without the live overlay. */
interface FleetViewer {
  client: Client;
  /** Broadcast IDs received since the socket last (re)connected. */
  sinceConnect: Set<string>;
  all: string[];
  /** When the socket closed and the live overlay has not been back since; null while it is there. */
  downSince: number | null;
  longestGapMs: number;
  reconnects: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(50);
  }
}

if (usingPostgres && usingRedis && haproxyInstalled) {
  describe('a fleet of three behind HAProxy', () => {
    let database: TestDatabase;
    let redis: LocalServer;
    let fleet: Fleet;
    let site: { siteId: string; developerKey: string };
    let admin: Record<string, string>;
    let live: string;
    const viewers: FleetViewer[] = [];
    /** The broadcast every viewer must have back after each fault. */
    const channelId = 'main-stage';

    beforeAll(async () => {
      database = await createTestDatabase();
      redis = (await startRedis()) as LocalServer;
      fleet = await startTestFleet(database, redis, { instances: 3, shutdownGraceMs: 2000 });
      const db = await openDatabase(database.url, { migrate: false });
      site = await provisionSite(db.prisma, { name: 'Fleet' });
      await db.close();
      admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };

      const overlay = await rest(fleet, 'POST', '/overlay/v1', { headers: admin, body: { name: 'Live', type: 'instance', contents: { text: 'on air' }, duration: 600 } });
      const shown = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      expect(shown.status).toBe(200);
      live = shown.body.broadcastId;
      for (let index = 0; index < 30; index += 1) viewers.push(connectViewer());
      await eventually(() => viewers.every((viewer) => viewer.sinceConnect.has(live)), 20_000, 'every viewer has the live overlay');
    }, 180_000);

    afterAll(async () => {
      for (const viewer of viewers) await viewer.client.dispose();
      await fleet?.stop();
      await redis?.stop();
      await database?.drop();
    }, 60_000);

    function connectViewer(): FleetViewer {
      const viewer: FleetViewer = { client: null as unknown as Client, sinceConnect: new Set(), all: [], downSince: null, longestGapMs: 0, reconnects: 0 };
      viewer.client = createClient({
        url: `${fleet.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { 'x-service-client-id': site.siteId },
        lazy: false,
        onNonLazyError: () => undefined,
        retryAttempts: Number.POSITIVE_INFINITY,
        shouldRetry: () => true,
        // Jittered exponential backoff, as the embed does: an audience dropped at once does not come back at once.
        retryWait: (retries) => sleep(Math.min(4000, 250 * 2 ** retries) * (0.5 + Math.random() / 2)),
        on: {
          connected: (_socket, _payload, wasRetry) => {
            viewer.sinceConnect = new Set();
            if (wasRetry) viewer.reconnects += 1;
          },
          closed: () => {
            viewer.downSince ??= Date.now();
          },
        },
      });
      viewer.client.subscribe<{ overlayBroadcasts: { kind: string; broadcastId: string } }>(
        { query: VIEWER_SUBSCRIPTION, variables: { channelId } },
        {
          next: (result) => {
            const event = result.data?.overlayBroadcasts;
            if (!event || event.kind !== 'SHOW') return;
            viewer.sinceConnect.add(event.broadcastId);
            viewer.all.push(event.broadcastId);
            if (event.broadcastId === live && viewer.downSince !== null) {
              viewer.longestGapMs = Math.max(viewer.longestGapMs, Date.now() - viewer.downSince);
              viewer.downSince = null;
            }
          },
          error: () => undefined,
          complete: () => undefined,
        },
      );
      return viewer;
    }

    /** Writes through the balancer one after another until stopped; every answer is counted. */
    function startWriter() {
      const written: string[] = [];
      const failed: string[] = [];
      let running = true;
      const done = (async () => {
        for (let n = 0; running; n += 1) {
          try {
            const reply = await rest(fleet, 'POST', '/overlay/v1', { headers: admin, body: { name: `w${n}`, type: 'instance', contents: { n }, duration: 5 } });
            if (reply.status === 200) written.push(reply.body._id);
            else failed.push(`${reply.status} ${JSON.stringify(reply.body)}`);
          } catch (error) {
            failed.push((error as Error).message);
          }
          await sleep(20);
        }
      })();
      return {
        async stop() {
          running = false;
          await done;
          // Every write answered 2xx is there, read back through the balancer.
          let lost = 0;
          for (const id of written) if ((await rest(fleet, 'GET', `/overlay/v1/${id}`, { headers: admin })).status !== 200) lost += 1;
          return { written: written.length, failed, lost };
        },
      };
    }

    /** Every viewer is connected and has the live overlay since; the longest gap of the fault, then reset. */
    async function viewersBack(what: string) {
      await eventually(() => viewers.every((viewer) => viewer.downSince === null && viewer.sinceConnect.has(live)), 30_000, `${what}: every viewer back with the live overlay`);
      const longestGapMs = Math.max(...viewers.map((viewer) => viewer.longestGapMs));
      const reconnected = viewers.filter((viewer) => viewer.reconnects > 0).length;
      for (const viewer of viewers) {
        viewer.longestGapMs = 0;
        viewer.reconnects = 0;
      }
      return { longestGapMs, reconnected };
    }

    const report = (what: string, figures: object) => process.stdout.write(`fleet ${what}: ${JSON.stringify(figures)}\n`);

    it('kill -9 of one instance under load: its viewers come back on the others within 10 s with the live overlay; every write answered 2xx is stored', async () => {
      const writer = startWriter();
      await sleep(500);
      const victim = fleet.instances[0];
      await victim.stop('SIGKILL');
      await fleet.waitForServer(victim.name, 'DOWN');
      const { longestGapMs, reconnected } = await viewersBack('kill -9');
      await sleep(300);
      const writes = await writer.stop();
      report('kill -9', { longestGapMs, reconnected, ...writes, failed: writes.failed.length });
      expect(reconnected).toBeGreaterThan(0);
      expect(longestGapMs).toBeLessThanOrEqual(GAP_LIMIT_MS);
      // A write in flight on the killed instance may have been committed before it died: the balancer
      // does not run it again elsewhere (deploy/haproxy.cfg), it answers 502 — at most that one of this
      // sequential writer. Every other write goes to the live instances.
      expect(writes.failed.length).toBeLessThanOrEqual(1);
      for (const failure of writes.failed) expect(failure).toMatch(/^50[23] /);
      expect(writes.lost).toBe(0);
      expect(writes.written).toBeGreaterThan(0);

      await victim.start();
      await fleet.waitForServer(victim.name, 'UP');
    }, 90_000);

    it('a rolling SIGTERM restart of every instance: /ready 503 while draining, no write fails or is lost, every viewer back within 10 s', async () => {
      const writer = startWriter();
      let drainingReady = 0;
      for (const instance of fleet.instances) {
        const stopped = instance.stop('SIGTERM');
        await sleep(100);
        drainingReady = (await fetch(`${instance.url}/ready`)).status;
        expect(drainingReady).toBe(503);
        await stopped;
        await instance.start();
        await fleet.waitForServer(instance.name, 'UP');
      }
      const { longestGapMs, reconnected } = await viewersBack('rolling restart');
      const writes = await writer.stop();
      report('rolling restart', { longestGapMs, reconnected, ...writes, failed: writes.failed.length });
      expect(reconnected).toBe(viewers.length);
      expect(longestGapMs).toBeLessThanOrEqual(GAP_LIMIT_MS);
      expect(writes.failed).toEqual([]);
      expect(writes.lost).toBe(0);
    }, 150_000);

    it('Redis stopped and started: every instance stays in the balancer, writes go on, broadcasts answer 503; the first broadcast answered 200 afterwards reaches every viewer', async () => {
      const writer = startWriter();
      const overlay = await rest(fleet, 'POST', '/overlay/v1', { headers: admin, body: { name: 'After', type: 'instance', contents: {}, duration: 120 } });
      await redis.stop();
      for (const instance of fleet.instances) {
        await eventually(async () => (await rest(instance, 'GET', '/health')).body.bus.connected === false, 10_000, `${instance.name} sees Redis gone`);
        expect((await rest(instance, 'GET', '/ready')).status).toBe(200);
      }
      await sleep(1200); // two health-check intervals
      expect(Object.values(await fleet.serverStates())).toEqual(['UP', 'UP', 'UP']);
      const refused = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ success: false, message: expect.any(String) });

      redis = (await startRedis(redis.port)) as LocalServer;
      // The first broadcast any instance accepts, while the others may still be reconnecting.
      let sent = refused;
      const restarted = Date.now();
      while (sent.status !== 200 && Date.now() - restarted < 15_000) {
        await sleep(20);
        sent = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      }
      expect(sent.status).toBe(200);
      const acceptedAfterMs = Date.now() - restarted;
      await eventually(() => viewers.every((viewer) => viewer.sinceConnect.has(sent.body.broadcastId)), GAP_LIMIT_MS, 'the broadcast reaches every viewer');
      const writes = await writer.stop();
      report('Redis stop/start', { acceptedAfterMs, viewersReached: viewers.length, ...writes, failed: writes.failed.length });
      expect(viewers.every((viewer) => viewer.downSince === null)).toBe(true);
      expect(writes.failed).toEqual([]);
      expect(writes.lost).toBe(0);
    }, 90_000);
  });
}
