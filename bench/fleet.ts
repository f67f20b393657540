/**
 * Fleet: instances behind HAProxy (scripts/fleet.ts, deploy/haproxy.cfg) on a private PostgreSQL +
 * Redis, the viewers and the calls through the balancer, beside one instance reached directly on the
 * same servers in the same run: the join and reconnect storms and the fan-out. On a 2-core machine the
 * instances, HAProxy, the databases and the viewers' processes share the cores, so the fleet's figures
 * are to watch, not targets.
 */
import { join } from 'node:path';
import { startFleet } from '../scripts/fleet';
import { installed, startPostgres, startRedis } from '../scripts/services';
import { measureFanout, type FanoutResult } from './fanout';
import { root, startInstance, type Instance } from './harness';
import { measureJoinStorms, type JoinFigures } from './join';

export interface FleetSide {
  instances: number;
  viewers: number;
  storms: JoinFigures;
  fanout: FanoutResult;
}

export interface FleetFigures {
  oneInstance: FleetSide;
  fleet: FleetSide;
  /** Connections HAProxy takes here (from the open-files limit): each viewer holds one. */
  balancerMaxconn: number;
}

/** Null when PostgreSQL, redis-server or haproxy is not installed here. */
export async function measureFleet(viewers: number, instances = 3): Promise<FleetFigures | null> {
  if (!installed('haproxy', '-v')) return null;
  const postgres = await startPostgres();
  const redis = postgres && (await startRedis());
  if (!postgres || !redis) {
    await postgres?.stop();
    return null;
  }
  try {
    const env = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, REDIS_PREFIX: 'bench-fleet' };
    const oneStorms = await measureJoinStorms(viewers, env);
    const one = await startInstance({ env });
    const oneFanout = await measureFanout(viewers, [one]);
    await one.stop();

    const fleet = await startFleet({
      instances,
      port: 0,
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      env: { LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '0', REDIS_PREFIX: 'bench-fleet' },
    });
    try {
      const balancerMaxconn = Number((await fleet.balancerInfo()).Maxconn);
      // HAProxy takes at most Maxconn connections (about half the open-files limit): no more viewers than that.
      const fleetViewers = Math.min(viewers, balancerMaxconn - 200);
      const members: Instance[] = fleet.instances.map((instance) => ({
        url: instance.url,
        dist: join(root, 'dist'),
        pid: instance.pid() as number,
        env: fleet.env,
        stop: () => instance.stop(),
      }));
      const storms = await measureJoinStorms(fleetViewers, {}, undefined, { url: fleet.url, instances: members });
      const fanout = await measureFanout(fleetViewers, members, fleet.url);
      return {
        oneInstance: { instances: 1, viewers, storms: oneStorms, fanout: oneFanout },
        fleet: { instances, viewers: fleetViewers, storms, fanout },
        balancerMaxconn,
      };
    } finally {
      await fleet.stop();
    }
  } finally {
    await redis.stop();
    await postgres.stop();
  }
}
