/**
 * Identical entity representations sent once. @apollo/gateway sends a subgraph one representation per
 * entity in the answer, duplicates included: 150 chat messages by 10 authors make 150 `ChatAuthor`
 * representations, and the subgraph resolves (and over HTTP serializes, and the gateway parses) each.
 * This data source wrapper sends each distinct representation once and hands the gateway back the
 * list it asked for, so the answer is the same. An answer with errors is asked again as the gateway
 * built it: their paths and order then stay exactly what they would have been.
 */
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';

type Representations = Record<string, unknown>[];

/** Distinct representations, and for each one sent by the gateway the index of its distinct one. */
function distinct(representations: Representations): { unique: Representations; indexOf: number[] } | null {
  const seen = new Map<string, number>();
  const unique: Representations = [];
  const indexOf = representations.map((representation) => {
    // The gateway builds every representation of one fetch from the same selection, so equal ones serialize alike.
    const key = JSON.stringify(representation);
    let index = seen.get(key);
    if (index === undefined) {
      index = unique.length;
      seen.set(key, index);
      unique.push(representation);
    }
    return index;
  });
  return unique.length < representations.length ? { unique, indexOf } : null;
}

/**
 * A deep copy of an entity as a subgraph answers it: its plain objects and arrays, the ones the gateway
 * merges later fetches into, are copied; any other value (a scalar's) is shared, as nothing writes to it.
 * Several times faster than structuredClone, which serializes and parses.
 */
function copyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOf);
  if (value === null || typeof value !== 'object') return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyOf((value as Record<string, unknown>)[key]);
  return copy;
}

/** `source`, sending each distinct entity representation of a fetch once. */
export function distinctEntities<TContext extends object>(source: GraphQLDataSource<TContext>): GraphQLDataSource<TContext> {
  return {
    async process(options: GraphQLDataSourceProcessOptions<TContext>): Promise<GatewayGraphQLResponse> {
      const representations: unknown = options.request.variables?.representations;
      const plan = Array.isArray(representations) ? distinct(representations as Representations) : null;
      if (!plan) return source.process(options);
      const request = { ...options.request, variables: { ...options.request.variables, representations: plan.unique } };
      const response = await source.process({ ...options, request });
      const entities = (response.data as { _entities?: unknown[] } | null | undefined)?._entities;
      if (response.errors?.length || !Array.isArray(entities) || entities.length !== plan.unique.length) return source.process(options);
      // The first of equal entities is the subgraph's object; the others get copies, since the gateway
      // merges later fetches into each entity of its answer on its own.
      const handed = new Set<number>();
      const expanded = plan.indexOf.map((index) => {
        if (handed.has(index)) return copyOf(entities[index]);
        handed.add(index);
        return entities[index];
      });
      return { ...response, data: { ...response.data, _entities: expanded } };
    },
  };
}
