/** Input checks the GraphQL types cannot express; each error names the field it is about. */
import { badInput } from '../../shared/errors';

const MAX_DURATION_SECONDS = 86_400;

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw badInput('name must not be empty', 'name');
  if (trimmed.length > 200) throw badInput('name must be at most 200 characters', 'name');
  return trimmed;
}

export function checkDuration(duration: number, field = 'duration'): number {
  if (!Number.isInteger(duration) || duration <= 0) throw badInput(`${field} must be a positive whole number of seconds`, field);
  if (duration > MAX_DURATION_SECONDS) throw badInput(`${field} must be at most ${MAX_DURATION_SECONDS} seconds`, field);
  return duration;
}

export function checkContents(contents: unknown, type: string): Record<string, unknown> {
  if (!contents || typeof contents !== 'object' || Array.isArray(contents)) throw badInput('contents must be an object', 'contents');
  const record = contents as Record<string, unknown>;
  if (type === 'template' && typeof record.html !== 'string') {
    throw badInput('contents.html must be a string for a template overlay', 'contents.html');
  }
  return record;
}

export function checkCta(cta: { type: string; data?: unknown } | null | undefined): { type: string; data: unknown } | null {
  if (!cta) return null;
  if (!cta.type.trim()) throw badInput('cta.type must not be empty', 'cta.type');
  return { type: cta.type, data: cta.data ?? null };
}

/** Variables are a map of names to strings; numbers and booleans are taken as their text. */
export function checkVariables(variables: unknown): Record<string, string> {
  if (variables === undefined || variables === null) return {};
  if (typeof variables !== 'object' || Array.isArray(variables)) throw badInput('variables must be an object of strings', 'variables');
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value === 'string') result[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') result[name] = String(value);
    else throw badInput(`variables.${name} must be a string`, `variables.${name}`);
  }
  return result;
}

export function checkSiteId(given: string | null | undefined, siteId: string): void {
  if (given !== undefined && given !== null && given !== siteId) {
    throw badInput('siteId must be the site of x-service-client-id', 'siteId');
  }
}

export function checkOptionalId(value: string | null | undefined, field: string): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > 128) throw badInput(`${field} must be a non-empty ID`, field);
  return trimmed;
}
