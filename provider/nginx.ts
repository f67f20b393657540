/**
 * nginx with Debian's RTMP module as the provider's ingest and live transcoder: a configuration
 * generated into the state folder, nginx run as a child process in the foreground (`daemon off`) with
 * its pid and logs in the state folder, and stopped with the provider. Encoders publish to
 * `rtmp://host:RTMP_PORT/live/<streamKey>`; nginx asks the provider before it accepts one
 * (`on_publish`), tells it when one leaves (`on_publish_done`), asks again every second while one
 * publishes (`on_update`, so a stream deleted meanwhile drops its encoder) and writes live HLS of
 * one-second fragments into `<state>/hls`. Its `http {}` serves what viewers play, on PROVIDER_PLAYBACK_PORT:
 * the live HLS under /hls/ and the recordings under /vod/, from the files (sendfile), each request
 * checked first by the provider (provider/playbackCheck.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../shared/logger';
import type { ProviderConfig } from './config';
import { hlsDir, vodsDir } from './files';
import { CHECK_HEADERS, ORIGINAL_URI_HEADER, PLAYBACK_CHECK_PATH } from './playbackCheck';
import { ladderApplications } from './renditions';

type NginxSettings = Pick<
  ProviderConfig,
  'stateDir' | 'rtmpPort' | 'rtmpListenHost' | 'nginxBin' | 'rtmpModule' | 'hlsFragmentSeconds' | 'playbackPort' | 'listenHost' | 'renditions' | 'dvrSeconds'
>;

/** nginx's variable holding a header of the check's answer (`x-playback-file` → `$upstream_http_x_playback_file`). */
const answered = (header: string) => `$upstream_http_${header.replaceAll('-', '_')}`;

/**
 * The playback server. Each request is checked with `auth_request` against the provider's token check,
 * not with `secure_link`: secure_link computes only MD5 over a string holding the secret, while the
 * contract's scheme is HMAC-SHA256 (shared/playbackSigning.ts) and the key comes with the registration,
 * after nginx's configuration is written; and a live file's name on disk (the stream key) is the
 * provider's to map from the playback name, which the same answer gives (the file, and the key the
 * manifest's `sub_filter` replaces with the playback name). The check is a loopback request on a kept-alive
 * connection: one HMAC and a map look-up, no disk (docs/benchmarks.md has its cost per request).
 */
function playbackServer(settings: NginxSettings, callbackBase: string): string {
  const state = settings.stateDir;
  const temporary = (name: string) => join(state, 'nginx-temp', name);
  const checked = `      auth_request /_playback_check;
      auth_request_set $playback_file ${answered(CHECK_HEADERS.file)};
      auth_request_set $playback_refusal ${answered(CHECK_HEADERS.refusal)};
      try_files /$playback_file =404;
      add_header Access-Control-Allow-Origin * always;`;
  const json = (status: number, message: string) => `default_type application/json;
      add_header Access-Control-Allow-Origin * always;
      return ${status} '{"success":false,"message":"${message}"}';`;
  return `http {
  # Inside the state folder: the compiled-in defaults (/var/lib/nginx, /var/log/nginx) need root.
  access_log off;
  client_body_temp_path ${temporary('body')};
  proxy_temp_path ${temporary('proxy')};
  fastcgi_temp_path ${temporary('fastcgi')};
  uwsgi_temp_path ${temporary('uwsgi')};
  scgi_temp_path ${temporary('scgi')};
  server_tokens off;
  sendfile on;
  tcp_nopush on;
  types {
    application/vnd.apple.mpegurl m3u8;
    video/mp2t ts;
  }
  default_type application/octet-stream;
  upstream provider_check {
    server ${callbackBase.replace(/^http:\/\//, '')};
    keepalive 16;
  }
  # The live manifest changes every fragment: players must ask again. Fragments and recordings never change.
  map $uri $playback_cache_control {
    ~\\.m3u8$ no-cache;
    default "";
  }
  # Why a request was refused, as the check said (a fixed sentence of provider/playbackCheck.ts).
  map $playback_refusal $playback_refusal_message {
    "" "this playback URL is not valid now";
    default $playback_refusal;
  }
  server {
    listen ${settings.listenHost}:${settings.playbackPort};
    error_page 403 @refused;
    error_page 404 @missing;
    error_page 500 502 503 504 @unavailable;
    location = /_playback_check {
      internal;
      proxy_pass http://provider_check${PLAYBACK_CHECK_PATH};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header ${ORIGINAL_URI_HEADER} $request_uri;
    }
    # Live HLS: files named after the stream key; the manifest says the playback name instead.
    location /hls/ {
      root ${hlsDir(state)};
${checked}
      auth_request_set $playback_stream_key ${answered(CHECK_HEADERS.streamKey)};
      auth_request_set $playback_name ${answered(CHECK_HEADERS.playbackName)};
      sub_filter $playback_stream_key $playback_name;
      sub_filter_once off;
      sub_filter_types application/vnd.apple.mpegurl;
      add_header Cache-Control $playback_cache_control;
    }
    # Recordings: files that never change once delivered.
    location /vod/ {
      root ${vodsDir(state)};
${checked}
    }
    location / {
      ${json(404, 'no such path')}
    }
    location @refused {
      ${json(403, '$playback_refusal_message')}
    }
    location @missing {
      ${json(404, 'no such file: not live now, or not (or no longer) recorded')}
    }
    location @unavailable {
      ${json(503, 'playback cannot be checked now; try again shortly')}
    }
  }
}
`;
}

