/**
 * Every rate limiter of every service (rate-limiter-flexible), made in one place: counted in Redis when
 * REDIS_URL is set, so N instances allow what one does (docs/design.md), all on ONE Redis connection per process
 * and URL, however many services and limiters share it; while Redis is away each limiter counts in this
 * instance's memory (its insurance limiter) rather than refusing everyone or letting everyone through.
 */
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type IRateLimiterOptions, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from './config';
import { appError, ErrorCode } from './errors';
import type { Logger } from './logger';

/** A limit: `points` per `duration` seconds per key, its keys kept apart from other limits' by `keyPrefix`. */
export type LimitOptions = IRateLimiterOptions & { keyPrefix: string };

interface SharedConnection {
  redis: Redis;
  /** Limiter sets still open on it; the connection closes with the last. */
  holders: number;
}

const connections = new Map<string, SharedConnection>();

/** Where one service makes its limiters; `close()` lets go of the shared connection. */
export interface RateLimiters {
  limiter(options: LimitOptions): RateLimiterAbstract;
  close(): Promise<void>;
}

/** Limiters in Redis at `config.redisUrl` (in memory without one), on this process's one connection to it. */
export function openRateLimiters(config: Pick<Config, 'redisUrl' | 'redisPrefix'>, logger: Logger): RateLimiters {
  const url = config.redisUrl;
  let shared: SharedConnection | null = null;
  if (url) {
    shared = connections.get(url) ?? null;
    if (!shared) {
      const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      redis.on('error', (error: Error) => logger.warn({ err: error.message }, 'rate limiter redis error'));
      shared = { redis, holders: 0 };
      connections.set(url, shared);
    }
    shared.holders += 1;
  }
  let closed = false;
  return {
    limiter(options) {
      const memory = new RateLimiterMemory(options);
      if (!shared) return memory;
      return new RateLimiterRedis({
        ...options,
        storeClient: shared.redis,
        keyPrefix: `${config.redisPrefix}:limit:${options.keyPrefix}`,
        insuranceLimiter: memory,
      });
    },
    async close() {
      if (closed || !shared || !url) return;
      closed = true;
      shared.holders -= 1;
      if (shared.holders > 0) return;
      connections.delete(url);
      await shared.redis.quit().catch(() => undefined);
    },
  };
}

/**
 * Spends one point of `key`; when none is left, RATE_LIMITED saying `explain(seconds to wait)`, with
 * `retryAfter` and the `rule` a REST 429 names.
 */
export async function spendLimit(limiter: RateLimiterAbstract, key: string, rule: string, explain: (retryAfter: number) => string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw appError(ErrorCode.RATE_LIMITED, explain(retryAfter), { retryAfter, rule });
  }
}
