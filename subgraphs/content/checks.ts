/** Input checks the GraphQL types cannot express, shared by the content areas; each error names its field. */
import { badInput, notFound } from '../../shared/errors';
import { parseHttpUrl } from '../../shared/outbound';

export type JsonRecord = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonRecord => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** A trimmed, non-empty text of at most `max` characters. */
export function checkText(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (!trimmed) throw badInput(`${field} must not be empty`, field);
  if (trimmed.length > max) throw badInput(`${field} must be at most ${max} characters`, field);
  return trimmed;
}

/** Like checkText, but absent stays absent and an empty text is allowed. */
export function checkOptionalText(value: string | null | undefined, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > max) throw badInput(`${field} must be at most ${max} characters`, field);
  return value;
}

/** An absolute http(s) URL. */
export function checkUrl(value: string, field: string): string {
  parseHttpUrl(value, field);
  if (value.length > 2048) throw badInput(`${field} must be at most 2048 characters`, field);
  return value;
}

export function checkOptionalUrl(value: string | null | undefined, field: string): string | null {
  return value === undefined || value === null || value === '' ? null : checkUrl(value, field);
}

/** A body's siteId, when given, must be the caller's site. */
export function checkSiteId(given: string | null | undefined, siteId: string, field = 'siteId'): void {
  if (given !== undefined && given !== null && given !== siteId) throw badInput(`${field} must be the site of x-service-client-id`, field);
}

export function checkTags(tags: readonly string[] | null | undefined, field = 'tags'): string[] {
  if (!tags) return [];
  if (tags.length > 100) throw badInput(`${field} must have at most 100 items`, field);
  tags.forEach((tag, index) => checkText(tag, `${field}[${index}]`, 100));
  return tags.map((tag) => tag.trim());
}

/** A list of at most `max` items. */
export function checkListSize<T>(list: readonly T[], field: string, max: number): readonly T[] {
  if (list.length > max) throw badInput(`${field} must have at most ${max} items`, field);
  return list;
}

/** A finite number (not NaN or infinite), when given. */
export function checkOptionalNumber(value: number | null | undefined, field: string, min = -Number.MAX_VALUE): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isFinite(value) || value < min) throw badInput(`${field} must be a number${min > -Number.MAX_VALUE ? ` of at least ${min}` : ''}`, field);
  return value;
}

/** The string items of a stored JSON array. */
export { stringList } from '../../shared/json';

/** The row a lookup found, or NOT_FOUND naming what was looked for (another site's rows are never found). */
export function found<T>(row: T | null | undefined, what: string): T {
  if (!row) throw notFound(what);
  return row;
}
