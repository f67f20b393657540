/**
 * The provider's HTTP surface. The service's calls (seed 000, "Hosted by the provider"): POST JSON to
 * /v1/<operation>, each with `Authorization: Bearer <the registration's token>`. nginx's callbacks
 * (/rtmp/…, from loopback only). nginx serves the files viewers play on its own port (provider/nginx.ts),
 * asking provider/playbackCheck.ts, which server.ts answers ahead of this app, before each one.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../shared/logger';
import type { Broadcasts } from './broadcasts';
import type { ClipCutter } from './clips';
import { FALLBACK_ARGUMENT } from './fallback';
import type { ProviderConfig } from './config';
import { fromThisMachine } from './playbackCheck';
import { RELAY_ARGUMENT, simulcastTargetsOf, type SimulcastRelays } from './simulcast';
import type { ProviderState, ProviderStream, Registration } from './state';

/** The operations the service calls, as registered under the seed's `urls` keys. */
export const PROVIDER_OPERATIONS = [
  'createStream',
  'startStream',
  'stopStream',
  'deleteStream',
  'deleteVod',
  'activateStream',
  'createClip',
  'setSimulcastTargets',
] as const;

/** The URL of an operation at a provider whose HTTP server is `base`. */
export const operationUrl = (base: string, operation: (typeof PROVIDER_OPERATIONS)[number]) => `${base}/v1/${operation}`;

/** An answer that is not a success: a status and the message the caller sees. */
class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const fail = (status: number, message: string) => new ProviderError(status, message);

/** A string field of a JSON body, or 400 naming it. */
function field(body: unknown, name: string, check: (value: string) => boolean = (value) => value.length > 0 && value.length <= 500): string {
  const value = (body as Record<string, unknown> | null)?.[name];
  if (typeof value !== 'string' || !check(value))
    throw fail(400, `${name} is required: a non-empty string${name.endsWith('Url') ? ' holding an http(s) URL' : ''}`);
  return value;
}

const isHttpUrl = (value: string) => /^https?:\/\/\S+$/.test(value) && value.length <= 2000;

export interface ProviderApiDeps {
  config: ProviderConfig;
  state: ProviderState;
  broadcasts: Broadcasts;
  clips: ClipCutter;
  relays: SimulcastRelays;
  registration: () => Registration | null;
  /** nginx's playback base as viewers' URLs name it. */
  playbackBase: () => string;
  logger: Logger;
}

