/**
 * A fleet for tests: instances of stagegraph as their own processes behind a real HAProxy
 * (scripts/fleet.ts), on a test database of this run's PostgreSQL and a redis-server of its own, with a
 * site and its admin headers. Everything started is stopped by `stop()`.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../shared/db/client';
import { provisionSite } from '../../subgraphs/community/sites';
import { startFleet, type Fleet } from '../../scripts/fleet';
import { startRedis, type LocalServer } from '../../scripts/services';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestFleet {
  fleet: Fleet;
  redis: LocalServer;
  site: { siteId: string; developerKey: string };
  /** Headers of the site's admin (C + D). */
  admin: Record<string, string>;
  stop(): Promise<void>;
}

export async function startTestFleet(instances: number, siteName: string): Promise<TestFleet> {
  const database: TestDatabase = await createTestDatabase();
  const redis = (await startRedis()) as LocalServer;
  const fleet = await startFleet({
    instances,
    port: 0,
    databaseUrl: database.url,
    redisUrl: redis.url,
    from: 'source',
    output: process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore',
    env: { SHUTDOWN_GRACE_MS: '2000', REDIS_PREFIX: `sgfleet-${randomBytes(4).toString('hex')}`, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn' },
  });
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, looking every 50 ms; fails naming `what` after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(50);
  }
}
