/**
 * Viewers over HTTP through a real HAProxy (deploy/haproxy.cfg through scripts/fleet.ts): Server-Sent
 * Events viewers (graphql-sse's own client, retrying with jittered backoff as the embed does) and
 * multipart viewers, on a fleet of two instances as their own processes on PostgreSQL and a redis-server
 * of this test's own. The balancer passes each frame on at once (no buffering), and through a rolling
 * SIGTERM restart of every instance every SSE viewer is back with the live overlay within 10 s.
 *
 * The configuration check runs everywhere: HAProxy's idle timeouts for streams are longer than the
 * heartbeats. The fleet needs PostgreSQL (DATABASE_URL), Redis (REDIS_URL) and haproxy on PATH, as
 * `.ci/run` provides in its PostgreSQL + Redis pass.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-sse';
import { loadConfig } from '../../shared/config';
import { installed } from '../../scripts/services';
import { usingPostgres, usingRedis } from '../helpers/database';
import { startSiteFleet, type TestFleet } from '../helpers/fleet';
import { followOverlay, newFleetViewer, retryBackoff, viewerGaps, type FleetViewer } from '../helpers/fleetViewer';
import { rest } from '../helpers/http';
import { closeHttpViewers, openHttpViewer } from '../helpers/httpViewer';
import { TEST_SECRETS } from '../helpers/stack';
import { VIEWER_SUBSCRIPTION } from '../helpers/viewer';
import { eventually } from '../helpers/wait';

const haproxyInstalled = installed('haproxy', '-v');
const GAP_LIMIT_MS = 10_000;
const fleetRuns = usingPostgres && usingRedis && haproxyInstalled;

/** Seconds of a HAProxy duration ("30s", "1h", "500ms"). */
function seconds(duration: string): number {
  const [, amount, unit] = /^(\d+)(ms|s|m|h)?$/.exec(duration) ?? [];
  return Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[(unit ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
}

it(`HAProxy lets idle streams live: its client and server timeouts outlast two heartbeats of SSE and multipart${fleetRuns ? '' : ' (the fleet below runs only on PostgreSQL + Redis with haproxy: not in this run)'}`, () => {
  const shipped = readFileSync(join(__dirname, '..', '..', 'deploy', 'haproxy.cfg'), 'utf8').replace(/#.*$/gm, '');
  const timeout = (name: string) => seconds(new RegExp(`^\\s*timeout ${name} (\\S+)$`, 'm').exec(shipped)?.[1] ?? '0');
  const config = loadConfig(TEST_SECRETS);
  const longest = Math.max(config.sseHeartbeatMs, config.multipartHeartbeatMs) / 1000;
  expect(timeout('client')).toBeGreaterThanOrEqual(2 * longest);
  expect(timeout('server')).toBeGreaterThanOrEqual(2 * longest);
  // Nothing that holds a response back: no response buffering, no compression.
  expect(shipped).not.toMatch(/http-buffer-request|compression|filter cache/);
});

if (fleetRuns) {
  describe('HTTP viewers through HAProxy', () => {
    let running: TestFleet;
    let fleet: TestFleet['fleet'];
    let admin: Record<string, string>;
    let siteId: string;
    let live: string;
    const viewers: FleetViewer<Client>[] = [];
    let channelId: string;

    beforeAll(async () => {
      running = await startSiteFleet(2, 'HTTP fleet');
      ({ fleet, admin } = running);
      siteId = running.site.siteId;
      channelId = running.channel;
      const overlay = await rest(fleet, 'POST', '/overlay/v1', {
        headers: admin,
        body: { name: 'Live', type: 'instance', contents: { text: 'on air' }, duration: 600 },
      });
      const shown = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      expect(shown.status).toBe(200);
      live = shown.body.broadcastId;
      for (let index = 0; index < 20; index += 1) viewers.push(connectViewer());
      await eventually(() => viewers.every((viewer) => viewer.sinceConnect.has(live)), 'every SSE viewer has the live overlay', 60_000);
    }, 180_000);

    afterAll(async () => {
      closeHttpViewers();
      for (const viewer of viewers) viewer.client.dispose();
      await running?.stop();
    }, 60_000);

    function connectViewer(): FleetViewer<Client> {
      const viewer = newFleetViewer<Client>();
      viewer.client = createClient({
        url: `${fleet.url}/graphql/stream`,
        headers: { 'x-service-client-id': siteId },
        retryAttempts: Number.POSITIVE_INFINITY,
        // Called as soon as the stream failed: the viewer is down from here.
        retry: async (retries) => {
          viewer.downSince ??= Date.now();
          viewer.reconnects += 1;
          await retryBackoff(retries);
        },
      });
      viewer.client.subscribe<{ overlayBroadcasts: { kind: string; broadcastId: string } }>(
        { query: VIEWER_SUBSCRIPTION, variables: { channelId } },
        followOverlay(viewer, () => live),
        { connecting: () => (viewer.sinceConnect = new Set()) },
      );
      return viewer;
    }

    it('passes each frame on at once: a broadcast reaches SSE and multipart viewers through the balancer', async () => {
      const multipart = await openHttpViewer(fleet, 'multipart', {
        query: VIEWER_SUBSCRIPTION,
        variables: { channelId },
        headers: { 'x-service-client-id': siteId },
      });
      expect((await multipart.next(30_000)).data.overlayBroadcasts.broadcastId).toBe(live);
      const overlay = await rest(fleet, 'POST', '/overlay/v1', { headers: admin, body: { name: 'Next', type: 'instance', contents: {}, duration: 30 } });
      const sent = await rest(fleet, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: admin, body: { channelId } });
      expect(sent.status).toBe(200);
      expect((await multipart.next(30_000)).data.overlayBroadcasts.broadcastId).toBe(sent.body.broadcastId);
      await eventually(() => viewers.every((viewer) => viewer.sinceConnect.has(sent.body.broadcastId)), 'every SSE viewer has the new broadcast', 30_000);
      multipart.close();
    }, 120_000);

    it('a rolling SIGTERM restart: every SSE viewer is back with the live overlay within 10 s of its stream ending', async () => {
      for (const instance of fleet.instances) {
        const stopped = instance.stop('SIGTERM');
        await stopped;
        await instance.start();
        await fleet.waitForServer(instance.name, 'UP', 60_000);
      }
      await eventually(
        () => viewers.every((viewer) => viewer.downSince === null && viewer.sinceConnect.has(live)),
        'every SSE viewer back with the live overlay',
        30_000,
      );
      const { longestGapMs, reconnected } = viewerGaps(viewers);
      process.stdout.write(`fleet-http rolling restart: ${JSON.stringify({ viewers: viewers.length, reconnected, longestGapMs })}\n`);
      expect(reconnected).toBe(viewers.length);
      expect(longestGapMs).toBeLessThanOrEqual(GAP_LIMIT_MS);
    }, 150_000);
  });
}
