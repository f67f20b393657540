/**
 * `npm run provider` serves the reference provider (HTTP on PROVIDER_PORT, nginx's RTMP on RTMP_PORT);
 * `npm run provider -- register --service URL --site S --developer-key K [--name N]` registers it once
 * and prints `{"contractId": …}`.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../shared/logger';
import { loadProviderConfig } from './config';
import { registerProvider } from './registration';
import { buildProvider } from './server';

async function serve(): Promise<void> {
  const config = loadProviderConfig();
  const logger = createLogger(config.logLevel, 'provider');
  const provider = await buildProvider(config, logger);
  await new Promise<void>((resolve) => provider.server.listen(config.port, config.listenHost, resolve));
  await provider.start();
  logger.info({ port: config.port, rtmpPort: config.rtmpPort, stateDir: config.stateDir }, 'reference provider serving');
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
  process.stdout.write(`${JSON.stringify({ contractId })}\n`);
}

const [command, ...rest] = process.argv.slice(2);
const run =
  command === 'register'
    ? register(rest)
    : command === undefined || command === 'serve'
      ? serve()
      : Promise.reject(new Error(`unknown command "${command}" (serve or register)`));
run.catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
