/**
 * The provider's HTTP surface. The service's calls (seed 000, "Hosted by the provider"): POST JSON to
 * /v1/<operation>, each with `Authorization: Bearer <the registration's token>`. nginx's callbacks
 * (/rtmp/…, from loopback only). And the files viewers play: live HLS under /hls/ and recordings under
 * /vod/<vodId>/, readable from any origin (a site's watch page plays them with hls.js).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../shared/logger';
import { verifyPlaybackToken } from '../shared/playbackSigning';
import { VOD_PLAYLIST, vodsDir, type Broadcasts } from './broadcasts';
import { FALLBACK_ARGUMENT } from './fallback';
import type { ProviderConfig } from './config';
import { hlsDir } from './nginx';
import type { ProviderState, ProviderStream, Registration } from './state';

/** The operations the service calls, as registered under the seed's `urls` keys. */
export const PROVIDER_OPERATIONS = ['createStream', 'startStream', 'stopStream', 'deleteStream', 'deleteVod', 'activateStream'] as const;

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

const isLoopback = (address: string | undefined) => address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';

export interface ProviderApiDeps {
  config: ProviderConfig;
  state: ProviderState;
  broadcasts: Broadcasts;
  registration: () => Registration | null;
  /** The provider's HTTP base as encoders' and viewers' URLs name it. */
  publicBase: () => string;
  logger: Logger;
}

/** The Express app of the provider. */
export function providerApp(deps: ProviderApiDeps) {
  const { state, broadcasts, config } = deps;
  const app = express();
  app.disable('x-powered-by');

  // Signed playback (PROVIDER_SIGNED_PLAYBACK, shared/playbackSigning.ts): a token in the path, before the
  // file, signed for the stream's playlist path; the playlist's relative segments keep it. A token that is
  // not valid for that stream now (absent, altered, another stream's, expired, another shape) is 403.
  const tokenLets = (token: string, playlistPath: string) => {
    const key = deps.registration()?.playbackKey;
    return key !== undefined && verifyPlaybackToken(token, playlistPath, [key], Date.now());
  };
  const LIVE_FILE = /^([0-9a-f]{24})(\.m3u8|-\d{1,12}\.ts)$/;
  app.get('/hls/t/:token/:file', (request, response, next) => {
    const match = LIVE_FILE.exec(request.params.file);
    if (!match || !tokenLets(request.params.token, `/hls/${match[1]}.m3u8`)) throw fail(403, 'this playback URL is not valid for this stream now');
    serveLive(request, response).catch(next);
  });
  app.get('/vod/:vodId/t/:token/:file', (request, response) => {
    const { vodId, token, file } = request.params;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(vodId) || !/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(file) || !tokenLets(token, `/vod/${vodId}/${VOD_PLAYLIST}`)) {
      throw fail(403, 'this playback URL is not valid for this recording now');
    }
    response.setHeader('access-control-allow-origin', '*');
    response.type(file.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'video/mp2t');
    response.sendFile(join(vodsDir(config.stateDir), vodId, file), { dotfiles: 'deny' }, (error) => {
      if (error && !response.headersSent) response.status(404).json({ success: false, message: 'no such file' });
    });
  });

  // Live HLS under the stream's playback name: nginx writes `<key>.m3u8` and `<key>-<n>.ts`, and its manifest
  // names the fragments by the key, so the manifest is rewritten on the way out and fragments mapped back.
  app.get('/hls/:file', (request, response, next) => {
    const match = LIVE_FILE.exec(request.params.file);
    if (match && state.streamByPlaybackName(match[1])?.signedOnly) throw fail(403, 'this stream plays only through a signed URL');
    serveLive(request, response).catch(next);
  });
  async function serveLive(request: Request, response: Response) {
    const match = LIVE_FILE.exec(request.params.file as string);
    const stream = match ? state.streamByPlaybackName(match[1]) : undefined;
    if (!match || !stream) throw fail(404, 'no such live stream');
    const file = join(hlsDir(config.stateDir), `${stream.streamKey}${match[2]}`);
    response.setHeader('access-control-allow-origin', '*');
    if (match[2] !== '.m3u8') return response.type('video/mp2t').sendFile(file);
    const manifest = await readFile(file, 'utf8').catch(() => null);
    if (manifest === null) throw fail(404, 'the stream is not live');
    response.setHeader('cache-control', 'no-cache');
    return response.type('application/vnd.apple.mpegurl').send(manifest.split(stream.streamKey).join(stream.playbackName));
  }
  // A signed-only stream's recordings play only through a signed URL (the route above).
  app.use('/vod/:vodId', (request, _response, next) => {
    const vod = state.data.vods[request.params.vodId];
    if (vod && state.data.streams[vod.streamId]?.signedOnly) throw fail(403, 'this recording plays only through a signed URL');
    next();
  });
  // Recordings: files that never change once delivered.
  app.use(
    '/vod',
    express.static(vodsDir(config.stateDir), {
      fallthrough: false,
      dotfiles: 'deny',
      setHeaders(response, path) {
        response.setHeader('access-control-allow-origin', '*');
        if (path.endsWith('.m3u8')) response.setHeader('content-type', 'application/vnd.apple.mpegurl');
        else if (path.endsWith('.ts')) response.setHeader('content-type', 'video/mp2t');
      },
    }),
  );
  app.get('/health', (_request, response) => {
    response.json({ success: true, registered: deps.registration() !== null });
  });

  // nginx's callbacks: form-encoded, `name` is the stream key. Anything but 2xx makes nginx drop the encoder.
  const rtmp = express.Router();
  // Only nginx, which runs on this machine: loopback, or this server's own address when it listens on one.
  rtmp.use((request, response, next) =>
    isLoopback(request.socket.remoteAddress) || request.socket.remoteAddress === request.socket.localAddress ? next() : response.status(403).end(),
  );
  rtmp.use(express.urlencoded({ extended: false, limit: '16kb' }));
  const callback = (request: Request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    return {
      key: typeof body.name === 'string' ? body.name : '',
      client: typeof body.clientid === 'string' ? body.clientid : '',
      fallback: body[FALLBACK_ARGUMENT],
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
    const { key, client } = callback(request);
    response.status(broadcasts.mayContinue(key, client) ? 200 : 403).end();
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
    };
    state.data.streams[stream.id] = stream;
    await state.save();
    response.json({
      ingestUrl: `rtmp://${config.publicHost}:${config.rtmpPort}/live`,
      streamKey: stream.streamKey,
      playbackUrl: `${deps.publicBase()}/hls/${stream.playbackName}.m3u8`,
      providerStreamId: stream.id,
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

  service.post('/deleteVod', async (request, response) => {
    const vodId = field(request.body, 'id');
    if (!(await broadcasts.deleteVod(vodId))) throw fail(404, `no VOD ${vodId}`);
    response.json({ success: true });
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
