/**
 * Entity fetches of one request to one subgraph that the plan runs side by side, sent as one operation.
 * @apollo/gateway's planner gives each entity type of a Parallel step its own fetch: the deep query asks the
 * community subgraph twice at once (a quest's claims, a chat author's name), two HTTP requests and two runs of
 * its pipeline where Hive Router's planner sends one. Here the fetches that reach a subgraph in the same turn of
 * the event loop, for the same incoming request, are merged: each one's root fields aliased, its variables and
 * fragments renamed under a prefix of its own, so the subgraph runs one operation and the answer is split back.
 * Each fetch gets exactly what it would have got alone: its data under its own keys, the errors whose path
 * starts in its part (the path restored), and those of no part (a failure of the whole request) too.
 *
 * Only queries with `representations` (entity fetches) wait for the turn to end; a root fetch, a mutation and
 * a fetch alone in its turn are sent as they are.
 */
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { Kind, OperationTypeNode, parse, print, visit, type DocumentNode, type OperationDefinitionNode } from 'graphql';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the gateway's own constraint on a context
interface Waiting<TContext extends Record<string, any>> {
  options: GraphQLDataSourceProcessOptions<TContext>;
  resolve(response: GatewayGraphQLResponse): void;
  reject(error: unknown): void;
}

/** One merged operation: its text and, for each part, its prefixed root keys → the part's own keys. */
interface Merged {
  query: string;
  operationName: string;
  parts: { prefix: string; keys: Map<string, string> }[];
}

const MERGED_CACHE_LIMIT = 500;
const documents = new Map<string, DocumentNode | null>();
const merges = new Map<string, Merged>();

/** A fetch's document when it may be merged: one query operation, nothing but fields at its root. */
function mergeable(query: string): DocumentNode | null {
  let document = documents.get(query);
  if (document === undefined) {
    const parsed = parse(query);
    const operations = parsed.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
    const only = operations.length === 1 ? operations[0] : null;
    document =
      only && only.operation === OperationTypeNode.QUERY && only.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD) ? parsed : null;
    if (documents.size >= MERGED_CACHE_LIMIT) documents.clear();
    documents.set(query, document);
  }
  return document;
}

/** `document` with its root fields aliased, its variables and fragments renamed under `prefix`. */
function prefixed(document: DocumentNode, prefix: string): { document: DocumentNode; keys: Map<string, string> } {
  const keys = new Map<string, string>();
  const renamed = visit(document, {
    Variable: (node) => ({ ...node, name: { ...node.name, value: prefix + node.name.value } }),
    FragmentDefinition: (node) => ({ ...node, name: { ...node.name, value: prefix + node.name.value } }),
    FragmentSpread: (node) => ({ ...node, name: { ...node.name, value: prefix + node.name.value } }),
    OperationDefinition: {
      leave: (node) => ({
        ...node,
        selectionSet: {
          ...node.selectionSet,
          selections: node.selectionSet.selections.map((selection) => {
            if (selection.kind !== Kind.FIELD) return selection;
            const key = selection.alias?.value ?? selection.name.value;
            keys.set(prefix + key, key);
            return { ...selection, alias: { kind: Kind.NAME, value: prefix + key } };
          }),
        },
      }),
    },
  });
  return { document: renamed, keys };
}

/** The one operation for `queries` (cached: a plan's fetches repeat with every request that uses it). */
function merged(queries: string[]): Merged {
  const cacheKey = queries.join('\u0000');
  let merge = merges.get(cacheKey);
  if (!merge) {
    const parts = queries.map((query, index) => ({ prefix: `b${index}_`, ...prefixed(mergeable(query)!, `b${index}_`) }));
    const operations = parts.map((part) => part.document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION)!);
    const first = operations[0];
    const operationName = `${first.name?.value ?? 'Fetch'}__batch${queries.length}`;
    const operation: OperationDefinitionNode = {
      kind: Kind.OPERATION_DEFINITION,
      operation: first.operation,
      name: { kind: Kind.NAME, value: operationName },
      variableDefinitions: operations.flatMap((definition) => definition.variableDefinitions ?? []),
      directives: [],
      selectionSet: { kind: Kind.SELECTION_SET, selections: operations.flatMap((definition) => definition.selectionSet.selections) },
    };
    const fragments = parts.flatMap((part) => part.document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION));
    merge = {
      query: print({ kind: Kind.DOCUMENT, definitions: [operation, ...fragments] }),
      operationName,
      parts: parts.map(({ prefix, keys }) => ({ prefix, keys })),
    };
    if (merges.size >= MERGED_CACHE_LIMIT) merges.clear();
    merges.set(cacheKey, merge);
  }
  return merge;
}

/** Each part's answer out of the merged one. */
function split(response: GatewayGraphQLResponse, merge: Merged): GatewayGraphQLResponse[] {
  const data = response.data as Record<string, unknown> | null | undefined;
  return merge.parts.map((part) => {
    const own: GatewayGraphQLResponse = {};
    if (data === null) own.data = null;
    else if (data) own.data = Object.fromEntries([...part.keys].map(([key, original]) => [original, data[key]]));
    const errors = response.errors?.flatMap((error) => {
      const head = error.path?.[0];
      if (typeof head !== 'string' || !/^b[0-9]+_/.test(head)) return [error];
      const original = part.keys.get(head);
      return original === undefined ? [] : [{ ...error, path: [original, ...error.path!.slice(1)] }];
    });
    if (errors?.length) own.errors = errors;
    if (response.extensions) own.extensions = response.extensions;
    return own;
  });
}

/** `source`, sending the entity fetches of one request that meet in one turn as one operation. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the gateway's own constraint on a context
export function batchedFetches<TContext extends Record<string, any>>(source: GraphQLDataSource<TContext>): GraphQLDataSource<TContext> {
  const turns = new WeakMap<object, Waiting<TContext>[]>();

  const send = (waiting: Waiting<TContext>[]) => {
    if (waiting.length === 1) {
      const [one] = waiting;
      source.process(one.options).then(
        (response) => one.resolve(response),
        (error: unknown) => one.reject(error),
      );
      return;
    }
    const merge = merged(waiting.map((one) => one.options.request.query!));
    const variables: Record<string, unknown> = {};
    waiting.forEach((one, index) => {
      for (const [name, value] of Object.entries(one.options.request.variables ?? {})) variables[merge.parts[index].prefix + name] = value;
    });
    const request = { ...waiting[0].options.request, query: merge.query, operationName: merge.operationName, variables };
    source.process({ ...waiting[0].options, request }).then(
      (response) => split(response, merge).forEach((own, index) => waiting[index].resolve(own)),
      (error: unknown) => waiting.forEach((one) => one.reject(error)),
    );
  };

  return {
    process(options: GraphQLDataSourceProcessOptions<TContext>): Promise<GatewayGraphQLResponse> {
      const { request, context } = options;
      const entities = Array.isArray(request.variables?.representations);
      if (!entities || !request.query || typeof context !== 'object' || context === null || !mergeable(request.query)) return source.process(options);
      return new Promise((resolve, reject) => {
        let waiting = turns.get(context);
        if (!waiting) {
          const turn: Waiting<TContext>[] = [];
          turns.set(context, turn);
          waiting = turn;
          setImmediate(() => {
            turns.delete(context);
            send(turn);
          });
        }
        waiting.push({ options, resolve, reject });
      });
    },
  };
}
