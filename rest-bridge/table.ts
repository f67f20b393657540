/**
 * The vocabulary of the REST bridge's route table. A route says everything about one REST path:
 * method and path, the seed's Auth codes, the GraphQL operation it becomes, where each variable comes
 * from, the success status and the response shape. The express router, request validation, the
 * OpenAPI document and the route tests are all derived from the table.
 */
import type { QuickAnswerName } from '../shared/quickAnswers';

/** The seeds' Auth codes: C site ID, D developer key, J sign-in JWT; S the super API key (insights). */
export type AuthCode = 'C' | 'D' | 'J' | 'S';

export type JsonSchema = Record<string, unknown>;

export interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: JsonSchema;
  required?: boolean;
  /**
   * A partner's credential (a Bearer token, a signature) that the operation verifies itself: when it is
   * absent the answer is 401, before the body is read. A credential header is kept from the identity
   * authenticator, which refuses any Authorization that is not a sign-in JWT.
   */
  credential?: boolean;
  description?: string;
  /** An array sent as one comma-separated value (`?ids=a,b`); other arrays and objects are sent as JSON. */
  commaSeparated?: boolean;
  /** A credential carried in the path (a one-time token): the request log shows [redacted] instead. */
  secret?: boolean;
}

/**
 * Where a GraphQL variable comes from: `path.id`, `query.limit`, `header.x-name`, `body` (the whole
 * JSON body), `body.duration` (one field), `rawBody` (the exact bytes, for signatures). A dotted
 * reference walks into JSON values (`query.options.sortBy`; a key that itself holds dots, such as
 * `data.name`, matches whole first). A list takes the first that is present; an object builds an input
 * object field by field; `{ value }` is a constant; `{ given }` is true when any of its references is
 * present and not false, 0 or null (for `@include(if:)`).
 */
export type VariableSource =
  string | readonly string[] | { readonly value: unknown } | { readonly given: string | readonly string[] } | { readonly [field: string]: VariableSource };

/**
 * A legacy Mongo-style projection applied to the answer: `{ field: 1 }` keeps only the named fields
 * (and `_id` unless `_id: 0`), `{ field: 0 }` drops them; dotted paths reach into objects.
 */
export interface ProjectionSpec {
  /** Where the request carries the projection object (absent = no projection). */
  source: string;
  /** The list it applies to, inside the answer (default: the answer, or each item of an array answer). */
  at?: string;
  /** Keys of the projection that steer the operation (through a `given` variable) rather than name fields. */
  ignore?: readonly string[];
}

