/**
 * The gateway over any supergraph: stagegraph's own gateway machinery — its response shaping and operations
 * kept per document (responseShaping.ts, on the versions they were proven on), its subgraph HTTP client
 * (federation.ts), its document limits and error formatting — serving a supergraph SDL file over the subgraph
 * URLs that file names, with none of stagegraph's schema, identity or live parts. It is how the gateway is
 * audited from outside (the Guild's federation-gateway-audit, `npm run audit:federation`) and compared with the
 * stock @apollo/gateway path (`--stock`). `npm run gateway -- --supergraph FILE [--port 4000] [--host 127.0.0.1]`.
 */
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import express from 'express';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse, type GraphQLSchema } from 'graphql';
import type { GraphQLLimits } from '../shared/config';
import { graphqlMiddleware } from '../shared/graphqlMiddleware';
import type { Logger } from '../shared/logger';
import { DocumentLimits, VALIDATION_OPTIONS } from './documentLimits';
import { formatGatewayError, httpSubgraph } from './federation';
import { shapeResponsesFaster, type ShapingVerdict } from './responseShaping';

/** A supergraph file that cannot be served: the message names the file and the first error. */
export class SupergraphFileError extends Error {}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];

/** The SDL of `file`, read and parsed; a SupergraphFileError when it is missing, unreadable or not GraphQL. */
export function readSupergraphFile(file: string): string {
  let sdl: string;
  try {
    sdl = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : firstLine(error);
    throw new SupergraphFileError(`cannot read the supergraph ${file}: ${why}`);
  }
  try {
    parse(sdl);
  } catch (error) {
    throw new SupergraphFileError(`${file} is not a valid supergraph: ${firstLine(error)}`);
  }
  return sdl;
}

export interface AnySupergraphOptions {
  /** The supergraph file (its path is named in errors). */
  file: string;
  port: number;
  host: string;
  logger: Logger;
  limits: GraphQLLimits | null;
  /** Run @apollo/gateway's own response shaping and operation building (for comparing answers). */
  stock?: boolean;
  /** Request headers passed on to every subgraph fetch, by name (lower case), as Apollo Router's header propagation. */
  forwardHeaders?: readonly string[];
}

/** What a request carries to its subgraph fetches. */
interface Forwarded {
  headers: Record<string, string>;
}

export interface AnySupergraphGateway {
  url: string;
  server: Server;
  shaping: ShapingVerdict;
  stop(): Promise<void>;
}

/** Serves the supergraph of `options.file` at /graphql, /health answering 200 once it is loaded. */
export async function serveAnySupergraph(options: AnySupergraphOptions): Promise<AnySupergraphGateway> {
  const { file, logger } = options;
  const supergraphSdl = readSupergraphFile(file);
  const shaping = shapeResponsesFaster({ stock: options.stock });
  const gateway = new ApolloGateway({
    supergraphSdl,
    logger,
    buildService: ({ name, url }) => {
      if (!url) throw new SupergraphFileError(`${file} is not a valid supergraph: the subgraph ${name} has no URL`);
      return httpSubgraph<Forwarded>(name, url, logger, (context) => context?.headers ?? {}, options.stock);
    },
  });
  let apiSchema: GraphQLSchema | null = null;
  gateway.onSchemaLoadOrUpdate(({ apiSchema: schema }) => (apiSchema = schema));
  const apollo = new ApolloServer<Forwarded>({
    gateway,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    formatError: formatGatewayError(logger),
    validationOptions: VALIDATION_OPTIONS,
    logger,
    plugins: [ApolloServerPluginLandingPageDisabled()],
  });
  try {
    await apollo.start();
  } catch (error) {
    throw error instanceof SupergraphFileError ? error : new SupergraphFileError(`${file} is not a valid supergraph: ${firstLine(error)}`);
  }
  const limits = new DocumentLimits(options.limits, () => {
    if (!apiSchema) throw new Error('supergraph not loaded');
    return apiSchema;
  });

  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => {
    res.status(apiSchema ? 200 : 503).json({ status: apiSchema ? 'ok' : 'loading' });
  });
  const forward = (options.forwardHeaders ?? []).map((name) => name.toLowerCase());
  const served = graphqlMiddleware(apollo, {
    context: async ({ req }) => {
      const headers: Record<string, string> = {};
      for (const name of forward) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      return { headers };
    },
  });
  app.use('/graphql', express.json({ limit: '1mb' }), (req, res, next) => {
    const query = (req.body as { query?: unknown } | undefined)?.query ?? req.query.query;
    const refused = typeof query === 'string' ? limits.check(query) : null;
    if (refused) {
      res.status(400).json({ errors: [{ message: refused.message, extensions: { code: refused.extensions.code } }] });
      return;
    }
    served(req, res, next);
  });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    server,
    shaping,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await apollo.stop();
    },
  };
}
