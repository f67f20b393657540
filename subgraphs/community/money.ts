/**
 * Money in the ledger is kept in whole minor units of its currency (cents, or yen), so sums and refunds
 * are exact; the API speaks major units (9.99), the way the seed's prices do.
 */
import { badInput } from '../../shared/errors';

const digitsCache = new Map<string, number>();

/** Minor-unit digits of a currency: 2 for USD, 0 for JPY, 3 for BHD. */
export function minorDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsCache.set(currency, digits);
  }
  return digits;
}

/** Major units to minor units; more decimals than the currency has is bad input. */
/** The largest amount in minor units one charge line may hold: three of them still fit a 32-bit column. */
export const MAX_MINOR = 500_000_000;

export function toMinor(amount: number, currency: string, field: string): number {
  const scale = 10 ** minorDigits(currency);
  const minor = Math.round(amount * scale);
  if (!Number.isFinite(amount) || Math.abs(minor - amount * scale) > 1e-6 * scale) {
    throw badInput(`${field} has more decimals than ${currency} allows`, field);
  }
  if (minor < 0) throw badInput(`${field} must not be negative`, field);
  if (minor > MAX_MINOR) throw badInput(`${field} is larger than ${toMajor(MAX_MINOR, currency)} ${currency}`, field);
  return minor;
}

/** Minor units back to major units (1050 USD cents → 10.5). */
export function toMajor(minor: number, currency: string): number {
  return minor / 10 ** minorDigits(currency);
}

/** "$9.99", "¥1,000": how receipts and the community view show an amount. */
export function formatMoney(minor: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(toMajor(minor, currency));
}
