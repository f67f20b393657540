/**
 * How a subgraph reaches data another subgraph owns: an operation on the supergraph, run as a given
 * identity (usually the caller's, or the site's service identity). A subgraph never reads another's
 * tables. In one process the operation runs in the gateway directly; as separate processes it goes to
 * GATEWAY_URL with the identity signed like the gateway's own.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { IDENTITY_HEADER, signIdentity, type Identity } from './auth/identity';

export interface SupergraphClient {
  /** The operation's data; the first error is thrown as a GraphQLError with its code. */
  execute<T = Record<string, unknown>>(query: string, variables: Record<string, unknown>, identity: Identity): Promise<T>;
}

type Runner = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

function dataOf<T>(result: ExecutionResult): T {
  const error = result.errors?.[0];
  if (error) throw new GraphQLError(error.message, { extensions: { ...error.extensions } });
  return result.data as T;
}

/** A client whose gateway is bound after start (the gateway is built after the subgraphs). */
export function lateBoundSupergraph(): SupergraphClient & { bind(runner: Runner): void } {
  let runner: Runner | null = null;
  return {
    bind(next) {
      runner = next;
    },
    async execute<T>(query: string, variables: Record<string, unknown>, identity: Identity) {
      if (!runner) throw new Error('the gateway is not running yet');
      return dataOf<T>(await runner({ query, variables }, identity));
    },
  };
}

/** A client for a gateway in another process. */
export function httpSupergraph(gatewayUrl: string, internalSecret: string, timeoutMs = 10_000): SupergraphClient {
  return {
    async execute<T>(query: string, variables: Record<string, unknown>, identity: Identity) {
      const response = await fetch(gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [IDENTITY_HEADER]: signIdentity(identity, internalSecret) },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return dataOf<T>((await response.json()) as ExecutionResult);
    },
  };
}
