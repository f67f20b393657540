/**
 * What stagegraph's gateway and the gateway over any supergraph (gateway/anySupergraph.ts) share around
 * @apollo/gateway: how a subgraph is reached over HTTP (kept-alive connections, entities asked once, side-by-side
 * entity fetches sent as one, metrics)
 * and how errors reach clients.
 */
import type { GraphQLDataSource } from '@apollo/gateway';
import type { GraphQLFormattedError } from 'graphql';
import { ErrorCode } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { measuredDataSource } from '../shared/metrics';
import { distinctEntities } from './distinctEntities';
import { batchedFetches } from './fetchBatches';
import { subgraphHttpSource } from './subgraphHttp';

/**
 * The subgraph `name` at `url` over HTTP, with `headers` per fetch beyond content-type. `stock` (the gateway's
 * `--stock` / GATEWAY_STOCK) sends each fetch of the plan as @apollo/gateway would, none merged.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the gateway's own constraint on a context
export function httpSubgraph<TContext extends Record<string, any>>(
  name: string,
  url: string,
  logger: Logger,
  headers: (context: TContext) => Record<string, string>,
  stock = false,
): GraphQLDataSource<TContext> {
  const http = subgraphHttpSource<TContext>({ name, url, logger, headers });
  return measuredDataSource(name, 'http', distinctEntities(stock ? http : batchedFetches(http)));
}

/** Keeps client-facing errors to message, path and code; unexpected ones are logged and hidden. */
export function formatGatewayError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const { stacktrace: _stack, http: _http, serviceName: _service, response: _response, ...extensions } = formatted.extensions ?? {};
    if (!extensions.code || extensions.code === ErrorCode.INTERNAL_SERVER_ERROR) {
      logger.error({ err: error, message: formatted.message }, 'gateway error');
      return { message: 'internal server error', path: formatted.path, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
    }
    return { ...formatted, extensions };
  };
}
