/**
 * Rate limits on what can be guessed or abused before holding a token: failed sign-ins per e-mail,
 * reset e-mails per address, TV codes per device, failed access-code redemptions per account. Kept in
 * memory per instance (rate-limiter-flexible); the limits are per site and key.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { appError, ErrorCode } from '../../shared/errors';

const limiters = {
  /** Failed sign-ins per site and e-mail: 10 per 15 minutes. */
  signInFailures: new RateLimiterMemory({ keyPrefix: 'sign-in', points: 10, duration: 15 * 60 }),
  /** Password-reset e-mails per site and address: 5 per hour. */
  passwordResets: new RateLimiterMemory({ keyPrefix: 'reset', points: 5, duration: 60 * 60 }),
  /** TV codes per site and device: 20 per 10 minutes. */
  tvCodes: new RateLimiterMemory({ keyPrefix: 'tv', points: 20, duration: 10 * 60 }),
  /** Access codes that do not redeem, per site and account: 20 per 10 minutes. */
  accessCodeFailures: new RateLimiterMemory({ keyPrefix: 'code', points: 20, duration: 10 * 60 }),
};

export type LimitName = keyof typeof limiters;

function rateLimited(result: RateLimiterRes) {
  const retryAfter = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  return appError(ErrorCode.RATE_LIMITED, `too many attempts; try again in ${retryAfter} s`, { retryAfter });
}

/** Spends one point; throws RATE_LIMITED when the key has none left. */
export async function consumeLimit(name: LimitName, key: string): Promise<void> {
  try {
    await limiters[name].consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw rateLimited(error);
    throw error;
  }
}

/** Throws RATE_LIMITED when the key has no point left, without spending one (failures are counted apart). */
export async function checkLimit(name: LimitName, key: string): Promise<void> {
  const state = await limiters[name].get(key);
  if (state && state.remainingPoints <= 0) throw rateLimited(state);
}

/** Forgets the key's spent points (after a successful sign-in). */
export async function resetLimit(name: LimitName, key: string): Promise<void> {
  await limiters[name].delete(key);
}
