/**
 * Queries that one subgraph running in this process answers whole (an admin's overlay list, a site's
 * polls) go straight to it, past @apollo/gateway's executor: its query plan lookup, the operation it
 * rebuilds for every request, and the reshaping of the subgraph's answer into the same answer. Apollo
 * Server's pipeline (parsing, validation against the public schema, document limits, plugins, metrics,
 * error formatting) runs as before; only the executor is passed by.
 *
 * Only answers without errors are taken: an answer with errors is asked again through the gateway, so
 * errors keep exactly the messages, paths and codes the gateway gives them. That is why only queries are
 * sent here (a query may run twice; a mutation may not). With tracing on, every operation goes through
 * the gateway, whose plan and fetch spans a trace shows.
 */
import { OperationTypeNode } from 'graphql';
import type { GatewayExecutionResult, GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import type { SubgraphName } from '../shared/config';
import { recordSubgraphFetch } from '../shared/metrics';
import type { RunningService } from '../shared/subgraph';
import { tracingEnabled } from '../shared/tracing';
import type { GatewayContext } from './context';
import type { SingleSubgraphPlanner } from './singleSubgraph';

export interface LocalQueryOptions {
  /** Which one subgraph answers an operation whole, if one does. */
  planner: SingleSubgraphPlanner;
  /** The subgraph running in this process by that name, if it does. */
  localSubgraph(name: SubgraphName): RunningService | undefined;
}

/** The executor's answer from the one local subgraph that answers the query whole, or null for the gateway. */
async function localAnswer(options: LocalQueryOptions, requestContext: Parameters<GatewayExecutor>[0]): Promise<GatewayExecutionResult | null> {
  if (requestContext.operation.operation !== OperationTypeNode.QUERY || tracingEnabled()) return null;
  const name = options.planner.subgraphOf(requestContext.source, requestContext.operationName) as SubgraphName | null;
  const local = name ? options.localSubgraph(name) : undefined;
  if (!name || !local) return null;
  const { request } = requestContext;
  const started = process.hrtime.bigint();
  let result: Awaited<ReturnType<RunningService['execute']>>;
  try {
    result = await local.execute(
      { query: requestContext.source, variables: request.variables, operationName: request.operationName },
      (requestContext.context as GatewayContext).identity,
    );
  } catch {
    // The gateway's fetch turns the same failure into the error it always gave.
    return null;
  }
  if (result.errors?.length || result.extensions) return null;
  recordSubgraphFetch(name, 'in_process', 'ok', started);
  return { data: result.data };
}

/** `gateway` with its executor answering, where it can, from the one local subgraph a query needs. */
export function withLocalQueries(gateway: GatewayInterface, options: LocalQueryOptions): GatewayInterface {
  return {
    onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
    stop: () => gateway.stop(),
    async load(loadOptions) {
      const loaded = await gateway.load(loadOptions);
      const executor = loaded.executor;
      if (!executor) return loaded;
      return { ...loaded, executor: async (requestContext) => (await localAnswer(options, requestContext)) ?? executor(requestContext) };
    },
  };
}
