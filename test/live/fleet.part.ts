/**
 * A fleet behind a real HAProxy (deploy/haproxy.cfg through scripts/fleet.ts): three instances as their
 * own processes on one PostgreSQL and a redis-server of this test's own, live viewers (the graphql-ws
 * client with retries and jittered backoff) and a writer, all through the balancer. Faults for real:
 * kill -9 of an instance, a rolling SIGTERM restart of all three, Redis stopped and started again. Each
 * counts failed writes (0; after a kill -9 only writes sent before the balancer saw the instance down,
 * whatever form the failure takes: a 502/503 or a dropped connection), lost writes (0), writes stored
 * twice (0, read from the database), the longest viewer gap (≤ 10 s, from the socket closing to the live
 * overlay being back) and checks every viewer has the live overlay again.
 *
 * The tests share the suite's two cores, so nothing here waits on a clock: every wait is on a condition
 * (an instance's /ready, HAProxy's view through its admin socket, the health checks an instance has
 * answered, a viewer's reconnect) with a generous deadline. Each test starts from a whole fleet:
 * `afterEach` restores any instance or Redis a test stopped, so one failure never explains another.
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
import { openDatabase, type Database } from '../../shared/db/client';
import { provisionSite } from '../../subgraphs/community/sites';
import { fleetHaproxyConfig, type Fleet } from '../../scripts/fleet';
import { installed, startRedis, type LocalServer } from '../../scripts/services';
import { createTestDatabase, usingPostgres, usingRedis, type TestDatabase } from '../helpers/database';
import { startTestFleet } from '../helpers/fleet';
import { followOverlay, newFleetViewer, retryBackoff, viewerGaps, type FleetViewer } from '../helpers/fleetViewer';
import { createChannel } from '../helpers/stack';
import { rest } from '../helpers/http';
import { VIEWER_SUBSCRIPTION } from '../helpers/viewer';
import { eventually, expectStatus, pause, until } from '../helpers/wait';

const haproxyInstalled = installed('haproxy', '-v');
const GAP_LIMIT_MS = 10_000;

it(`the shipped HAProxy configuration and the fleet's are valid${usingPostgres && usingRedis ? '' : ' (the fleet faults below run only on PostgreSQL + Redis with haproxy: not in this run)'}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-haproxy-'));
  try {
    const generated = fleetHaproxyConfig('127.0.0.1', 18080, join(dir, 'admin.sock'), [
      { name: 'app1', port: 18081 },
      { name: 'app2', port: 18082 },
    ]);
    expect(generated).toMatch(/^\s+bind 127\.0\.0\.1:18080$/m);
    expect(generated.match(/^\s+server .*$/gm)).toEqual(['    server app1 127.0.0.1:18081', '    server app2 127.0.0.1:18082']);
    expect(generated).toMatch(/http-check send meth GET uri \/ready/);
    expect(generated).toMatch(/retry-on conn-failure empty-response$/m);
    // No sticky sessions: nothing outside the comments pins a client to an instance.
    expect(generated.replace(/#.*$/gm, '')).not.toMatch(/\bcookie\b|stick|balance source/);
    if (!haproxyInstalled) return;
    writeFileSync(join(dir, 'fleet.cfg'), generated);
    for (const file of [join(__dirname, '..', '..', 'deploy', 'haproxy.cfg'), join(dir, 'fleet.cfg')]) {
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

/** A write through the balancer that did not answer 2xx: what the client saw, and when it was sent. */
interface FailedWrite {
  name: string;
  sentAt: number;
  failure: string;
}

/** The sum of one metric's samples whose labels include `labels` in an instance's /metrics text. */
function metricSum(text: string, name: string, labels: string[] = []): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels.every((label) => line.includes(label))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

