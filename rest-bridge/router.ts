/**
 * The express router derived from the route table: for each route it checks the credentials, reads the
 * request as the route's input (requestInput.ts: parameters, body, variables), runs the operation and
 * shapes the answer. Errors become `{ success: false, message }` with the status of their code.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { HeaderBag } from '../shared/auth/authenticate';
import type { EventBus } from '../shared/bus';
import { followedSiteCache, type SiteCache } from '../shared/viewerReads';
import { ErrorCode, restErrorBody, statusForCode } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { keptAnswer, sendCacheable, siteHeader, type KeptAnswer } from './responseCache';
import { project, readProjection, type Projection } from './projection';
import { compileInputRules, lookup, readInput, routeVariables, type InputRules, type RouteInput } from './requestInput';
import { RequestError } from './requestError';
import { checkCredentialsPresent, HEADER_OF } from './credentials';
import type { Executor, OperationRequest } from './executor';
import { answerQuickly, quickRouteOf, type QuickRoute } from './quickRoutes';
import type { RouteSpec } from './table';
import { operationNameOf, routeTemplate } from '../shared/metrics';

export type { Executor, OperationRequest };

function firstError(errors: readonly GraphQLFormattedError[]): { status: number; body: ReturnType<typeof restErrorBody> & { rule?: string } } {
  const error = errors[0];
  const code = error.extensions?.code;
  // Variables the GraphQL types refuse are bad input, whatever the server calls them.
  const status = code === undefined || code === 'INTERNAL_SERVER_ERROR' ? (/^Variable "\$/.test(error.message) ? 400 : 500) : statusForCode(code);
  const body = restErrorBody(status === 500 ? 'internal server error' : error.message);
  // A 429 names the limit it hit, as GraphQL's extensions.rule does, so a client tells them apart without reading the message.
  const rule = error.extensions?.rule;
  return { status, body: status === 429 && typeof rule === 'string' ? { ...body, rule } : body };
}

/** A route ready to answer: its input checks (compiled once), who the caller is, its operation's name. */
interface CompiledRoute extends InputRules {
  /** The headers that say who the caller is: all but the partner credentials the operation checks itself. */
  identityHeaders(headers: HeaderBag): HeaderBag;
  operationName: string | undefined;
  /** The route's quick answer (its `quick`), set up once; null without one. */
  quick: QuickRoute | null;
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
    answer = at ? { ...answer, [at]: apply((answer as Record<string, unknown>)[at]) } : apply(answer);
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

/** What the router is built from: the route table, how it reaches the gateway, its log and body limits. */
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

/**
 * The REST bridge as one express handler: each route of the table checks its credentials, reads its input,
 * runs its operation and answers (kept and tagged when the route is `cache`); other paths go to `next`.
 */
export function createRestRouter({ routes, executor, logger, bodyLimitBytes, bus }: RestRouterOptions): RequestHandler {
  const tree = routeTree();
  const shared = bus ? followedSiteCache<KeptAnswer>(bus).cache : null;
  const rawBody = express.raw({ type: () => true, limit: bodyLimitBytes });

  for (const spec of routes) {
    const partnerHeaders = (spec.params ?? []).filter((param) => param.in === 'header' && param.credential).map((param) => param.name.toLowerCase());
    const compiled: CompiledRoute = {
      ...compileInputRules(spec),
      identityHeaders: (headers) => {
        if (partnerHeaders.length === 0) return headers;
        const kept = { ...headers };
        for (const name of partnerHeaders) delete kept[name];
        return kept;
      },
      operationName: operationNameOf(spec.document),
      quick: quickRouteOf(spec),
    };
    const path = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const secrets = new Set((spec.params ?? []).filter((param) => param.in === 'path' && param.secret).map((param) => param.name));
    if (spec.anyOrigin) tree.add('options', path, [routeTemplate(spec.path), answerPreflight(spec)]);
    const answer: RequestHandler = (req, res) => {
      if (spec.anyOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
      // The request log reads res.locals.logPath when a path carries a credential.
      if (secrets.size)
        res.locals.logPath = spec.path.replace(/\{(\w+)\}/g, (_match, name: string) => (secrets.has(name) ? '[redacted]' : String(req.params[name])));
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
      checkCredentialsPresent(spec, req.headers);
      let caller: unknown;
      try {
        caller = await executor.authenticate(compiled.identityHeaders(req.headers));
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        throw new RequestError(statusForCode(error.extensions.code), error.message);
      }
      const input = readInput(compiled, req);
      const projection = requestedProjection(spec, input);
      const variables = routeVariables(spec, input);
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
      const quick = compiled.quick && (await answerQuickly(executor, compiled.quick, variables, caller));
      if (quick) {
        sendCacheable(req, res, spec, quick);
        return;
      }
      const result = await execute(spec, request, caller);
      if (result.errors?.length) {
        const { status, body } = firstError(result.errors);
        if (status === 429) res.setHeader('Retry-After', String(Number(result.errors[0].extensions?.retryAfter ?? 1)));
        res.status(status).json(status === 500 ? restErrorBody(body.message, (req as { id?: string }).id) : body);
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
      res.status(successStatus(spec, data)).json(shapeAnswer(spec, data, projection) ?? null);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      res.status(error.status).json(restErrorBody(error.message));
    }
  }

  function execute(spec: RouteSpec, request: OperationRequest, caller: unknown): Promise<ExecutionResult> {
    return (spec.subgraph && executor.executeOn?.(spec.subgraph, request, caller)) || executor.execute(request, caller);
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

/** The route's success status, or 202 when the answer says its effect waits (RouteSpec.acceptedWhen). */
function successStatus(spec: RouteSpec, data: unknown): number {
  const result = data as Record<string, unknown> | null | undefined;
  const waits = spec.acceptedWhen?.some((condition) => {
    const [field, value] = condition.split('=', 2);
    const held = result?.[field];
    return value === undefined ? held !== undefined && held !== null && held !== false : held === value;
  });
  return waits ? 202 : (spec.status ?? 200);
}

function sendFile(res: Response, status: number, file: FileResult): void {
  res.status(status).type(file.contentType);
  if (file.fileName) res.attachment(file.fileName);
  res.send(file.content);
}

export { ErrorCode };
