/**
 * `npm run provider` serves the reference provider (HTTP on PROVIDER_PORT, nginx's RTMP on RTMP_PORT);
 * `npm run provider -- start` / `stop` serves it in the background and ends it (provider/background.ts);
 * `npm run provider -- register --service URL --site S --developer-key K [--name N]` registers it once
 * and prints `{"contractId": …}`.
 */
import '../shared/compileCache';
import { parseArgs } from 'node:util';
import { createLogger } from '../shared/logger';
import { SERVING_MESSAGE, startInBackground, stopBackground } from './background';
import { loadProviderConfig } from './config';
import { registerProvider } from './registration';
import { buildProvider } from './server';

async function serve(): Promise<void> {
  const config = loadProviderConfig();
  const logger = createLogger(config.logLevel, 'provider');
  const provider = await buildProvider(config, logger);
  await new Promise<void>((resolve) => provider.server.listen(config.port, config.listenHost, resolve));
  await provider.start();
  logger.info({ port: config.port, rtmpPort: config.rtmpPort, stateDir: config.stateDir }, SERVING_MESSAGE);
  // Started by `start`: tell it, then leave its channel so it can return.
  if (process.send) process.send(SERVING_MESSAGE, () => process.disconnect());
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void provider.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function register(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { service: { type: 'string' }, site: { type: 'string' }, 'developer-key': { type: 'string' }, name: { type: 'string' } },
  });
  if (!values.service || !values.site || !values['developer-key'])
    throw new Error('usage: register --service URL --site SITE_ID --developer-key KEY [--name NAME]');
  const contractId = await registerProvider(loadProviderConfig(), {
    serviceUrl: values.service,
    siteId: values.site,
    developerKey: values['developer-key'],
    name: values.name,
  });
  print({ contractId });
}

/** Prints one JSON line of a command's answer. */
function print(answer: object): void {
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  serve,
  register,
  start: async () => {
    const config = loadProviderConfig();
    const { pid, log } = await startInBackground(config);
    print({ pid, port: config.port, playbackPort: config.playbackPort, rtmpPort: config.rtmpPort, log });
  },
  stop: async () => {
    print(await stopBackground(loadProviderConfig()));
  },
};

const [command = 'serve', ...rest] = process.argv.slice(2);
const run = COMMANDS[command]?.(rest) ?? Promise.reject(new Error(`unknown command "${command}" (serve, start, stop or register)`));
run.catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
