/**
 * `npm run gateway -- --supergraph FILE [--port 4000] [--host 127.0.0.1] [--stock] [--forward-header NAME …]`: stagegraph's gateway
 * machinery alone over any supergraph (gateway/anySupergraph.ts), its subgraphs reached at the URLs the
 * supergraph names. A file that is missing, unreadable or not a valid supergraph stops it at once, naming the
 * file and the first error. GRAPHQL_LIMITS and its settings apply as in `npm start`; LOG_LEVEL sets the log.
 */
import '../shared/graphqlProduction';
import { parseArgs } from 'node:util';
import { graphqlLimits } from '../shared/config';
import { createLogger } from '../shared/logger';
import { serveAnySupergraph, SupergraphFileError } from '../gateway/anySupergraph';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      supergraph: { type: 'string' },
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
      stock: { type: 'boolean', default: false },
      'forward-header': { type: 'string', multiple: true, default: [] },
    },
  });
  if (!values.supergraph)
    throw new SupergraphFileError('--supergraph FILE is required: the supergraph SDL to serve (as @apollo/composition or rover writes it)');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SupergraphFileError(`--port must be a port number, got "${values.port}"`);
  const logger = createLogger(process.env.LOG_LEVEL || 'info', 'stagegraph-gateway');
  const gateway = await serveAnySupergraph({
    file: values.supergraph,
    port,
    host: values.host,
    logger,
    limits: graphqlLimits(process.env),
    stock: values.stock,
    forwardHeaders: values['forward-header'],
  });
  if (!gateway.shaping.replaced) logger.warn({ reason: gateway.shaping.reason }, "the gateway runs @apollo/gateway's stock response shaping");
  logger.info(
    { url: gateway.url, supergraph: values.supergraph, shaping: gateway.shaping.replaced ? 'stagegraph' : 'stock' },
    `gateway listening on ${gateway.url}`,
  );
  const stop = () => void gateway.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