export interface RouteSpec {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: /overlay/v1/{id}. */
  path: string;
  summary: string;
  tag: string;
  /** Alternatives: the caller must present every code of at least one list. */
  auth: readonly (readonly AuthCode[])[];
  params?: readonly ParamSpec[];
  /**
   * JSON Schema of the request body; validated before the operation runs, and a `null` or a value of
   * another type for a property is refused (400 naming it) unless the property's schema takes it. On
   * every route with a JSON body (not a signed `rawBody`), `_id`, `created` and `modified` (READ_ONLY)
   * may be sent back from a read and are ignored (of another type than a read gives, 400), and a `siteId`
   * / `site_id` must name the caller's site (x-service-client-id). `readOnly` names the route's further
   * fields of the resource as it is read (derived fields) that are ignored the same way: all are dropped
   * before the schema check, so unknown fields are still refused.
   */
  body?: { schema: JsonSchema; required?: boolean; readOnly?: readonly string[] };
  /** Hand the exact request body to the operation (signature checks). */
  rawBody?: boolean;
  /** Largest body this route reads (413 above); default BODY_LIMIT_BYTES. */
  bodyLimitBytes?: number;
  /** The GraphQL operation; its root field is aliased `result`. */
  document: string;
  variables?: Readonly<Record<string, VariableSource>>;
  /** Success status (default 200). */
  status?: number;
  /**
   * The answer is 202 instead of `status` when one of these fields of the result is set (not false or
   * null), or, written `field=value`, has that value: the request was taken but its effect waits (a chat
   * message held for a moderator or delayed, a Q&A question held: `status=held`).
   */
  acceptedWhen?: readonly string[];
  /** Response shape: `result` as it is, `{ success: true, ...result }`, or `{ success: true, results: result }` (a list). */
  envelope?: 'none' | 'success' | 'results';
  /** A projection the request may give, applied to the answer. */
  projection?: ProjectionSpec;
  /** Replaces the list at `at` in the answer by one entry per item, keyed by the item's `key` field. */
  keyBy?: { at: string; key: string };
  /**
   * The answer is a file, not JSON built from `result`: the operation returns `{ contentType, fileName,
   * content }` and the body is `content` as it is, with that Content-Type and, when fileName is set, an
   * attachment Content-Disposition. `contentTypes` lists what it may be (for the OpenAPI document);
   * `response` describes the application/json form when there is one.
   */
  file?: { contentTypes: readonly string[] };
  /**
   * Pages of any origin may read the answer (`Access-Control-Allow-Origin: *`, and an OPTIONS preflight
   * for the credential headers): for what holds nothing secret and is read by scripts on sites' own
   * pages (the player helper reads the timeline).
   */
  anyOrigin?: boolean;
  /**
   * A viewer-facing read that may be reused. Both kinds send an `ETag` and answer 304 to a matching
   * `If-None-Match`. `shared`: the answer depends only on the site (`x-service-client-id`) and the
   * request, never on who asks: the instance keeps it until the bus announces a change of the site's
   * content (shared/viewerReads.ts), and it goes out as `Cache-Control: public, max-age=1` with
   * `Vary: x-service-client-id`, so a CDN in front serves it for a second. `private`: computed for each
   * caller (entitlements, devices), `Cache-Control: private, no-cache`.
   */
  cache?: 'shared' | 'private';
  /**
   * The one subgraph that answers the whole operation (every field it selects is that subgraph's).
   * Where that subgraph runs in the bridge's process the operation goes to it straight, without the
   * gateway's query plan around it: the hot viewer reads of a join storm. Elsewhere it goes through
   * the gateway as every route does.
   */
  subgraph?: 'content' | 'community' | 'overlays' | 'integrations';
  /**
   * A quick answer (shared/quickAnswers.ts) the subgraph may give for the operation's root field without
   * executing it, in its plain happy case; the bridge picks what the document selects from it. Null, or
   * a field it lacks, and the operation executes as always.
   */
  quick?: QuickAnswerName;
  /** JSON Schema (or $ref) of the success body, for the OpenAPI document. */
  response: JsonSchema;
  /**
   * The operation counts attempts (sign-in failures, reset e-mails, TV codes, code guesses, data events)
   * and answers 429 with Retry-After once they run out. The other error statuses of a route are derived
   * from the rest of its spec (see rest-bridge/openapi.ts).
   */
  rateLimited?: boolean;
  /**
   * The route takes no input yet can answer 404: it reads a thing of the site that may not exist yet (a
   * receipt sender before one is added). Says when, for the OpenAPI document's 404.
   */
  notFoundWhen?: string;
  /** The operation calls a streaming provider or the video platform and answers 502 when that call fails or times out. */
  callsOut?: boolean;
  /**
   * The operation reads a document from elsewhere (a playlist at a video platform) that it may refuse for what
   * it is: 422 when it is not what the operation reads or holds more than it takes, 413 when it is larger than
   * it reads. Says which document, for the OpenAPI document's 413 and 422.
   */
  readsDocument?: string;
}

// ---------------------------------------------------------------- helpers for writing route tables

/** Admin callers: the site ID with a developer key, or with a sign-in JWT. */
export const ADMIN = [
  ['C', 'D'],
  ['C', 'J'],
] as const satisfies readonly (readonly AuthCode[])[];

/** Fields every resource answers and no client sets: its ID and timestamps. */
export const READ_ONLY = ['_id', 'created', 'modified'] as const;

/**
 * The site ID alone: what every viewer's browser holds. Only for the reads the seeds give to C alone
 * (docs/design.md "Authentication"); test/community/seed-auth.part.ts holds every route to its seed row.
 */
export const SITE_ID = [['C']] as const satisfies readonly (readonly AuthCode[])[];

/** A signed-in account of the site: the site ID with its sign-in JWT. */
export const SIGNED_IN = [['C', 'J']] as const satisfies readonly (readonly AuthCode[])[];

/** The site ID with its developer key only (partner registration, bulk codes, …). */
export const SITE_ADMIN = [['C', 'D']] as const satisfies readonly (readonly AuthCode[])[];

/** A partner's own credential (a Bearer token, a signature) that the operation verifies: no C, D or J. */
export const PARTNER = [] as const satisfies readonly (readonly AuthCode[])[];

/** Overlay callers: as ADMIN, or a sign-in JWT alone (the sports workflow; the site is the token's). */
export const ADMIN_OR_TOKEN = [['C', 'D'], ['C', 'J'], ['J']] as const satisfies readonly (readonly AuthCode[])[];

/** A required path parameter. */
export const pathId = (name = 'id', description = 'resource ID'): ParamSpec => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
export const epochMs: JsonSchema = { type: 'number', description: 'Unix time in milliseconds' };
