/**
 * The REST bridge as its own process on REST_BRIDGE_PORT, sending every operation to the gateway at
 * GATEWAY_URL with the caller's headers; the gateway authenticates them.
 */
// First: compiled code kept for the next start, and graphql-js in production mode (see the modules).
import '../shared/compileCache';
import '../shared/graphqlProduction';
import express from 'express';
import type { ExecutionResult } from 'graphql';
import { createExpressServer } from '../shared/httpServer';
import { loadConfig } from '../shared/config';
import { restErrorBody } from '../shared/errors';
import { createLogger } from '../shared/logger';
import { configureMetrics, countHttpRequests, metricsHandler, routeTemplate } from '../shared/metrics';
import { injectTraceHeaders, startTracing, traceRequests } from '../shared/tracing';
import type { HeaderBag } from '../shared/auth/authenticate';
import { createRestBridge } from './server';

const FORWARDED = ['x-service-client-id', 'x-service-developer-key', 'authorization', 'x-request-id'];

const config = loadConfig();
const logger = createLogger(config.logLevel, 'stagegraph-rest-bridge');
startTracing(config.otlpEndpoint, 'stagegraph-rest-bridge');
configureMetrics(config.metricsEnabled);
const bridge = createRestBridge({
  logger,
  bodyLimitBytes: config.bodyLimitBytes,
  executor: {
    authenticate: async (headers: HeaderBag) => headers,
    async execute(request, caller) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const name of FORWARDED) {
        const value = (caller as HeaderBag)[name];
        if (typeof value === 'string') headers[name] = value;
      }
      // The gateway continues this request's trace.
      injectTraceHeaders((header, value) => (headers[header] = value));
      const response = await fetch(config.gatewayUrl, { method: 'POST', headers, body: JSON.stringify(request), signal: AbortSignal.timeout(30_000) });
      return (await response.json()) as ExecutionResult;
    },
  },
});
const app = express();
app.use(traceRequests());
app.use(countHttpRequests());
app.get('/metrics', routeTemplate('/metrics'), metricsHandler(config.metricsToken));
app.get('/openapi.json', routeTemplate('/openapi.json'), (_req, res) => {
  res.json(bridge.openapi);
});
app.use(bridge.router);
app.use((req, res) => {
  res.status(404).json(restErrorBody(`no route for ${req.method} ${req.path}`));
});
const server = createExpressServer(app).listen(config.restBridgePort, config.host, () => logger.info({ port: config.restBridgePort }, 'rest bridge started'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
