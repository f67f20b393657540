/**
 * Running one service as its own process: configuration, logger, database and bus are opened once,
 * the service starts, and SIGTERM / SIGINT close it gracefully.
 */
import { createEventBus } from './bus';
import { loadConfig } from './config';
import { openDatabase } from './db/client';
import { createLogger } from './logger';
import { configureMetrics } from './metrics';
import { configurePasswordHashing } from './auth/credentials';
import { startTracing } from './tracing';
import type { ServiceDeps } from './subgraph';
import { httpSupergraph } from './supergraph';

export interface Closable {
  close(): Promise<void>;
  /** A service behind a balancer (the gateway): SIGTERM first drains for `shutdownGraceMs` (gateway/drain.ts). */
  beginDrain?(): void;
}

export function runService(name: string, start: (deps: ServiceDeps) => Promise<Closable>): void {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, `stagegraph-${name}`);
  // Before the database opens: with tracing on, its queries get spans.
  startTracing(config.otlpEndpoint, `stagegraph-${name}`);
  configureMetrics(config.metricsEnabled);
  configurePasswordHashing(config.passwordHashCost);
  (async () => {
    const database = await openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
    const bus = createEventBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger, maxLength: config.busStreamMaxLength });
    const supergraph = httpSupergraph(config.gatewayUrl, config.internalSecret);
    const service = await start({ config, database, bus, logger, supergraph });
    logger.info({ service: name }, `${name} started`);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      const drain = signal === 'SIGTERM' && service.beginDrain ? config.shutdownGraceMs : 0;
      logger.info({ signal, drainMs: drain }, `${name} shutting down`);
      if (drain > 0) service.beginDrain?.();
      new Promise((resolve) => setTimeout(resolve, drain))
        .then(() => service.close())
        .then(() => bus.close())
        .then(() => database.close())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  })().catch((error: Error) => {
    logger.error({ err: error }, `${name} failed to start`);
    process.exit(1);
  });
}
