/**
 * The reference provider's configuration: read from the environment once at start, validated, and
 * handed to every part as a typed object. Nothing else in provider/ reads `process.env`.
 */
import { resolve } from 'node:path';
import { parseRenditions, type RenditionName } from './renditions';

export interface ProviderConfig {
  /** Port of the provider's HTTP server: the service's calls, nginx's callbacks and token checks (`PROVIDER_PORT`, default 4200; 0 = any free port). */
  port: number;
  /**
   * Port nginx serves playback on: live HLS under /hls/ and recordings under /vod/, each request of a stream
   * that plays signed checked by the provider (`PROVIDER_PLAYBACK_PORT`, default 4201). Playback and VOD URLs
   * name it; nginx cannot be given port 0, so it is always a real port.
   */
  playbackPort: number;
  /** Interface the HTTP server and nginx's playback bind to (`PROVIDER_LISTEN_HOST`, default 0.0.0.0, so viewers on other machines can play). */
  listenHost: string;
  /** Port nginx takes RTMP ingest on (`RTMP_PORT`, default 1935). */
  rtmpPort: number;
  /** Interface nginx takes RTMP on (`RTMP_LISTEN_HOST`, default 0.0.0.0, so an encoder on another machine can connect). */
  rtmpListenHost: string;
  /**
   * Folder of everything the provider keeps (`PROVIDER_STATE_DIR`, default ./data/provider): its registration
   * (0600), its streams, nginx's configuration, pid and logs, live HLS and recordings.
   */
  stateDir: string;
  /** The host written into ingest and playback URLs, as encoders and viewers reach this machine (`PROVIDER_PUBLIC_HOST`, default 127.0.0.1). */
  publicHost: string;
  /** The nginx binary (`NGINX_BIN`, default nginx: Debian's). */
  nginxBin: string;
  /** nginx's RTMP module (`NGINX_RTMP_MODULE`, default Debian's libnginx-mod-rtmp: /usr/lib/nginx/modules/ngx_rtmp_module.so). */
  rtmpModule: string;
  /** Seconds of one live HLS fragment (`HLS_FRAGMENT_SECONDS`, default 1: a viewer and a test see the stream quickly). */
  hlsFragmentSeconds: number;
  /**
   * Milliseconds a manifest may go without an update after its encoder left before the stream counts as
   * `idle` (`PROVIDER_IDLE_AFTER_MS`, default 3000: a few fragments, so the last one has been written).
   */
  idleAfterMs: number;
  /**
   * Milliseconds an encoder that left may take to reconnect while its live HLS plays the stream's fallback
   * image (`PROVIDER_RECONNECT_WINDOW_MS`, default 300000: the seed's minimum, 5 minutes; 0 = no fallback, the
   * live HLS ends as the encoder leaves). Once it passes, the picture stops and `idle` follows.
   */
  reconnectWindowMs: number;
  /** Milliseconds between two looks at the live manifests (`PROVIDER_POLL_MS`, default 250). */
  pollMs: number;
  /** First wait before a webhook or VOD delivery the service did not take is sent again; it doubles per attempt (`PROVIDER_RETRY_BASE_MS`, default 1000). */
  retryBaseMs: number;
  /** Longest wait between two delivery attempts (`PROVIDER_RETRY_MAX_MS`, default 60000). */
  retryMaxMs: number;
  /** First wait before a failed simulcast target is tried again; it doubles per failure in a row (`PROVIDER_SIMULCAST_RETRY_BASE_MS`, default 2000). */
  simulcastRetryBaseMs: number;
  /** Longest wait between two tries of a failing simulcast target (`PROVIDER_SIMULCAST_RETRY_MAX_MS`, default 60000). */
  simulcastRetryMaxMs: number;
  /** How long one call to the service may take before it counts as failed (`PROVIDER_CALL_TIMEOUT_MS`, default 10000). */
  callTimeoutMs: number;
  /** pino level (`LOG_LEVEL`, default info; `silent` turns logs off). */
  logLevel: string;
  /**
   * Whether `register` asks the service for signed playback (`PROVIDER_SIGNED_PLAYBACK`, true or false,
   * default false): the key comes back once and is kept with the registration; playback URLs carrying a
   * token (`…/t/<token>/<file>`) then play only while it is valid for that stream or recording.
   */
  signedPlayback: boolean;
  /**
   * The ladder each live stream is transcoded into, top first (`PROVIDER_RENDITIONS`, comma-separated names of
   * source, 1080p, 720p, 480p, 360p, 240p; default `source`: passed through, nothing transcoded). More than
   * `source` alone makes the playback URL a master playlist of one media playlist per rendition
   * (provider/renditions.ts); recordings keep the top rendition.
   */
  renditions: RenditionName[];
  /**
   * Seconds of the show a live playlist keeps, so viewers may rewind that far while live (`PROVIDER_DVR_SECONDS`,
   * default 1800, 0 to 21600; 0: no rewind, the playlist holds the last six fragments). Told to the service in
   * createStream's answer.
   */
  dvrSeconds: number;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  return value;
}