/** The configuration nginx runs with; `callbackBase` is the provider's HTTP server as nginx reaches it. */
export function nginxConfiguration(settings: NginxSettings, callbackBase: string): string {
  const state = settings.stateDir;
  const ladder = ladderApplications(settings, hlsDir(state));
  return `# Generated by the stagegraph reference provider at each start; edits are overwritten.
load_module ${settings.rtmpModule};
worker_processes 1;
pid ${join(state, 'nginx.pid')};
# The renditions' ffmpeg (exec_push) is found on the provider's PATH; nginx clears its workers' environment.
env PATH;
error_log ${join(state, 'logs', 'nginx-error.log')} warn;
events { worker_connections 1024; }
${playbackServer(settings, callbackBase)}rtmp {
  # Inside the state folder: the compiled-in default (/var/log/nginx) is not writable by a user without root.
  access_log ${join(state, 'logs', 'rtmp-access.log')};
  server {
    listen ${settings.rtmpListenHost}:${settings.rtmpPort};
    chunk_size 4096;
    application live {
      live on;
      record off;
${ladder.live}      notify_method post;
      on_publish ${callbackBase}/rtmp/publish;
      on_publish_done ${callbackBase}/rtmp/publish-done;
      on_update ${callbackBase}/rtmp/update;
      notify_update_timeout 1s;
    }
${ladder.applications}  }
}
`;
}

/** Whether a TCP port accepts connections. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * An nginx left running by a provider that was killed (it outlives its parent) would hold the RTMP and playback ports:
 * stop it, but only when its command line names this state folder's configuration.
 */
async function stopLeftover(stateDir: string, confFile: string, logger: Logger): Promise<void> {
  const pidFile = join(stateDir, 'nginx.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!commandLine.includes(confFile)) return;
    process.kill(pid, 'SIGTERM');
    logger.warn({ pid }, 'stopping an nginx left running by an earlier provider');
  } catch {
    return; // gone already
  }
  // It must have let go of the RTMP port before the new one binds it (or the probe below would find the old one).
  const deadline = Date.now() + 5000;
  while (existsSync(`/proc/${pid}`) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
}

/** The running nginx. */
export interface Nginx {
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Writes the configuration, starts nginx and resolves once it takes RTMP and playback connections. */
export async function startNginx(settings: NginxSettings, callbackBase: string, logger: Logger): Promise<Nginx> {
  const state = settings.stateDir;
  const confFile = join(state, 'nginx.conf');
  await mkdir(join(state, 'logs'), { recursive: true });
  await mkdir(hlsDir(state), { recursive: true });
  await mkdir(vodsDir(state), { recursive: true });
  await mkdir(join(state, 'nginx-temp'), { recursive: true });
  await stopLeftover(state, confFile, logger);
  await writeFile(confFile, nginxConfiguration(settings, callbackBase));
  const child = spawn(settings.nginxBin, ['-p', state, '-c', confFile, '-e', join(state, 'logs', 'nginx-error.log'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  const probe = (host: string) => (host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host.replace(/^\[|\]$/g, ''));
  const deadline = Date.now() + 10_000;
  // nginx writes its pid file once it has bound every port (it retries a taken one for seconds first), so a
  // port that accepts is nginx's only when the pid file names this nginx: another process on it is not.
  const pidFile = join(state, 'nginx.pid');
  const bound = () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(child.pid);
  const listening = async () =>
    bound() && (await accepts(probe(settings.rtmpListenHost), settings.rtmpPort)) && (await accepts(probe(settings.listenHost), settings.playbackPort));
  while (!(await listening())) {
    if (!running || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `nginx did not start taking RTMP on port ${settings.rtmpPort} and playback on port ${settings.playbackPort}: ${output.trim() || 'no output'} (see ${join(state, 'logs', 'nginx-error.log')})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.on('exit', (code, signal) => logger.info({ code, signal }, 'nginx exited'));
  return {
    process: child,
    async stop() {
      if (!running) return;
      // TERM is nginx's fast shutdown: encoders are dropped at once, as the provider is going away.
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
