/**
 * Builds the reference provider without listening: its state, its calls to the service, the broadcast
 * watcher and the HTTP app. `start()` (after the HTTP server listens, so nginx's callbacks and playback
 * checks reach it) starts nginx, which serves playback, and the watcher; `close()` stops them all. provider/index.ts listens; tests may run it in
 * process or, as docs/show.md does, as `npm run provider`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../shared/logger';
import { providerApp } from './api';
import { Broadcasts } from './broadcasts';
import { ClipCutter } from './clips';
import type { ProviderConfig } from './config';
import { ServiceDeliveries } from './deliveries';
import { FallbackFeeds } from './fallback';
import { startNginx, type Nginx } from './nginx';
import { answerPlaybackCheck, PLAYBACK_CHECK_PATH } from './playbackCheck';
import { SimulcastRelays } from './simulcast';
import { ProviderState, readRegistration, type Registration } from './state';

export interface Provider {
  server: Server;
  state: ProviderState;
  deliveries: ServiceDeliveries;
  /** Starts nginx and the watcher; the server must listen first. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The provider's HTTP base as the contract's operation URLs name it. */
export function publicBase(config: Pick<ProviderConfig, 'publicHost' | 'port'>, port = config.port): string {
  return `http://${config.publicHost}:${port}`;
}

/** nginx's playback base as the playback and VOD URLs given to viewers name it. */
export function playbackBase(config: Pick<ProviderConfig, 'publicHost' | 'playbackPort'>): string {
  return `http://${config.publicHost}:${config.playbackPort}`;
}

export async function buildProvider(config: ProviderConfig, logger: Logger = createLogger('info', 'provider')): Promise<Provider> {
  const state = await ProviderState.open(config.stateDir);
  // Read once: `register` runs as its own command before the provider serves.
  let registration: Registration | null = readRegistration(config.stateDir);
  const registered = () => (registration ??= readRegistration(config.stateDir));
  const deliveries = new ServiceDeliveries(state, registered, config, logger);
  const server = createServer();
  const boundPort = () => (server.address() as AddressInfo | null)?.port ?? config.port;
  const viewersBase = () => playbackBase(config);
  const broadcasts = new Broadcasts(state, deliveries, config, viewersBase, new FallbackFeeds(config, logger), logger);
  const clips = new ClipCutter(state, broadcasts, config, viewersBase);
  const relays = new SimulcastRelays(state, deliveries, config, logger);
  const app = providerApp({ config, state, broadcasts, clips, relays, registration: registered, playbackBase: viewersBase, logger });
  const checkDeps = { state, registration: registered };
  // nginx's check of each playback request is answered ahead of the app: it is the provider's hottest path.
  server.on('request', (request, response) => {
    if (request.url === PLAYBACK_CHECK_PATH) answerPlaybackCheck(checkDeps, request, response);
    else app(request, response);
  });
  let nginx: Nginx | null = null;
  return {
    server,
    state,
    deliveries,
    async start() {
      const callbackHost = config.listenHost === '0.0.0.0' || config.listenHost === '::' ? '127.0.0.1' : config.listenHost;
      nginx = await startNginx(config, `http://${callbackHost}:${boundPort()}`, logger);
      await broadcasts.start();
      await clips.clearUnfinished();
      relays.start();
      deliveries.kick();
    },
    async close() {
      await relays.stop();
      await nginx?.stop();
      await broadcasts.stop();
      deliveries.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await state.save();
    },
  };
}
