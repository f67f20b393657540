/**
 * The rules a route's JSON body follows on every route: how an empty body reads, which content types
 * carry JSON, which fields are read-only (sent back as read, ignored), the caller's site in site fields,
 * and the JSON Schema check that refuses everything else, a `null` the schema does not allow included.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { HeaderBag } from '../shared/auth/authenticate';
import { parseJsonInput } from '../shared/jsonInput';
import { describeSchemaError } from '../shared/schemaErrors';
import { RequestError } from './requestError';
import { READ_ONLY, type RouteSpec } from './table';

const SITE_FIELDS = ['siteId', 'site_id'] as const;

/** What a read answers for the fields every resource has: a body carrying them back carries these types. */
const READ_ONLY_TYPES: Record<(typeof READ_ONLY)[number], 'string' | 'number'> = { _id: 'string', created: 'number', modified: 'number' };

/**
 * The read-only fields of a body, the same on every route: `_id`, `created` and `modified` (and the route's
 * own `body.readOnly` list) are what a read answers and no client sets, so a body may carry them back and
 * they are ignored — dropped before the schema check, so unknown fields are still refused; `_id`, `created`
 * and `modified` of another type than a read gives (a string, numbers) are refused. A site field
 * (`siteId`, `site_id`) wherever it is sent must name the caller's site (x-service-client-id): 400
 * otherwise. Nothing else is dropped: a `null` the schema does not allow is refused by the schema check
 * like any other wrong type, so a replace or update never takes a null for a field it requires.
 */
function withoutReadOnly(body: unknown, readOnly: ReadonlySet<string>, headers: HeaderBag): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const kept = { ...(body as Record<string, unknown>) };
  for (const [field, type] of Object.entries(READ_ONLY_TYPES)) {
    if (kept[field] !== undefined && typeof kept[field] !== type)
      throw new RequestError(400, `body.${field} must be a ${type} (it is read-only: sent back as read, it is ignored)`);
  }
  const site = headers['x-service-client-id'];
  for (const field of SITE_FIELDS) {
    if (kept[field] !== undefined && typeof site === 'string' && kept[field] !== site) {
      throw new RequestError(400, `body.${field} must be the caller's site (x-service-client-id)`);
    }
  }
  for (const field of readOnly) delete kept[field];
  return kept;
}

/** A route's read-only body fields: the ones every resource answers, and the route's own. */
export const readOnlyFields = (spec: RouteSpec): ReadonlySet<string> => new Set([...READ_ONLY, ...(spec.body?.readOnly ?? [])]);

/** What the body rules need of a route: its spec, its body schema's validator (compiled on first use) and its read-only fields. */
export interface BodyRules {
  spec: RouteSpec;
  validateBody: (() => ValidateFunction) | null;
  readOnly: ReadonlySet<string>;
}

/**
 * The route's body read from its raw text: empty is `{}` (or 400 when the route requires a body), JSON
 * only as application/json (or `+json`, or text/plain) else 415, read-only fields dropped and the rest
 * checked against the route's schema; a RequestError names the field otherwise.
 */
export function readJsonBody({ spec, validateBody, readOnly }: BodyRules, raw: string, headers: IncomingHttpHeaders): unknown {
  let body: unknown;
  if (raw.trim() === '') {
    if (spec.body?.required) throw new RequestError(400, 'a JSON body is required');
    body = {};
  } else {
    const type = headers['content-type'] ?? '';
    if (!/^application\/(.+\+)?json\b/i.test(type) && !/^text\/plain\b/i.test(type)) {
      throw new RequestError(415, 'the body must be sent as application/json');
    }
    const parsed = parseJsonInput(raw, 'body');
    if ('error' in parsed) throw new RequestError(400, parsed.error);
    body = parsed.value;
  }
  // A signed body is the partner's own document, taken as signed: nothing in it is a resource's read-only field.
  if (!spec.rawBody) body = withoutReadOnly(body, readOnly, headers);
  const validate = validateBody?.();
  if (validate && !validate(body)) {
    throw new RequestError(400, describeSchemaError((validate.errors as ErrorObject[])[0], 'body'));
  }
  return body;
}
