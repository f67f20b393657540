/**
 * A fleet as the tests start it (scripts/fleet.ts): instances run from source on the test's database and
 * Redis, each on a Redis prefix of its own, their output shown only with TEST_LOG_LEVEL.
 */
import { randomBytes } from 'node:crypto';
import { startFleet, type Fleet, type FleetOptions } from '../../scripts/fleet';
import type { LocalServer } from '../../scripts/services';
import type { TestDatabase } from './database';

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
