/**
 * Fleets as the tests start them (scripts/fleet.ts): instances run from source behind a real HAProxy on
 * the test's database and Redis, each fleet on a Redis prefix of its own, their output shown only with
 * TEST_LOG_LEVEL. `startSiteFleet` also brings its own database, Redis and a site with its admin headers.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../shared/db/client';
import { provisionSite } from '../../subgraphs/community/sites';
import { startFleet, type Fleet, type FleetOptions } from '../../scripts/fleet';
import { startRedis, type LocalServer } from '../../scripts/services';
import { createTestDatabase, type TestDatabase } from './database';

export function startTestFleet(database: TestDatabase, redis: LocalServer, options: { instances: number; shutdownGraceMs: number; prometheusDir?: string }): Promise<Fleet> {
  const fleetOptions: FleetOptions = {
    instances: options.instances,
    port: 0,
    databaseUrl: database.url,
    redisUrl: redis.url,
    from: 'source',
    output: process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore',
    prometheusDir: options.prometheusDir,
    env: { SHUTDOWN_GRACE_MS: String(options.shutdownGraceMs), REDIS_PREFIX: `sgfleet-${randomBytes(4).toString('hex')}`, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn' },
  };
  return startFleet(fleetOptions);
}

export interface TestFleet {
  fleet: Fleet;
  redis: LocalServer;
  site: { siteId: string; developerKey: string };
  /** Headers of the site's admin (C + D). */
  admin: Record<string, string>;
  stop(): Promise<void>;
}

/** A fleet on a database and a redis-server of its own, with one site; `stop()` removes all of it. */
export async function startSiteFleet(instances: number, siteName: string): Promise<TestFleet> {
  const database = await createTestDatabase();
  const redis = (await startRedis()) as LocalServer;
  const fleet = await startTestFleet(database, redis, { instances, shutdownGraceMs: 3000 });
  const db = await openDatabase(database.url, { migrate: false });
  const site = await provisionSite(db.prisma, { name: siteName });
  await db.close();
  const handle: TestFleet = {
    fleet,
    redis,
    site,
    admin: { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey },
    async stop() {
      await fleet.stop();
      await handle.redis.stop();
      await database.drop();
    },
  };
  return handle;
}