if (usingPostgres && usingRedis && haproxyInstalled) {
  describe('a fleet of three behind HAProxy', () => {
    let database: TestDatabase;
    let db: Database;
    let redis: LocalServer;
    let redisRunning = false;
    let fleet: Fleet;
    let site: { siteId: string; developerKey: string };
    let admin: Record<string, string>;
    let live: string;
    const viewers: FleetViewer<Client>[] = [];
    /** The broadcast every viewer must have back after each fault. */
    let channelId: string;

    beforeAll(async () => {
      database = await createTestDatabase();
      redis = (await startRedis()) as LocalServer;
      redisRunning = true;
      // A drain longer than HAProxy's fall time (2 checks 500 ms apart), and long enough to be seen
      // answering 503 by a test process that shares two loaded cores.
      fleet = await startTestFleet(database, redis, { instances: 3, shutdownGraceMs: 3000 });
      db = await openDatabase(database.url, { migrate: false });
      site = await provisionSite(db.prisma, { name: 'Fleet' });
      admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
      channelId = await createChannel({ database: db }, site.siteId);

      const overlay = await rest(fleet, 'POST', '/overlay/v1', {
        headers: admin,
        body: { name: 'Live', type: 'instance', contents: { text: 'on air' }, duration: 3600 },
      });
      const shown = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      expect(shown.status).toBe(200);
      live = shown.body.broadcastId;
      for (let index = 0; index < 30; index += 1) viewers.push(connectViewer());
      await eventually(() => viewers.every((viewer) => viewer.sinceConnect.has(live)), 'every viewer has the live overlay', 60_000);
    }, 600_000);

    /** Whatever a test stopped is started again, and every viewer is back, before the next test. */
    afterEach(async () => {
      if (!redisRunning) {
        redis = (await startRedis(redis.port)) as LocalServer;
        redisRunning = true;
      }
      for (const instance of fleet.instances) {
        if (!instance.running()) await instance.start();
        await fleet.waitForServer(instance.name, 'UP', 60_000);
      }
      await viewersBack('restoring the fleet');
    }, 180_000);

    afterAll(async () => {
      for (const viewer of viewers) await viewer.client.dispose();
      await db?.close();
      await fleet?.stop();
      if (redisRunning) await redis?.stop();
      await database?.drop();
    }, 60_000);

    function connectViewer(): FleetViewer<Client> {
      const viewer = newFleetViewer<Client>();
      viewer.client = createClient({
        url: `${fleet.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { 'x-service-client-id': site.siteId },
        lazy: false,
        onNonLazyError: () => undefined,
        retryAttempts: Number.POSITIVE_INFINITY,
        shouldRetry: () => true,
        retryWait: retryBackoff,
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
        followOverlay(viewer, () => live),
      );
      return viewer;
    }

    /**
     * Writes through the balancer one after another until stopped; every attempt has a name of its own,
     * so the database tells whether any was stored twice.
     */
    function startWriter(label: string) {
      const written: string[] = [];
      const failed: FailedWrite[] = [];
      let running = true;
      const done = (async () => {
        for (let n = 0; running; n += 1) {
          const name = `${label}-${n}`;
          const sentAt = Date.now();
          try {
            const reply = await rest(fleet, 'POST', '/overlay/v1', { headers: admin, body: { name, type: 'instance', contents: { n }, duration: 5 } });
            if (reply.status === 200) written.push(reply.body._id);
            else failed.push({ name, sentAt, failure: `${reply.status} ${JSON.stringify(reply.body)}` });
          } catch (error) {
            failed.push({ name, sentAt, failure: (error as Error).message });
          }
          await pause(20);
        }
      })();
      return {
        written: () => written.length,
        async stop() {
          running = false;
          await done;
          // Every write answered 2xx is there, read back through the balancer.
          let lost = 0;
          for (const id of written) if ((await rest(fleet, 'GET', `/overlay/v1/${id}`, { headers: admin })).status !== 200) lost += 1;
          // No attempt, answered or not, was stored twice.
          const stored = await db.prisma.overlay.findMany({ where: { siteId: site.siteId, name: { startsWith: `${label}-` } }, select: { name: true } });
          const storedTwice = stored.length - new Set(stored.map((overlay) => overlay.name)).size;
          return { written: written.length, failed, lost, storedTwice };
        },
      };
    }

    /** Every viewer is connected and has the live overlay since; the longest gap of the fault, then reset. */
    async function viewersBack(what: string) {
      await eventually(
        () => viewers.every((viewer) => viewer.downSince === null && viewer.sinceConnect.has(live)),
        `${what}: every viewer back with the live overlay`,
        60_000,
      );
      const { longestGapMs, reconnected } = viewerGaps(viewers);
      for (const viewer of viewers) {
        viewer.longestGapMs = 0;
        viewer.reconnects = 0;
      }
      return { longestGapMs, reconnected };
    }

    const metricsOf = async (instance: { url: string }) => (await fetch(`${instance.url}/metrics`)).text();

    const report = (what: string, figures: object) => process.stdout.write(`fleet ${what}: ${JSON.stringify(figures)}\n`);

    it('kill -9 of one instance under load: its viewers come back on the others within 10 s with the live overlay; every write answered 2xx is stored, none twice', async () => {
      // The instance holding the most viewers is the one to crash.
      const held = await Promise.all(fleet.instances.map(async (instance) => metricSum(await metricsOf(instance), 'stagegraph_live_viewers')));
      const victim = fleet.instances[held.indexOf(Math.max(...held))];
      const writer = startWriter('kill');
      await eventually(() => writer.written() >= 5, 'writes flow through the balancer');
      await victim.stop('SIGKILL');
      await fleet.waitForServer(victim.name, 'DOWN');
      const seenDownAt = Date.now();
      const { longestGapMs, reconnected } = await viewersBack('kill -9');
      const afterKill = writer.written();
      await eventually(() => writer.written() >= afterKill + 5, 'writes go on through the other instances');
      const writes = await writer.stop();
      report('kill -9', { viewersOnVictim: Math.max(...held), longestGapMs, reconnected, ...writes, failed: writes.failed });
      expect(reconnected).toBeGreaterThanOrEqual(Math.max(...held));
      expect(longestGapMs).toBeLessThanOrEqual(GAP_LIMIT_MS);
      // A write in flight on the killed instance may have been committed before it died, so the balancer
      // does not run it again elsewhere (deploy/haproxy.cfg): the client sees a 502/503 or a dropped
      // connection. Only writes sent before the balancer saw the instance down may fail; whatever was
      // answered 2xx is stored, and nothing is stored twice.
      for (const failed of writes.failed) {
        expect(failed.failure).toMatch(/^50[23] |fetch failed|socket hang up|other side closed|ECONNRESET/);
        expect(failed.sentAt).toBeLessThanOrEqual(seenDownAt);
      }
      expect(writes.lost).toBe(0);
      expect(writes.storedTwice).toBe(0);
      expect(writes.written).toBeGreaterThan(0);
    }, 180_000);

    it('a rolling SIGTERM restart of every instance: /ready 503 while draining, no write fails or is lost, every viewer back within 10 s', async () => {
      const writer = startWriter('rolling');
      for (const instance of fleet.instances) {
        const stopped = instance.stop('SIGTERM');
        // Draining from the moment the signal is handled, for the grace period, before the port closes.
        await eventually(
          async () => expectStatus(await fetch(`${instance.url}/ready`), 200, 503).status === 503,
          `${instance.name} answers /ready 503 while draining`,
        );
        await stopped;
        await instance.start();
        await fleet.waitForServer(instance.name, 'UP', 60_000);
      }
      const { longestGapMs, reconnected } = await viewersBack('rolling restart');
      const writes = await writer.stop();
      report('rolling restart', { longestGapMs, reconnected, ...writes });
      expect(reconnected).toBe(viewers.length);
      expect(longestGapMs).toBeLessThanOrEqual(GAP_LIMIT_MS);
      expect(writes.failed).toEqual([]);
      expect(writes.lost).toBe(0);
      expect(writes.storedTwice).toBe(0);
    }, 240_000);

    it('Redis stopped and started: every instance stays in the balancer, writes go on, broadcasts answer 503; the first broadcast answered 200 afterwards reaches every viewer', async () => {
      const writer = startWriter('redis');
      const overlay = await rest(fleet, 'POST', '/overlay/v1', { headers: admin, body: { name: 'After', type: 'instance', contents: {}, duration: 120 } });
      await redis.stop();
      redisRunning = false;
      const readyChecks = async (instance: { url: string }) =>
        metricSum(await metricsOf(instance), 'stagegraph_http_requests_total', ['route="/ready"', 'method="GET"']);
      const checksBefore: number[] = [];
      for (const instance of fleet.instances) {
        await eventually(
          async () => expectStatus(await rest(instance, 'GET', '/health'), 200).body.bus.connected === false,
          `${instance.name} sees Redis gone`,
        );
        expect((await rest(instance, 'GET', '/ready')).status).toBe(200);
        checksBefore.push(await readyChecks(instance));
      }
      // HAProxy has checked every instance at least twice (its fall count) with Redis away: all stay UP.
      for (const [index, instance] of fleet.instances.entries()) {
        await until(
          () => readyChecks(instance),
          (count) => count >= checksBefore[index] + 2,
          `${instance.name} answered two health checks without Redis`,
        );
      }
      expect(Object.values(await fleet.serverStates())).toEqual(['UP', 'UP', 'UP']);
      const refused = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ success: false, message: expect.any(String) });

      redis = (await startRedis(redis.port)) as LocalServer;
      redisRunning = true;
      // The first broadcast any instance accepts, while the others may still be reconnecting.
      const restarted = Date.now();
      const sent = await until(
        // 503 while the instance that took it is still reconnecting to Redis; anything else fails at once.
        async () => expectStatus(await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } }), 200, 503),
        (reply) => reply.status === 200,
        'a broadcast is accepted once Redis is back',
      );
      const acceptedAfterMs = Date.now() - restarted;
      await eventually(() => viewers.every((viewer) => viewer.sinceConnect.has(sent.body.broadcastId)), 'the broadcast reaches every viewer', GAP_LIMIT_MS);
      const writes = await writer.stop();
      report('Redis stop/start', { acceptedAfterMs, viewersReached: viewers.length, ...writes });
      expect(viewers.every((viewer) => viewer.downSince === null)).toBe(true);
      expect(writes.failed).toEqual([]);
      expect(writes.lost).toBe(0);
      expect(writes.storedTwice).toBe(0);
    }, 180_000);
  });
}
