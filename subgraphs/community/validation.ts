/** Input checks of the community subgraph the GraphQL types cannot express; each error names its field. */
import { badInput } from '../../shared/errors';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A lowercased e-mail address. */
export function checkEmail(email: string, field = 'email'): string {
  const normalized = email.trim().toLowerCase();
  if (normalized.length > 254 || !EMAIL.test(normalized)) throw badInput(`${field} must be an e-mail address`, field);
  return normalized;
}

/** A password of 8 to 256 characters. */
export function checkPassword(password: string, field = 'password'): string {
  if (password.length < 8) throw badInput(`${field} must be at least 8 characters`, field);
  if (password.length > 256) throw badInput(`${field} must be at most 256 characters`, field);
  return password;
}

/** A non-empty trimmed text of at most `max` characters. */
export function checkText(value: string, field: string, max = 200): string {
  const trimmed = value.trim();
  if (!trimmed) throw badInput(`${field} must not be empty`, field);
  if (trimmed.length > max) throw badInput(`${field} must be at most ${max} characters`, field);
  return trimmed;
}

/** An absolute http(s) URL (no javascript:, data:, …). */
export function checkHttpUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badInput(`${field} must be an http(s) URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badInput(`${field} must be an http(s) URL`, field);
  return url.toString();
}

/** A lowercased domain name such as example.com. */
export function checkDomain(value: string, field = 'domain'): string {
  const domain = value.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(domain)) throw badInput(`${field} must be a domain name such as example.com`, field);
  return domain;
}

/** SKUs name entitlements in URLs and CSV files: letters, digits and - _ . : only. */
export function checkSku(sku: string, field = 'sku'): string {
  const trimmed = sku.trim();
  if (!/^[\w.:-]{1,100}$/.test(trimmed)) throw badInput(`${field} must be 1-100 letters, digits, -, _, . or :`, field);
  return trimmed;
}

/** An upper-case three-letter currency code. */
export function checkCurrency(currency: string, field = 'currency'): string {
  const code = currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw badInput(`${field} must be a three-letter currency code`, field);
  return code;
}

/** Tags: non-empty texts of at most 100 characters. */
export function checkTags(tags: readonly string[] | null | undefined, field = 'tags'): string[] {
  if (!tags) return [];
  return tags.map((tag, index) => checkText(tag, `${field}.${index}`, 100));
}

/** A siteId in a body must be the caller's site (C). */
export function checkSameSite(given: string | null | undefined, siteId: string): void {
  if (given !== undefined && given !== null && given !== siteId) {
    throw badInput('siteId must be the site of x-service-client-id', 'siteId');
  }
}

/** Offset and limit of a listing: offset ≥ 0, 1 ≤ limit ≤ max (default `fallback`). */
export function checkPage(offset: number | null | undefined, limit: number | null | undefined, fallback = 50, max = 500) {
  const from = offset ?? 0;
  const size = limit ?? fallback;
  if (!Number.isInteger(from) || from < 0) throw badInput('offset must be a whole number ≥ 0', 'offset');
  if (!Number.isInteger(size) || size < 1 || size > max) throw badInput(`limit must be between 1 and ${max}`, 'limit');
  return { offset: from, limit: size };
}

/** Lowercased, without accents and extra spaces: how names are searched and sorted. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}
