/**
 * A REST request read as a route's input: path, query and header parameters coerced from text to their
 * declared types and checked against their JSON Schemas (ajv), the body read by the body rules, and the
 * GraphQL variables resolved from the sources the route table declares.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Request } from 'express';
import { jsonValueProblem, numberProblem, parseJsonInput, stringProblem } from '../shared/jsonInput';
import { describeSchemaError } from '../shared/schemaErrors';
import { readJsonBody, readOnlyFields, type BodyRules } from './requestBody';
import { RequestError } from './requestError';
import type { ParamSpec, RouteSpec, VariableSource } from './table';

/** A request as its route reads it: parameters by place, the parsed body and the body's exact text. */
export interface RouteInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body: unknown;
  rawBody: string;
}

/** A route's input checks: its parameters' and body's schemas (each compiled once, on first use) and its read-only fields. */
export interface InputRules extends BodyRules {
  params: { spec: ParamSpec; validate: () => ValidateFunction }[];
}

const ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: false });
addFormats(ajv);

/**
 * A schema's validator, compiled when a request first needs it: a router of ~200 routes starts without
 * compiling every schema (a fifth of a stack's start). `npm run generate` compiles them all
 * (compileEveryInputSchema), so a schema ajv refuses still stops the build.
 */
function compiledOnFirstUse(schema: object): () => ValidateFunction {
  let validate: ValidateFunction | undefined;
  return () => (validate ??= ajv.compile(schema));
}

/** The route's parameter and body checks (built with the router; each schema compiled on first use). */
export function compileInputRules(spec: RouteSpec): InputRules {
  return {
    spec,
    validateBody: spec.body ? compiledOnFirstUse(spec.body.schema) : null,
    params: (spec.params ?? []).map((param) => ({ spec: param, validate: compiledOnFirstUse(param.schema) })),
    readOnly: readOnlyFields(spec),
  };
}

/** The build's check: compiles every route's parameter and body schemas now; throws on the first one ajv refuses. */
export function compileEveryInputSchema(specs: readonly RouteSpec[]): void {
  for (const spec of specs) {
    const rules = compileInputRules(spec);
    rules.validateBody?.();
    for (const param of rules.params) param.validate();
  }
}

/** A parameter's value as text: express's simple query parser, paths and headers give text (or lists of it). */
function paramText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Query, path and header values arrive as text; this turns them into the declared type. */
function coerceParam(spec: ParamSpec, raw: unknown): unknown {
  if (raw === undefined || raw === '') return undefined;
  const text = paramText(Array.isArray(raw) ? (raw as unknown[])[0] : raw);
  const field = `${spec.in}.${spec.name}`;
  const textProblem = stringProblem(text);
  if (textProblem) throw new RequestError(400, `${field} ${textProblem}`);
  const type = spec.schema.type;
  if (type === 'integer' || type === 'number') {
    const value = Number(text);
    if (!Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) {
      throw new RequestError(400, `${field} must be ${type === 'integer' ? 'an integer' : 'a number'}`);
    }
    const problem = numberProblem(value);
    if (problem) throw new RequestError(400, `${field} ${problem}`);
    return value;
  }
  if (type === 'boolean') {
    if (text !== 'true' && text !== 'false') throw new RequestError(400, `${spec.in}.${spec.name} must be true or false`);
    return text === 'true';
  }
  if (type === 'array' && spec.commaSeparated) {
    // form style, not exploded: a,b,c — or the parameter repeated.
    const items = (Array.isArray(raw) ? raw.map(String) : text.split(',')).map((item) => item.trim()).filter(Boolean);
    const problem = jsonValueProblem(items, field);
    if (problem) throw new RequestError(400, problem);
    return items.length > 0 ? items : undefined;
  }
  if (type === 'object' || type === 'array') {
    const parsed = parseJsonInput(text, field);
    if ('error' in parsed) throw new RequestError(400, parsed.error);
    return parsed.value;
  }
  return text;
}

/** The value at a dotted path inside a JSON value; a key that itself holds dots matches whole first. */
function walk(value: unknown, path: string): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, path)) return record[path];
  for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) {
    const head = path.slice(0, dot);
    if (!Object.hasOwn(record, head)) continue;
    const found = walk(record[head], path.slice(dot + 1));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The value a reference (`body`, `rawBody`, `path.id`, `query.options.sortBy`, …) names in the input. */
export function lookup(input: RouteInput, reference: string): unknown {
  if (reference === 'body') return input.body;
  if (reference === 'rawBody') return input.rawBody;
  const dot = reference.indexOf('.');
  const where = reference.slice(0, dot) as 'path' | 'query' | 'header' | 'body';
  return walk(where === 'body' ? input.body : input[where], reference.slice(dot + 1));
}

const isGiven = (value: unknown) => value !== undefined && value !== null && value !== false && value !== 0;

/** Resolves a variable source against the request; undefined means "not given". */
export function resolveSource(source: VariableSource, input: RouteInput): unknown {
  if (typeof source === 'string') return lookup(input, source);
  if (Array.isArray(source)) {
    for (const reference of source as readonly string[]) {
      const value = lookup(input, reference);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  if ('value' in (source as object)) return (source as { value: unknown }).value;
  const given = (source as { given?: unknown }).given;
  if (typeof given === 'string' || Array.isArray(given)) {
    return (typeof given === 'string' ? [given] : (given as string[])).some((reference) => isGiven(lookup(input, reference)));
  }
  const entries = Object.entries(source as Record<string, VariableSource>)
    .map(([field, nested]) => [field, resolveSource(nested, input)] as const)
    .filter(([, value]) => value !== undefined);
  return Object.fromEntries(entries);
}

/**
 * The request read as the route's input: each declared parameter coerced and checked (a missing
 * credential is 401, a missing required parameter 400), then the body when the route declares one.
 */
export function readInput(rules: InputRules, req: Request): RouteInput {
  const { spec, params } = rules;
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  // Headers are readable as `header.<name>` sources whether declared or not; declared ones are checked below.
  const input: RouteInput = { path: {}, query: {}, header: { ...req.headers }, body: undefined, rawBody: raw };
  for (const { spec: param, validate } of params) {
    const source = param.in === 'path' ? req.params : param.in === 'query' ? req.query : req.headers;
    const value = coerceParam(param, (source as Record<string, unknown>)[param.in === 'header' ? param.name.toLowerCase() : param.name]);
    if (value === undefined) {
      if (param.credential) throw new RequestError(401, `credentials required: ${param.name} ${param.in}`);
      if (param.required) throw new RequestError(400, `${param.in}.${param.name} is required`);
      continue;
    }
    const check = validate();
    if (!check(value)) throw new RequestError(400, describeSchemaError((check.errors as ErrorObject[])[0], `${param.in}.${param.name}`));
    input[param.in][param.name] = value;
  }
  if (spec.body) input.body = readJsonBody(rules, raw, req.headers);
  return input;
}

/** The route's GraphQL variables from the request's input: each declared source resolved, the ones not given left out. */
export function routeVariables(spec: RouteSpec, input: RouteInput): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(spec.variables ?? {})
      .map(([name, source]) => [name, resolveSource(source, input)] as const)
      .filter(([, value]) => value !== undefined),
  );
}
