/**
 * The vocabulary of the REST bridge's route table. A route says everything about one REST path:
 * method and path, the seed's Auth codes, the GraphQL operation it becomes, where each variable comes
 * from, the success status and the response shape. The express router, request validation, the
 * OpenAPI document and the route tests are all derived from the table.
 */

/** The seeds' Auth codes: C site ID, D developer key, J sign-in JWT. */
export type AuthCode = 'C' | 'D' | 'J';

export type JsonSchema = Record<string, unknown>;

export interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: JsonSchema;
  required?: boolean;
  /**
   * A partner's credential (a Bearer token, a signature) that the operation verifies itself: when it is
   * absent the answer is 401, before the body is read.
   */
  credential?: boolean;
  description?: string;
}

/**
 * Where a GraphQL variable comes from: `path.id`, `query.limit`, `header.x-name`, `body` (the whole
 * JSON body), `body.duration` (one field), `rawBody` (the exact bytes, for signatures). A list takes the
 * first that is present; an object builds an input object field by field; `{ value }` is a constant.
 */
export type VariableSource = string | readonly string[] | { readonly value: unknown } | { readonly [field: string]: VariableSource };

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
  /** JSON Schema of the request body; validated before the operation runs. */
  body?: { schema: JsonSchema; required?: boolean };
  /** Hand the exact request body to the operation (signature checks). */
  rawBody?: boolean;
  /** Largest body this route reads (413 above); default BODY_LIMIT_BYTES. */
  bodyLimitBytes?: number;
  /** The GraphQL operation; its root field is aliased `result`. */
  document: string;
  variables?: Readonly<Record<string, VariableSource>>;
  /** Success status (default 200). */
  status?: number;
  /** Response shape: `result` as it is, `{ success: true, ...result }`, or `{ success: true, results: result }` (a list). */
  envelope?: 'none' | 'success' | 'results';
  /** JSON Schema (or $ref) of the success body, for the OpenAPI document. */
  response: JsonSchema;
}

// ---------------------------------------------------------------- helpers for writing route tables

/** Admin callers: the site ID with a developer key, or with a sign-in JWT. */
export const ADMIN = [['C', 'D'], ['C', 'J']] as const satisfies readonly (readonly AuthCode[])[];

/** A required path parameter. */
export const pathId = (name = 'id', description = 'resource ID'): ParamSpec => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
export const epochMs: JsonSchema = { type: 'number', description: 'Unix time in milliseconds' };
