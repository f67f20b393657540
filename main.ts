/** `npm start`: the whole system on the public port, until SIGTERM or SIGINT. */
// First: compiled code kept for the next start, and graphql-js in production mode (see the modules).
import './shared/compileCache';
import './shared/graphqlProduction';
import { loadConfig } from './shared/config';
import { describeListenAddress } from './shared/listenAddress';
import { createLogger } from './shared/logger';
import { startStack } from './stack';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const stack = await startStack(config, { logger });
  const address = describeListenAddress(config.host, stack.port);
  logger.info(
    {
      host: config.host,
      port: stack.port,
      url: address.localUrl,
      runtime: process.version,
      database: stack.database.provider,
      bus: config.redisUrl ? 'redis' : 'in-process',
    },
    `stagegraph listening on ${address.bound}; on this machine: ${address.localUrl}`,
  );
  let stopping = false;
  // SIGTERM (a deploy, the fleet script, an orchestrator) drains; SIGINT (Ctrl-C at a terminal) and a
  // second signal during a drain stop at once.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      const drain = signal === 'SIGTERM' && !stopping;
      if (stopping && signal === 'SIGTERM') return;
      stopping = true;
      logger.info({ signal }, drain ? 'draining' : 'shutting down');
      (drain ? stack.drain() : stack.close()).then(
        () => process.exit(0),
        (error: Error) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
