/**
 * Routes with a quick answer (`quick` in table.ts): the answer a subgraph of this process gives from what
 * it keeps, written as the route's document selects it, without executing the operation. The router
 * tries it before executing; `createQuickDoor` tries it before the request reaches express at all (its
 * middleware, the route tree, the router), which is most of what a request costs once the answer itself
 * comes from memory: thousands of players behind a gate asking the content check the moment the show goes
 * live. Whatever the door does not answer goes on to the router, which answers as always.
 */
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import FindMyWay from 'find-my-way';
import type { SelectionSetNode } from 'graphql';
import { countQuickAnswer, operationNameOf } from '../shared/metrics';
import { checkCredentialsPresent } from './credentials';
import type { Executor } from './executor';
import { compileInputRules, readInput, routeVariables, type InputRules } from './requestInput';
import { resultSelection, selectionText } from './quickSelection';
import { keptText, type KeptAnswer } from './responseCache';
import type { RouteSpec } from './table';

/** A route's quick answer as the router and the door give it: what its document selects, its operation's name. */
export interface QuickRoute {
  spec: RouteSpec;
  selection: SelectionSetNode;
  operationName: string | undefined;
}

/**
 * The route's quick answer setup, or null when it has none. A quick answer is sent as the result is:
 * only where the route neither projects, keys nor envelopes it, and keeps its answer (`cache`: ETag).
 */
export function quickRouteOf(spec: RouteSpec): QuickRoute | null {
  if (!spec.quick || !spec.cache || spec.projection || spec.keyBy || spec.envelope || spec.file) return null;
  const selection = resultSelection(spec.document);
  return selection ? { spec, selection, operationName: operationNameOf(spec.document) } : null;
}

/**
 * The route's quick answer, ready to send, when the executor offers one for these variables and it writes
 * exactly what the document selects; null = execute the operation.
 */
export async function answerQuickly<Caller>(
  executor: Executor<Caller>,
  route: QuickRoute,
  variables: Record<string, unknown>,
  caller: Caller,
): Promise<KeptAnswer | null> {
  const { spec, selection } = route;
  if (!spec.quick || !executor.quick) return null;
  const started = process.hrtime.bigint();
  const answer = await executor.quick(spec.quick, variables, caller);
  const text = answer ? selectionText(answer, selection) : undefined;
  if (text === undefined) return null;
  executor.quickAnswered?.(spec.quick);
  // Counted as the operation it answers, as the subgraph's fetch (the route's `subgraph` answered it).
  if (spec.subgraph) countQuickAnswer(spec.subgraph, route.operationName, started);
  return keptText(text);
}

/** A request the door answered: its route and the answer to send (with the route's ETag and Cache-Control). */
export interface DoorAnswer {
  spec: RouteSpec;
  answer: KeptAnswer;
}

/**
 * What the door asks of a request: null at once for a request that is no quick route's (most of them:
 * they go on without waiting), else its quick answer, or null when the router must answer it.
 */
export type QuickDoor = (req: IncomingMessage) => Promise<DoorAnswer | null> | null;

interface DoorRoute extends QuickRoute, InputRules {}

/**
 * Whether the door may take the route: a GET whose input is its path and headers (nothing to parse from
 * a query or a body; the tree holds GET routes alone), with no partner credential for the operation to check, and an answer kept per
 * caller (`private`: a `shared` route first looks for the site's kept answer, which only the router has).
 */
const doorMayTake = (spec: RouteSpec) =>
  spec.cache === 'private' && !spec.body && (spec.params ?? []).every((param) => param.in !== 'query' && !param.credential && !param.secret);

/**
 * The door of the quick routes, or null when the executor offers no quick answer. It matches a request's
 * path as the router's tree does (find-my-way, same options), checks the credentials and the input with
 * the router's own checks, authenticates with the executor and asks for the quick answer. Anything else —
 * another path, a method, missing or wrong credentials, input the router would refuse, no quick answer —
 * is null, and the router answers the request as if the door were not there (its errors included).
 */
export function createQuickDoor(routes: readonly RouteSpec[], executor: Executor): QuickDoor | null {
  if (!executor.quick) return null;
  const tree = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 8192 });
  let any = false;
  for (const spec of routes) {
    if (spec.method !== 'get') continue;
    const route = doorMayTake(spec) ? quickRouteOf(spec) : null;
    // Every GET route is in the tree, so a path finds the route the router's tree finds (a static route
    // before a parameter); only the door's own carry what to answer with.
    tree.on('GET', spec.path.replace(/\{(\w+)\}/g, ':$1'), unused, route ? { ...route, ...compileInputRules(spec) } : null);
    any ||= route !== null;
  }
  if (!any) return null;
  async function answer(route: DoorRoute, params: Record<string, string | undefined>, req: IncomingMessage): Promise<DoorAnswer | null> {
    try {
      checkCredentialsPresent(route.spec, req.headers);
      const caller = await executor.authenticate(req.headers);
      // The router reads the same three places of an express request; nothing else of it is read.
      const input = readInput(route, { params, query: {}, headers: req.headers, body: undefined } as unknown as Request);
      const kept = await answerQuickly(executor, route, routeVariables(route.spec, input), caller);
      return kept && { spec: route.spec, answer: kept };
    } catch {
      // Refused credentials or input: the router answers with the error, exactly as it always has.
      return null;
    }
  }
  return (req) => {
    if (req.method !== 'GET' || !req.url) return null;
    const query = req.url.indexOf('?');
    const found = tree.find('GET', query === -1 ? req.url : req.url.slice(0, query));
    const route = found?.store as DoorRoute | null | undefined;
    return found && route ? answer(route, found.params, req) : null;
  };
}

const unused = () => undefined;
