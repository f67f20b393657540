/**
 * The express router derived from the route table: for each route it checks the content type, parses
 * and validates parameters and body against the route's JSON Schemas (ajv), builds the GraphQL
 * variables from their declared sources, runs the operation and shapes the answer. Errors become
 * `{ success: false, message }` with the status of their code.
 */
import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import express, { type Request, type RequestHandler, type Response } from 'express';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { HeaderBag } from '../shared/auth/authenticate';
import type { EventBus } from '../shared/bus';
import { followedSiteCache, type SiteCache } from '../shared/viewerReads';
import { ErrorCode, restErrorBody, statusForCode } from '../shared/errors';
import { jsonValueProblem, numberProblem, parseJsonInput, stringProblem } from '../shared/jsonInput';
import { describeSchemaError } from '../shared/schemaErrors';
import type { Logger } from '../shared/logger';
import { project, readProjection, type Projection } from './projection';
import { READ_ONLY, type AuthCode, type ParamSpec, type RouteSpec, type VariableSource } from './table';
import { operationNameOf, routeTemplate } from '../shared/metrics';

/**
 * How the bridge reaches the gateway. `authenticate` runs before any input is read, so a caller
 * without valid credentials learns nothing about the route's validation; it throws a GraphQLError
 * with a code. `execute` runs the operation as that caller.
 */
export interface Executor<Caller = unknown> {
  authenticate(headers: HeaderBag): Promise<Caller>;
  execute(request: OperationRequest, caller: Caller): Promise<ExecutionResult>;
  /**
   * Runs an operation that one subgraph answers whole on that subgraph, when it runs in this process
   * (see `subgraph` in table.ts); absent or answering null = through `execute`.
   */
  executeOn?(subgraph: NonNullable<RouteSpec['subgraph']>, request: OperationRequest, caller: Caller): Promise<ExecutionResult> | null;
}

/** A route's operation as the bridge runs it; `operationName` is the name its document gives it. */
export interface OperationRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

const HEADER_OF: Record<AuthCode, string> = { C: 'x-service-client-id', D: 'x-service-developer-key', J: 'authorization', S: 'super-api-key' };
const HEADER_LABEL: Record<AuthCode, string> = { C: 'x-service-client-id', D: 'x-service-developer-key', J: 'Authorization: Bearer <JWT>', S: 'super-api-key' };

/** The route's Auth codes, checked for presence only: one alternative must be fully present. */
function checkCredentialsPresent(spec: RouteSpec, headers: HeaderBag): void {
  if (spec.auth.length === 0) return;
  const present = (code: AuthCode) => Boolean(headers[HEADER_OF[code]]);
  if (spec.auth.some((codes) => codes.every(present))) return;
  const wanted = spec.auth.map((codes) => codes.map((code) => HEADER_LABEL[code]).join(' + ')).join(', or ');
  throw new RequestError(401, `credentials required: ${wanted}`);
}

class RequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

interface RouteInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body: unknown;
  rawBody: string;
}

const ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: false });
addFormats(ajv);

