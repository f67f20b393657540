/**
 * The express router derived from the route table: for each route it checks the content type, parses
 * and validates parameters and body against the route's JSON Schemas (ajv), builds the GraphQL
 * variables from their declared sources, runs the operation and shapes the answer. Errors become
 * `{ success: false, message }` with the status of their code.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import express, { type Request, type Response, type Router } from 'express';
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { HeaderBag } from '../shared/auth/authenticate';
import { ErrorCode, restErrorBody, statusForCode } from '../shared/errors';
import { describeSchemaError } from '../shared/schemaErrors';
import type { Logger } from '../shared/logger';
import type { AuthCode, ParamSpec, RouteSpec, VariableSource } from './table';

/**
 * How the bridge reaches the gateway. `authenticate` runs before any input is read, so a caller
 * without valid credentials learns nothing about the route's validation; it throws a GraphQLError
 * with a code. `execute` runs the operation as that caller.
 */
export interface Executor<Caller = unknown> {
  authenticate(headers: HeaderBag): Promise<Caller>;
  execute(request: { query: string; variables: Record<string, unknown> }, caller: Caller): Promise<ExecutionResult>;
}

const HEADER_OF: Record<AuthCode, string> = { C: 'x-service-client-id', D: 'x-service-developer-key', J: 'authorization' };
const HEADER_LABEL: Record<AuthCode, string> = { C: 'x-service-client-id', D: 'x-service-developer-key', J: 'Authorization: Bearer <JWT>' };

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
  const type = spec.schema.type;
  if (type === 'integer' || type === 'number') {
    const value = Number(text);
    if (!Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) {
      throw new RequestError(400, `${spec.in}.${spec.name} must be ${type === 'integer' ? 'an integer' : 'a number'}`);
    }
    return value;
  }
  if (type === 'boolean') {
    if (text !== 'true' && text !== 'false') throw new RequestError(400, `${spec.in}.${spec.name} must be true or false`);
    return text === 'true';
  }
  if (type === 'object' || type === 'array') {
    try {
      return JSON.parse(text);
    } catch {
      throw new RequestError(400, `${spec.in}.${spec.name} must be JSON`);
    }
  }
  return text;
}

function lookup(input: RouteInput, reference: string): unknown {
  if (reference === 'body') return input.body;
  if (reference === 'rawBody') return input.rawBody;
  const dot = reference.indexOf('.');
  const where = reference.slice(0, dot) as 'path' | 'query' | 'header' | 'body';
  const name = reference.slice(dot + 1);
  const bag = where === 'body' ? input.body : input[where];
  return bag && typeof bag === 'object' ? (bag as Record<string, unknown>)[name] : undefined;
}

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
  validateBody: ValidateFunction | null;
}

export interface RestRouterOptions {
  routes: readonly RouteSpec[];
  executor: Executor;
  logger: Logger;
  bodyLimitBytes: number;
}

export function createRestRouter({ routes, executor, logger, bodyLimitBytes }: RestRouterOptions): Router {
  const router = express.Router();
  const rawBody = express.raw({ type: () => true, limit: bodyLimitBytes });

  for (const spec of routes) {
    const compiled: CompiledRoute = { spec, validateBody: spec.body ? ajv.compile(spec.body.schema) : null };
    const path = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const readBody = spec.bodyLimitBytes ? express.raw({ type: () => true, limit: spec.bodyLimitBytes }) : rawBody;
    router[spec.method](path, readBody, (req, res) => {
      handle(compiled, req, res).catch((error: unknown) => {
        const requestId = (req as { id?: string }).id;
        logger.error({ err: error, requestId, route: spec.operationId }, 'REST route failed');
        res.status(500).json(restErrorBody('internal server error', requestId));
      });
    });
  }

  async function handle({ spec, validateBody }: CompiledRoute, req: Request, res: Response): Promise<void> {
    try {
      checkCredentialsPresent(spec, req.headers as HeaderBag);
      let caller: unknown;
      try {
        caller = await executor.authenticate(req.headers as HeaderBag);
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        throw new RequestError(statusForCode(error.extensions.code), error.message);
      }
      const input = readInput(spec, validateBody, req);
      const variables = Object.fromEntries(
        Object.entries(spec.variables ?? {})
          .map(([name, source]) => [name, resolveSource(source, input)] as const)
          .filter(([, value]) => value !== undefined),
      );
      const result = await executor.execute({ query: spec.document, variables }, caller);
      if (result.errors?.length) {
        const { status, message } = firstError(result.errors);
        if (status === 429) res.setHeader('Retry-After', String(result.errors[0].extensions?.retryAfter ?? 1));
        res.status(status).json(restErrorBody(message, status === 500 ? (req as { id?: string }).id : undefined));
        return;
      }
      const data = (result.data as { result?: unknown } | null | undefined)?.result;
      const body = spec.envelope === 'success' ? { success: true, ...(data as object) } : spec.envelope === 'results' ? { success: true, results: data } : data;
      res.status(spec.status ?? 200).json(body ?? null);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      res.status(error.status).json(restErrorBody(error.message));
    }
  }

  return router;
}

function readInput(spec: RouteSpec, validateBody: ValidateFunction | null, req: Request): RouteInput {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  const input: RouteInput = { path: {}, query: {}, header: {}, body: undefined, rawBody: raw };
  for (const param of spec.params ?? []) {
    const source = param.in === 'path' ? req.params : param.in === 'query' ? req.query : req.headers;
    const value = coerceParam(param, (source as Record<string, unknown>)[param.in === 'header' ? param.name.toLowerCase() : param.name]);
    if (value === undefined) {
      if (param.credential) throw new RequestError(401, `credentials required: ${param.name} ${param.in}`);
      if (param.required) throw new RequestError(400, `${param.in}.${param.name} is required`);
      continue;
    }
    if (param.schema.enum && !(param.schema.enum as unknown[]).includes(value)) {
      throw new RequestError(400, `${param.in}.${param.name} must be one of ${(param.schema.enum as unknown[]).join(', ')}`);
    }
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
      try {
        input.body = JSON.parse(raw);
      } catch {
        throw new RequestError(400, 'the body is not valid JSON');
      }
    }
    if (validateBody && !validateBody(input.body)) {
      throw new RequestError(400, describeSchemaError((validateBody.errors as ErrorObject[])[0], 'body'));
    }
  }
  return input;
}

export { ErrorCode };
