/**
 * Rate limits on what can be guessed or abused before holding a token: failed sign-ins per e-mail,
 * reset e-mails per address, TV codes per device, failed access-code redemptions per account; the
 * limits are per site and key (rate-limiter-flexible). With REDIS_URL they are counted in Redis, so N
 * instances allow what one does (docs/design.md); while Redis is away each instance counts on its own.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { openRateLimiters, type RateLimiters } from '../../shared/rateLimits';
import type { Config } from '../../shared/config';
import { appError, ErrorCode } from '../../shared/errors';
import type { Logger } from '../../shared/logger';

const LIMITS = {
  /** Failed sign-ins (and wrong old passwords) per site and e-mail: 10 per 15 minutes. */
  signInFailures: { keyPrefix: 'sign-in', points: 10, duration: 15 * 60, rule: 'sign_in_failures' },
  /** Password-reset e-mails per site and address: 5 per hour. */
  passwordResets: { keyPrefix: 'reset', points: 5, duration: 60 * 60, rule: 'password_resets' },
  /** TV codes per site and device: 20 per 10 minutes. */
  tvCodes: { keyPrefix: 'tv', points: 20, duration: 10 * 60, rule: 'tv_codes' },
  /** Access codes that do not redeem, per site and account: 20 per 10 minutes. */
  accessCodeFailures: { keyPrefix: 'code', points: 20, duration: 10 * 60, rule: 'access_code_failures' },
};

export type LimitName = keyof typeof LIMITS;

/** RATE_LIMITED naming the limit (`rule`, in GraphQL's extensions and the REST body alike). */
function rateLimited(name: LimitName, result: RateLimiterRes) {
  const retryAfter = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  return appError(ErrorCode.RATE_LIMITED, `too many attempts; try again in ${retryAfter} s`, { retryAfter, rule: LIMITS[name].rule });
}

/** The limits of one community server: in memory, or in Redis when REDIS_URL is set. */
export class RateLimits {
  private readonly limiters: Record<LimitName, RateLimiterAbstract>;
  private readonly store: RateLimiters;

  constructor(config: Pick<Config, 'redisUrl' | 'redisPrefix'>, logger: Logger) {
    this.store = openRateLimiters(config, logger);
    this.limiters = Object.fromEntries((Object.keys(LIMITS) as LimitName[]).map((name) => [name, this.store.limiter(LIMITS[name])])) as Record<
      LimitName,
      RateLimiterAbstract
    >;
  }

  /** Spends one point; throws RATE_LIMITED when the key has none left. */
  async consume(name: LimitName, key: string): Promise<void> {
    try {
      await this.limiters[name].consume(key);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw rateLimited(name, error);
      throw error;
    }
  }

  /** Throws RATE_LIMITED when the key has no point left, without spending one (failures are counted apart). */
  async check(name: LimitName, key: string): Promise<void> {
    const state = await this.limiters[name].get(key);
    if (state && state.remainingPoints <= 0) throw rateLimited(name, state);
  }

  /** Forgets the key's spent points (after a successful sign-in). */
  async reset(name: LimitName, key: string): Promise<void> {
    await this.limiters[name].delete(key);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