/** Query, path and header values arrive as text; this turns them into the declared type. */
function coerceParam(spec: ParamSpec, raw: unknown): unknown {
  if (raw === undefined || raw === '') return undefined;
  const text = Array.isArray(raw) ? String(raw[0]) : String(raw);
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

function lookup(input: RouteInput, reference: string): unknown {
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

function firstError(errors: readonly GraphQLFormattedError[]): { status: number; message: string } {
  const error = errors[0];
  const code = error.extensions?.code;
  // Variables the GraphQL types refuse are bad input, whatever the server calls them.
  const status = code === undefined || code === 'INTERNAL_SERVER_ERROR' ? (/^Variable "\$/.test(error.message) ? 400 : 500) : statusForCode(code);
  return { status, message: status === 500 ? 'internal server error' : error.message };
}

interface CompiledRoute {
  spec: RouteSpec;
  /** The headers that say who the caller is: all but the partner credentials the operation checks itself. */
  identityHeaders(headers: HeaderBag): HeaderBag;
  validateBody: ValidateFunction | null;
  params: { spec: ParamSpec; validate: ValidateFunction }[];
  /** The body fields a client may send back from a read and that are ignored (see withoutReadOnly). */
  readOnly: ReadonlySet<string>;
  operationName: string | undefined;
}

/** The projection the request gives for the route, checked before the operation runs. */
function requestedProjection(spec: RouteSpec, input: RouteInput): Projection | null {
  if (!spec.projection) return null;
  const projection = readProjection(lookup(input, spec.projection.source), spec.projection.source, spec.projection.ignore);
  if (projection && 'error' in projection) throw new RequestError(400, projection.error);
  return projection;
}

/** The answer shaped as the route says: projected, keyed, enveloped. */
function shapeAnswer(spec: RouteSpec, data: unknown, projection: Projection | null): unknown {
  let answer = data;
  if (projection && answer !== null && answer !== undefined) {
    const apply = (value: unknown) => (Array.isArray(value) ? value.map((item) => project(item, projection)) : project(value, projection));
    const at = spec.projection?.at;
    answer = at ? { ...(answer as object), [at]: apply((answer as Record<string, unknown>)[at]) } : apply(answer);
  }
  if (spec.keyBy && answer && typeof answer === 'object') {
    const { [spec.keyBy.at]: list, ...rest } = answer as Record<string, unknown>;
    const key = spec.keyBy.key;
    answer = { ...rest, ...Object.fromEntries((list as Record<string, unknown>[]).map((item) => [String(item[key]), item])) };
  }
  if (spec.envelope === 'success') return { success: true, ...(answer as object) };
  if (spec.envelope === 'results') return { success: true, results: answer };
  return answer;
}

export interface RestRouterOptions {
  routes: readonly RouteSpec[];
  executor: Executor;
  logger: Logger;
  bodyLimitBytes: number;
  /**
   * The deployment's event bus, when the executor authenticates every credential in this process: then
   * answers of `cache: 'shared'` routes are kept per site until the bus announces the site changed.
   * Without it those routes still send ETag and Cache-Control, and every request runs its operation.
   */
  bus?: EventBus;
}

/** An answer ready to send again: its body as sent and its entity tag. */
interface KeptAnswer {
  body: Buffer;
  length: number;
  etag: string;
}

function keptAnswer(answer: unknown): KeptAnswer {
  const body = Buffer.from(JSON.stringify(answer ?? null));
  return { body, length: body.length, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Whether If-None-Match names the answer's tag (weak or strong; `*` names any). */
function notModified(req: Request, etag: string): boolean {
  const given = req.headers['if-none-match'];
  if (!given) return false;
  return given.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function sendCacheable(req: Request, res: Response, spec: RouteSpec, answer: KeptAnswer): void {
  res.setHeader('ETag', answer.etag);
  if (spec.cache === 'shared') {
    res.setHeader('Cache-Control', 'public, max-age=1');
    res.setHeader('Vary', 'x-service-client-id');
  } else {
    res.setHeader('Cache-Control', 'private, no-cache');
  }
  if (notModified(req, answer.etag)) {
    res.status(304).end();
    return;
  }
  // Written as kept, without express's send (which parses the content type and re-encodes the body):
  // the body is already JSON text and its length is known.
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', answer.length);
  res.statusCode = spec.status ?? 200;
  res.end(answer.body);
}

/** The site a shared answer is kept under: the x-service-client-id the executor has just verified. */
function siteHeader(req: Request): string | undefined {
  const value = req.headers['x-service-client-id'];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || undefined;
}

/**
 * The route table as one radix tree (find-my-way): a request finds its route in one walk down its path,
 * not by trying every route's regular expression in turn. Matching is as express's was: static parts
 * case-insensitive, a trailing slash optional, parameters percent-decoded; HEAD answers as GET.
 */
function routeTree(): { add(method: string, path: string, handlers: RequestHandler[]): void; dispatch: RequestHandler } {
  const tree = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 8192 });
  return {
    add(method, path, handlers) {
      const run: RequestHandler = (req, res, next) => {
        let index = 0;
        const step = (error?: unknown): void => {
          if (error !== undefined && error !== null) return next(error);
          const handler = handlers[index++];
          if (handler) handler(req, res, step);
        };
        step();
      };
      // The route's handlers travel as the tree's store; find-my-way's own handler slot is unused.
      const upper = method.toUpperCase() as HTTPMethod;
      tree.on(upper, path, unused, run);
      if (upper === 'GET') tree.on('HEAD', path, unused, run);
    },
    dispatch(req, res, next) {
      const found = tree.find(req.method as HTTPMethod, req.path);
      if (!found) {
        if (req.path.includes('%') && !decodes(req.path)) {
          res.status(400).json(restErrorBody('the path is not valid percent-encoding'));
          return;
        }
        next();
        return;
      }
      req.params = found.params as Record<string, string>;
      (found.store as RequestHandler)(req, res, next);
    },
  };
}

const unused = () => undefined;

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

export function createRestRouter({ routes, executor, logger, bodyLimitBytes, bus }: RestRouterOptions): RequestHandler {
  const tree = routeTree();
  const shared = bus ? followedSiteCache<KeptAnswer>(bus).cache : null;
  const rawBody = express.raw({ type: () => true, limit: bodyLimitBytes });

  for (const spec of routes) {
    const partnerHeaders = (spec.params ?? []).filter((param) => param.in === 'header' && param.credential).map((param) => param.name.toLowerCase());
    const compiled: CompiledRoute = {
      spec,
      identityHeaders: (headers) => {
        if (partnerHeaders.length === 0) return headers;
        const kept = { ...headers };
        for (const name of partnerHeaders) delete kept[name];
        return kept;
      },
      validateBody: spec.body ? ajv.compile(spec.body.schema) : null,
      params: (spec.params ?? []).map((param) => ({ spec: param, validate: ajv.compile(param.schema) })),
      readOnly: readOnlyFields(spec),
      operationName: operationNameOf(spec.document),
    };
    const path = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const secrets = new Set((spec.params ?? []).filter((param) => param.in === 'path' && param.secret).map((param) => param.name));
    if (spec.anyOrigin) tree.add('options', path, [routeTemplate(spec.path), answerPreflight(spec)]);
    const answer: RequestHandler = (req, res) => {
      if (spec.anyOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
      // The request log reads res.locals.logPath when a path carries a credential.
      if (secrets.size) res.locals.logPath = spec.path.replace(/\{(\w+)\}/g, (_match, name: string) => (secrets.has(name) ? '[redacted]' : String(req.params[name])));
      handle(compiled, req, res).catch((error: unknown) => {
        const requestId = (req as { id?: string }).id;
        logger.error({ err: error, requestId, route: spec.operationId }, 'REST route failed');
        res.status(500).json(restErrorBody('internal server error', requestId));
      });
    };
    // A route without a body reads none: its request's body, if any, is left unread (and refused below
    // only when the route declares one).
    const readBody = spec.body ? [spec.bodyLimitBytes ? express.raw({ type: () => true, limit: spec.bodyLimitBytes }) : rawBody] : [];
    tree.add(spec.method, path, [routeTemplate(spec.path), ...readBody, answer]);
  }

  async function handle(compiled: CompiledRoute, req: Request, res: Response): Promise<void> {
    const { spec } = compiled;
    try {
      checkCredentialsPresent(spec, req.headers as HeaderBag);
      let caller: unknown;
      try {
        caller = await executor.authenticate(compiled.identityHeaders(req.headers as HeaderBag));
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        throw new RequestError(statusForCode(error.extensions.code), error.message);
      }
      const input = readInput(compiled, req);
      const projection = requestedProjection(spec, input);
      const variables = Object.fromEntries(
        Object.entries(spec.variables ?? {})
          .map(([name, source]) => [name, resolveSource(source, input)] as const)
          .filter(([, value]) => value !== undefined),
      );
      const siteId = spec.cache === 'shared' && shared ? siteHeader(req) : undefined;
      const key = siteId ? `${spec.operationId}\n${JSON.stringify(variables)}\n${JSON.stringify(projection)}` : '';
      if (siteId) {
        const kept = shared?.get(siteId, key);
        if (kept) {
          sendCacheable(req, res, spec, kept);
          return;
        }
      }
      const generation = siteId ? (shared as SiteCache<KeptAnswer>).generation(siteId) : 0;
      const request: OperationRequest = { query: spec.document, variables, operationName: compiled.operationName };
      const result = await ((spec.subgraph && executor.executeOn?.(spec.subgraph, request, caller)) || executor.execute(request, caller));
      if (result.errors?.length) {
        const { status, message } = firstError(result.errors);
        if (status === 429) res.setHeader('Retry-After', String(result.errors[0].extensions?.retryAfter ?? 1));
        res.status(status).json(restErrorBody(message, status === 500 ? (req as { id?: string }).id : undefined));
        return;
      }
      const data = (result.data as { result?: unknown } | null | undefined)?.result;
      if (spec.file) {
        sendFile(res, spec.status ?? 200, data as FileResult);
        return;
      }
      if (spec.cache) {
        const answer = keptAnswer(shapeAnswer(spec, data, projection));
        if (siteId) shared?.set(siteId, key, answer, generation);
        sendCacheable(req, res, spec, answer);
        return;
      }
      res.status(spec.status ?? 200).json(shapeAnswer(spec, data, projection) ?? null);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      res.status(error.status).json(restErrorBody(error.message));
    }
  }

  return tree.dispatch;
}

/** The CORS preflight of an `anyOrigin` route: its method, with the headers of its Auth codes. */
function answerPreflight(spec: RouteSpec): RequestHandler {
  const headers = [...new Set(spec.auth.flat().map((code) => HEADER_OF[code]))];
  return (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', spec.method.toUpperCase());
    res.setHeader('Access-Control-Allow-Headers', headers.join(', '));
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}

interface FileResult {
  contentType: string;
  fileName?: string | null;
  content: string;
}

function sendFile(res: Response, status: number, file: FileResult): void {
  res.status(status).type(file.contentType);
  if (file.fileName) res.attachment(file.fileName);
  res.send(file.content);
}

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
    if (kept[field] !== undefined && typeof kept[field] !== type) throw new RequestError(400, `body.${field} must be a ${type} (it is read-only: sent back as read, it is ignored)`);
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
const readOnlyFields = (spec: RouteSpec): ReadonlySet<string> => new Set([...READ_ONLY, ...(spec.body?.readOnly ?? [])]);

function readInput({ spec, validateBody, params, readOnly }: CompiledRoute, req: Request): RouteInput {
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
    if (!validate(value)) throw new RequestError(400, describeSchemaError((validate.errors as ErrorObject[])[0], `${param.in}.${param.name}`));
    input[param.in][param.name] = value;
  }
  if (spec.body) {
    if (raw.trim() === '') {
      if (spec.body.required) throw new RequestError(400, 'a JSON body is required');
      input.body = {};
    } else {
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/(.+\+)?json\b/i.test(type) && !/^text\/plain\b/i.test(type)) {
        throw new RequestError(415, 'the body must be sent as application/json');
      }
      const parsed = parseJsonInput(raw, 'body');
      if ('error' in parsed) throw new RequestError(400, parsed.error);
      input.body = parsed.value;
    }
    // A signed body is the partner's own document, taken as signed: nothing in it is a resource's read-only field.
    if (!spec.rawBody) input.body = withoutReadOnly(input.body, readOnly, req.headers as HeaderBag);
    if (validateBody && !validateBody(input.body)) {
      throw new RequestError(400, describeSchemaError((validateBody.errors as ErrorObject[])[0], 'body'));
    }
  }
  return input;
}

export { ErrorCode };