/** The Express app of the provider. */
export function providerApp(deps: ProviderApiDeps) {
  const { state, broadcasts, config } = deps;
  const app = express();
  app.disable('x-powered-by');

  app.get('/health', (_request, response) => {
    response.json({ success: true, registered: deps.registration() !== null });
  });

  // nginx's callbacks: form-encoded, `name` is the stream key. Anything but 2xx makes nginx drop the encoder.
  const rtmp = express.Router();
  // Only nginx, which runs on this machine.
  rtmp.use((request, response, next) => (fromThisMachine(request) ? next() : response.status(403).end()));
  rtmp.use(express.urlencoded({ extended: false, limit: '16kb' }));
  const callback = (request: Request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    return {
      key: typeof body.name === 'string' ? body.name : '',
      client: typeof body.clientid === 'string' ? body.clientid : '',
      fallback: body[FALLBACK_ARGUMENT],
      relay: body[RELAY_ARGUMENT],
    };
  };
  rtmp.post('/publish', async (request, response) => {
    const { key, client, fallback } = callback(request);
    if (!(await broadcasts.connect(key, client, fallback))) {
      deps.logger.info('refused an encoder: unknown or disabled stream key, or one already publishing');
      return response.status(403).end();
    }
    return response.status(200).end();
  });
  rtmp.post('/update', (request, response) => {
    // The renditions' ffmpeg reads the stream back (a play session, which nginx allows from this machine only,
    // provider/renditions.ts): it is no encoder, and stops with the one it reads. Only publishers are checked.
    if ((request.body as Record<string, unknown> | undefined)?.call === 'update_play') return response.status(200).end();
    const { key, client, relay } = callback(request);
    response.status(broadcasts.mayContinue(key, client) || deps.relays.isOwn(relay) ? 200 : 403).end();
  });
  rtmp.post('/publish-done', async (request, response) => {
    const { key, client } = callback(request);
    await broadcasts.disconnect(key, client);
    response.status(200).end();
  });
  app.use('/rtmp', rtmp);

  const service = express.Router();
  service.use((request, _response, next) => {
    const registration = deps.registration();
    if (!registration) throw fail(401, 'this provider is not registered with a service yet');
    const expected = Buffer.from(`Bearer ${registration.authorization}`);
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw fail(401, "Authorization must be Bearer <the token of this provider's registration>");
    next();
  });
  service.use(express.json({ limit: '64kb' }));
  const streamOf = (body: unknown): ProviderStream => {
    const id = field(body, 'id');
    const stream = state.data.streams[id];
    if (!stream) throw fail(404, `no stream ${id}`);
    return stream;
  };

  service.post('/createStream', async (request, response) => {
    const title = field(request.body, 'title');
    const fallbackImageUrl = field(request.body, 'fallbackImageUrl', isHttpUrl);
    const simulcastTargets = simulcastTargetsOf(request.body);
    const stream: ProviderStream = {
      id: randomUUID(),
      title,
      fallbackImageUrl,
      streamKey: randomBytes(16).toString('hex'),
      playbackName: randomBytes(12).toString('hex'),
      ingestEnabled: true,
      phase: 'offline',
      publishes: 0,
      createdAt: Date.now(),
      recording: null,
      // The service asks this for a gated channel's stream of a contract that signs: no plain URL plays it.
      signedOnly: (request.body as { playbackPolicy?: unknown } | null)?.playbackPolicy === 'signed',
      ...(simulcastTargets.length > 0 ? { simulcastTargets } : {}),
    };
    state.data.streams[stream.id] = stream;
    await state.save();
    response.json({
      ingestUrl: `rtmp://${config.publicHost}:${config.rtmpPort}/live`,
      streamKey: stream.streamKey,
      playbackUrl: `${deps.playbackBase()}/hls/${stream.playbackName}.m3u8`,
      providerStreamId: stream.id,
      // Ours, beside the seed's fields: how far back the live playlist lets viewers rewind, and its renditions.
      dvrSeconds: config.dvrSeconds,
      renditions: config.renditions,
    });
  });

  service.post('/startStream', async (request, response) => {
    const stream = streamOf(request.body);
    const liveBroadcastId = field(request.body, 'liveBroadcastId');
    if (stream.recording && stream.recording.liveBroadcastId !== liveBroadcastId) {
      throw fail(409, `stream ${stream.id} is already recording live broadcast ${stream.recording.liveBroadcastId}`);
    }
    // The same start again (the service retried after losing the answer) changes nothing.
    if (!stream.recording) await broadcasts.startRecording(stream, liveBroadcastId);
    response.json({ success: true, liveBroadcastId });
  });

  service.post('/stopStream', async (request, response) => {
    const stream = streamOf(request.body);
    // A stop without a recording (a retried stop) has nothing left to do.
    const vodId = await broadcasts.stopRecording(stream);
    response.json({ success: true, vodId });
  });

  service.post('/deleteStream', async (request, response) => {
    const stream = streamOf(request.body);
    stream.ingestEnabled = false;
    await broadcasts.ingestDisabled(stream);
    await state.save();
    response.json({ success: true });
  });

  service.post('/activateStream', async (request, response) => {
    const stream = streamOf(request.body);
    stream.ingestEnabled = true;
    await state.save();
    response.json({ success: true });
  });

  // Ours (docs/show.md, "Simulcast"): the list replaces the stream's targets; a changed one restarts at once.
  service.post('/setSimulcastTargets', async (request, response) => {
    const stream = streamOf(request.body);
    stream.simulcastTargets = simulcastTargetsOf(request.body);
    await state.save();
    deps.relays.sync();
    response.json({ success: true, simulcastTargets: deps.relays.reportsOf(stream) });
  });

  service.post('/deleteVod', async (request, response) => {
    const vodId = field(request.body, 'id');
    if (!(await broadcasts.deleteVod(vodId))) throw fail(404, `no VOD ${vodId}`);
    response.json({ success: true });
  });
  // Ours (docs/show.md "Clips"): answered once the clip is cut and kept, with its vodId, url and durationSeconds.
  service.post('/createClip', async (request, response) => {
    response.json({ success: true, ...(await deps.clips.cut(request.body)) });
  });
  app.use('/v1', service);

  app.use((_request: Request, response: Response) => {
    response.status(404).json({ success: false, message: 'no such path' });
  });
  app.use((error: Error & { status?: number; type?: string }, _request: Request, response: Response, _next: NextFunction) => {
    if (error instanceof ProviderError) return response.status(error.status).json({ success: false, message: error.message });
    if (error.type === 'entity.parse.failed') return response.status(400).json({ success: false, message: 'the body must be JSON' });
    if (error.status && error.status < 500) return response.status(error.status).json({ success: false, message: error.message });
    deps.logger.error({ err: error }, 'provider request failed');
    return response.status(500).json({ success: false, message: 'the provider failed; see its log' });
  });
  return app;
}
