/**
 * Prometheus (Debian's binary) watching a fleet: deploy/prometheus.yml and deploy/alerts.yml as shipped,
 * with 1 s scrape and evaluation intervals, scrape the instances of a fleet started by scripts/fleet.ts
 * from the targets and token it writes. One instance drains (SIGTERM) and Prometheus sees
 * stagegraph_draining_seconds rise; another is killed (kill -9) and StagegraphInstanceDown turns pending
 * or firing in Prometheus's own API (/api/v1/alerts) for that instance alone. Everything is waited on by
 * polling Prometheus's API against a deadline.
 *
 * The fleet needs PostgreSQL (DATABASE_URL), Redis (REDIS_URL) and haproxy, as `.ci/run` provides in its
 * PostgreSQL + Redis pass; in the SQLite pass only the derived configuration is checked with promtool.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { type Fleet, writePrometheusFiles } from '../../scripts/fleet';
import { freePort, installed, spawnTracked, startRedis, stopChild, type LocalServer } from '../../scripts/services';
import { createTestDatabase, usingPostgres, usingRedis, type TestDatabase } from '../helpers/database';
import { startTestFleet } from '../helpers/fleet';
import { layOutPrometheus, promtool } from '../helpers/prometheus';
import { NotRetryable, until } from '../helpers/wait';

const SCRAPE_SECONDS = 1;
const DEADLINE_MS = 60_000;
const fleetHere = usingPostgres && usingRedis && installed('haproxy', '-v');

it(`the configuration derived for the test (1 s intervals) is valid${fleetHere ? '' : ' (Prometheus watching a fleet runs only on PostgreSQL + Redis with haproxy: not in this run)'}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-prometheus-'));
  try {
    const config = layOutPrometheus(dir, SCRAPE_SECONDS);
    expect(readFileSync(config, 'utf8')).toMatch(/^\s+scrape_interval: 1s$/m);
    writePrometheusFiles(
      { targets: join(dir, 'fleet', 'targets.json'), token: join(dir, 'fleet', 'metrics-token') },
      [{ name: 'app1', port: 4001 }],
      'a-metrics-token-of-the-fleet',
    );
    expect(promtool(['check', 'config', config], dir)).toMatch(/is valid prometheus config file syntax/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing' | 'inactive';
}

if (fleetHere) {
  describe('Prometheus watching a fleet', () => {
    let dir: string;
    let database: TestDatabase;
    let redis: LocalServer;
    let fleet: Fleet;
    let prometheus: ChildProcess;
    let prometheusUrl: string;

    /** GET on Prometheus's HTTP API: its `data`, or an error naming what it answered. */
    async function api<T>(path: string): Promise<T> {
      const response = await fetch(`${prometheusUrl}${path}`);
      const body = (await response.json()) as { status: string; data: T; error?: string };
      // A refused query is the test's mistake, not "not yet": the wait fails with it at once.
      if (body.status !== 'success') throw new NotRetryable(`${path}: ${body.error ?? response.status}`);
      return body.data;
    }
    const query = async (promql: string) =>
      (await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(promql)}`)).result;

    /** Polls `check` until it returns a value (not undefined), or fails with `what` after the deadline. */
    /** Polls `check` until it has a value (Prometheus not answering yet is "not yet"; a refused query fails at once). */
    const eventually = <T>(check: () => Promise<T | undefined>, what: string): Promise<T> =>
      until(check, (value) => value !== undefined, `${what}: seen in Prometheus`, DEADLINE_MS) as Promise<T>;

    beforeAll(async () => {
      // Missing is a failure, not a skip: .ci/run installs Debian's prometheus with the other services.
      if (!installed('prometheus', '--version')) throw new Error('prometheus is not installed: apt-get install prometheus (Debian)');
      dir = mkdtempSync(join(tmpdir(), 'stagegraph-prometheus-'));
      database = await createTestDatabase();
      redis = (await startRedis()) as LocalServer;
      // A long grace period, so the drained instance is still scraped while it drains.
      fleet = await startTestFleet(database, redis, { instances: 3, shutdownGraceMs: 120_000, prometheusDir: join(dir, 'fleet') });
      const config = layOutPrometheus(dir, SCRAPE_SECONDS);
      const port = await freePort();
      prometheusUrl = `http://127.0.0.1:${port}`;
      mkdirSync(join(dir, 'data'));
      prometheus = spawnTracked(
        'prometheus',
        [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
        {
          stdio: ['ignore', 'ignore', process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore'],
        },
      );
      await eventually(async () => ((await fetch(`${prometheusUrl}/-/ready`)).status === 200 ? true : undefined), 'Prometheus ready');
    }, 180_000);

    afterAll(async () => {
      if (prometheus) await stopChild(prometheus, 'SIGTERM');
      // SIGINT: the drained instance stops at once instead of finishing its grace period.
      await fleet?.stop();
      await redis?.stop();
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('scrapes every instance of the fleet with its token, and a drain shows as stagegraph_draining_seconds', async () => {
      expect(readFileSync(join(dir, 'fleet', 'metrics-token'), 'utf8')).toBe(fleet.env.METRICS_TOKEN);
      const targets = fleet.instances.map((instance) => `127.0.0.1:${instance.port}`).sort();
      const up = await eventually(async () => {
        const samples = await query('up{job="stagegraph"} == 1');
        return samples.length === targets.length ? samples : undefined;
      }, 'every instance up');
      expect(up.map((sample) => sample.metric.instance).sort()).toEqual(targets);
      expect(up.map((sample) => sample.metric.server).sort()).toEqual(fleet.instances.map((instance) => instance.name));
      const grace = await query('stagegraph_shutdown_grace_seconds');
      expect(grace.map((sample) => sample.value[1])).toEqual(['120', '120', '120']);

      const drained = fleet.instances[0];
      process.kill(drained.pid() as number, 'SIGTERM');
      const draining = await eventually(async () => {
        const samples = await query('stagegraph_draining_seconds > 0');
        return samples.length ? samples : undefined;
      }, 'the drain');
      expect(draining.map((sample) => sample.metric.server)).toEqual([drained.name]);
      // A drain within its grace period is no alert.
      expect(
        (await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts.filter((alert) => alert.labels.alertname === 'StagegraphDrainingTooLong'),
      ).toEqual([]);
    }, 120_000);

    it('an instance killed turns StagegraphInstanceDown pending or firing for it alone', async () => {
      const killed = fleet.instances[2];
      await killed.stop('SIGKILL');
      const alerts = await eventually(async () => {
        const { alerts: all } = await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts');
        const down = all.filter((alert) => alert.labels.alertname === 'StagegraphInstanceDown');
        return down.length ? down : undefined;
      }, 'StagegraphInstanceDown');
      expect(alerts).toHaveLength(1);
      expect(['pending', 'firing']).toContain(alerts[0].state);
      expect(alerts[0].labels).toMatchObject({ job: 'stagegraph', instance: `127.0.0.1:${killed.port}`, server: killed.name, severity: 'page' });
      expect(alerts[0].annotations.summary).toBe(`127.0.0.1:${killed.port} is down (its /metrics does not answer)`);
      expect(alerts[0].annotations.runbook).toMatch(/^docs\/operations\.md, /);
      // The others are still scraped.
      const up = await query('up{job="stagegraph"} == 1');
      expect(up.map((sample) => sample.metric.server).sort()).toEqual([fleet.instances[0].name, fleet.instances[1].name]);
    }, 120_000);
  });
}
