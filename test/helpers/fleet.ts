/**
 * Fleets as the tests start them (scripts/fleet.ts): instances run from source, or from the build in CI
 * (helpers/serverProcess.ts), behind a real HAProxy on the test's database and Redis, each fleet on a Redis
 * prefix of its own, their output shown only with TEST_LOG_LEVEL. `startSiteFleet` also brings its own
 * database, Redis and a site (its admin headers, and accounts whose JWTs the instances accept).
 */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../shared/config';
import { openDatabase } from '../../shared/db/client';
import { startFleet, type Fleet, type FleetOptions } from '../../scripts/fleet';
import { startRedis, type LocalServer } from '../../scripts/services';
import { createTestDatabase, type TestDatabase } from './database';
import { createChannel, createTestSite, type TestSite } from './stack';
import { fromBuild } from './serverProcess';

export function startTestFleet(
  database: TestDatabase,
  redis: LocalServer,
  options: { instances: number; shutdownGraceMs: number; prometheusDir?: string },
): Promise<Fleet> {
  const fleetOptions: FleetOptions = {
    instances: options.instances,
    port: 0,
    databaseUrl: database.url,
    redisUrl: redis.url,
    from: fromBuild ? 'dist' : 'source',
    output: process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore',
    prometheusDir: options.prometheusDir,
    env: {
      SHUTDOWN_GRACE_MS: String(options.shutdownGraceMs),
      REDIS_PREFIX: `sgfleet-${randomBytes(4).toString('hex')}`,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    },
  };
  return startFleet(fleetOptions);
}

export interface TestFleet {
  fleet: Fleet;
  redis: LocalServer;
  /** The site, whose accounts' JWTs the fleet's instances accept. */
  site: TestSite;
  /** Headers of the site's admin (C + D). */
  admin: Record<string, string>;
  /** A channel (page) of the site, for viewers to watch. */
  channel: string;
  stop(): Promise<void>;
}

/** A fleet on a database and a redis-server of its own, with one site; `stop()` removes all of it. */
export async function startSiteFleet(instances: number, siteName: string): Promise<TestFleet> {
  const database = await createTestDatabase();
  const redis = (await startRedis()) as LocalServer;
  const fleet = await startTestFleet(database, redis, { instances, shutdownGraceMs: 3000 });
  const db = await openDatabase(database.url, { migrate: false });
  const site = await createTestSite({ database: db, config: loadConfig(fleet.env) }, siteName);
  const handle: TestFleet = {
    fleet,
    redis,
    site,
    admin: site.admin,
    channel: await createChannel({ database: db }, site.siteId),
    async stop() {
      await db.close();
      await fleet.stop();
      await handle.redis.stop();
      await database.drop();
    },
  };
  return handle;
}