function flag(env: Env, name: string): boolean {
  const value = env[name] ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function hostName(env: Env, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(value)) throw new Error(`${name} must be a host name or address, got "${value}"`);
  return value;
}

/** Reads and checks the provider's environment. */
export function loadProviderConfig(env: Env = process.env): ProviderConfig {
  return {
    port: integer(env, 'PROVIDER_PORT', 4200, 0, 65535),
    playbackPort: integer(env, 'PROVIDER_PLAYBACK_PORT', 4201, 1, 65535),
    listenHost: hostName(env, 'PROVIDER_LISTEN_HOST', '0.0.0.0'),
    rtmpPort: integer(env, 'RTMP_PORT', 1935, 1, 65535),
    rtmpListenHost: hostName(env, 'RTMP_LISTEN_HOST', '0.0.0.0'),
    stateDir: resolve(env.PROVIDER_STATE_DIR || './data/provider'),
    publicHost: hostName(env, 'PROVIDER_PUBLIC_HOST', '127.0.0.1'),
    nginxBin: env.NGINX_BIN || 'nginx',
    rtmpModule: env.NGINX_RTMP_MODULE || '/usr/lib/nginx/modules/ngx_rtmp_module.so',
    hlsFragmentSeconds: integer(env, 'HLS_FRAGMENT_SECONDS', 1, 1, 10),
    idleAfterMs: integer(env, 'PROVIDER_IDLE_AFTER_MS', 3000, 500, 600_000),
    reconnectWindowMs: integer(env, 'PROVIDER_RECONNECT_WINDOW_MS', 300_000, 0, 3_600_000),
    pollMs: integer(env, 'PROVIDER_POLL_MS', 250, 50, 10_000),
    retryBaseMs: integer(env, 'PROVIDER_RETRY_BASE_MS', 1000, 10, 600_000),
    retryMaxMs: integer(env, 'PROVIDER_RETRY_MAX_MS', 60_000, 10, 86_400_000),
    simulcastRetryBaseMs: integer(env, 'PROVIDER_SIMULCAST_RETRY_BASE_MS', 2000, 10, 600_000),
    simulcastRetryMaxMs: integer(env, 'PROVIDER_SIMULCAST_RETRY_MAX_MS', 60_000, 10, 3_600_000),
    callTimeoutMs: integer(env, 'PROVIDER_CALL_TIMEOUT_MS', 10_000, 100, 120_000),
    logLevel: env.LOG_LEVEL || 'info',
    signedPlayback: flag(env, 'PROVIDER_SIGNED_PLAYBACK'),
    renditions: parseRenditions(env.PROVIDER_RENDITIONS),
    dvrSeconds: integer(env, 'PROVIDER_DVR_SECONDS', 1800, 0, 21_600),
  };
}
