/**
 * The reconnect window (seed 000): when a stream's encoder leaves, its live HLS does not die at once — the
 * transcoder's output falls back to the stream's `fallbackImageUrl` for the window (at least 5 minutes,
 * `PROVIDER_RECONNECT_WINDOW_MS`), so viewers keep playing a picture while the encoder reconnects. Here the
 * fallback is an ffmpeg the provider starts, looping the image into nginx under the stream's key like an
 * encoder, marked as the provider's own by a secret in its RTMP URL (nginx passes it to on_publish); its
 * fragments land in the same live playlist, so players go on without a new URL. An encoder coming back
 * takes over: the fallback is stopped and gone from nginx before the encoder is admitted (nginx takes one
 * publisher per key). The image is fetched once per stream and kept; one that cannot be fetched gives a
 * plain dark picture instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../shared/logger';
import type { ProviderConfig } from './config';
import type { ProviderStream } from './state';

/** The largest fallback image fetched (a still picture; more is refused). */
const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** How long the image may take to fetch before the plain picture is used. */
const IMAGE_FETCH_MS = 5000;
/** How long a stopped fallback may take to leave nginx before an encoder is admitted anyway. */
const LEAVE_WAIT_MS = 5000;

/** The RTMP argument that marks the provider's own fallback publisher. */
export const FALLBACK_ARGUMENT = 'fallback';

interface Feed {
  child: ChildProcess;
  /** nginx's connection id once nginx admitted it. */
  client: string | null;
  /** Resolves when it has left nginx (on_publish_done), or its ffmpeg ended without ever being admitted. */
  left: Promise<void>;
  leave(): void;
}

type FallbackSettings = Pick<ProviderConfig, 'stateDir' | 'rtmpPort' | 'rtmpListenHost' | 'hlsFragmentSeconds'>;

export class FallbackFeeds {
  /** Known to this process only: nginx hands it back in on_publish, an encoder cannot guess it. */
  private readonly secret = randomBytes(18).toString('base64url');
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly config: FallbackSettings,
    private readonly logger: Logger,
  ) {}

  /** Whether an on_publish carries the fallback's secret. */
  isOwn(argument: unknown): boolean {
    return typeof argument === 'string' && argument === this.secret;
  }

  /** Whether the stream's fallback is playing (or starting). */
  playing(streamId: string): boolean {
    return this.feeds.has(streamId);
  }

  /** nginx admits the fallback of `streamId` as `client`; false when none was started for it (a stale one). */
  admit(streamId: string, client: string): boolean {
    const feed = this.feeds.get(streamId);
    if (!feed || feed.client !== null) return false;
    feed.client = client;
    return true;
  }

  /** Whether nginx connection `client` is the fallback of `streamId` (on_update, on_publish_done). */
  isFeed(streamId: string, client: string): boolean {
    return this.feeds.get(streamId)?.client === client;
  }

  /** The fallback of `streamId` left nginx. */
  leftNginx(streamId: string, client: string): void {
    const feed = this.feeds.get(streamId);
    if (feed?.client !== client) return;
    this.feeds.delete(streamId);
    feed.leave();
  }

  /** Starts looping the stream's image into nginx under its key. */
  async start(stream: ProviderStream): Promise<void> {
    if (this.feeds.has(stream.id)) return;
    const image = await this.image(stream);
    const host = this.config.rtmpListenHost === '0.0.0.0' ? '127.0.0.1' : this.config.rtmpListenHost;
    const fps = 10;
    const input = image ? ['-loop', '1', '-framerate', String(fps), '-i', image] : ['-f', 'lavfi', '-i', `color=c=0x202020:s=640x360:r=${fps}`];
    const child = spawn(
      'ffmpeg',
      [
        '-loglevel',
        'error',
        '-nostdin',
        '-re',
        ...input,
        '-f',
        'lavfi',
        '-i',
        'anullsrc=r=44100:cl=stereo',
        // Even sizes (H.264 4:2:0), a keyframe per fragment so each one plays on its own.
        '-vf',
        'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-tune',
        'stillimage',
        '-r',
        String(fps),
        '-g',
        String(fps * this.config.hlsFragmentSeconds),
        '-c:a',
        'aac',
        '-b:a',
        '32k',
        '-f',
        'flv',
        `rtmp://${host}:${this.config.rtmpPort}/live/${stream.streamKey}?${FALLBACK_ARGUMENT}=${this.secret}`,
      ],
      { stdio: 'ignore' },
    );
    let leave = () => undefined as void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const feed: Feed = { child, client: null, left, leave };
    this.feeds.set(stream.id, feed);
    child.once('exit', () => {
      // Never admitted: nothing will tell of it leaving nginx.
      if (feed.client === null && this.feeds.get(stream.id) === feed) {
        this.feeds.delete(stream.id);
        feed.leave();
      }
    });
    child.once('error', (error) => this.logger.warn({ err: error.message }, 'the fallback picture could not be started'));
  }

  /** Stops the stream's fallback and resolves once it has left nginx (so its key is free for an encoder). */
  async stop(streamId: string): Promise<void> {
    const feed = this.feeds.get(streamId);
    if (!feed) return;
    feed.child.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, LEAVE_WAIT_MS)));
    await Promise.race([feed.left, late]);
    clearTimeout(timer);
    if (this.feeds.get(streamId) === feed) this.feeds.delete(streamId);
  }

  /** Stops every fallback (the provider is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.feeds.keys()].map((id) => this.stop(id)));
  }

  /** The stream's image as a local file (fetched once), or null for the plain picture. */
  private async image(stream: ProviderStream): Promise<string | null> {
    const folder = join(this.config.stateDir, 'fallback');
    const file = join(folder, stream.id);
    if (existsSync(file)) return file;
    try {
      const response = await fetch(stream.fallbackImageUrl, { signal: AbortSignal.timeout(IMAGE_FETCH_MS), redirect: 'follow' });
      const length = Number(response.headers.get('content-length') ?? 0);
      if (!response.ok || length > IMAGE_MAX_BYTES || !(response.headers.get('content-type') ?? '').startsWith('image/')) return null;
      const body = Buffer.from(await response.arrayBuffer());
      if (body.length > IMAGE_MAX_BYTES) return null;
      await mkdir(folder, { recursive: true });
      await writeFile(file, body, { mode: 0o600 });
      return file;
    } catch (error) {
      this.logger.info({ err: (error as Error).message }, 'the fallback image could not be fetched: a plain picture plays instead');
      return null;
    }
  }
}
