/**
 * Two instances of one deployment (one database, one Redis prefix), the second reaching Redis through a
 * TCP proxy (./proxy.ts) that a test cuts and restores: a Redis blip as that instance sees one, while the
 * first and the Redis server other tests share go on. Needs REDIS_URL.
 */
import { createLogger } from '../../shared/logger';
import { startStack, type Stack } from '../../stack';
import { startTcpProxy } from './proxy';
import { startTestStack, testConfig } from './stack';
import { eventually } from './wait';

export interface RedisBlip {
  first: Stack;
  cutOff: Stack;
  /** Cuts the second instance off Redis and waits until its bus knows. */
  cut(): Promise<void>;
  /** Gives Redis back to the second instance; resolves with the moment its bus is connected again. */
  restore(): Promise<number>;
  /** Stops the second instance and the proxy (the first stops with the file's other stacks). */
  close(): Promise<void>;
}

export async function startRedisBlip(): Promise<RedisBlip> {
  const url = new URL(process.env.REDIS_URL as string);
  const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
  const first = await startTestStack();
  const cutOff = await startStack(
    { ...testConfig(first.config.databaseUrl), redisPrefix: first.config.redisPrefix, redisUrl: `redis://127.0.0.1:${proxy.port}` },
    { logger: createLogger('silent') },
  );
  return {
    first,
    cutOff,
    async cut() {
      await proxy.cut();
      await eventually(() => !cutOff.bus.connected(), 'the cut-off instance sees Redis gone');
    },
    async restore() {
      await proxy.restore();
      await eventually(() => cutOff.bus.connected(), 'the cut-off instance is back on Redis');
      return Date.now();
    },
    async close() {
      await cutOff.close();
      await proxy.close();
    },
  };
}
