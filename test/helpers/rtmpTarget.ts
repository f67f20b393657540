/**
 * Another platform's RTMP ingest, as a simulcast test needs one: a second nginx with Debian's RTMP module on a
 * free loopback port, recording whatever is published to its `live` application into `<folder>/<key>.flv`,
 * which ffprobe then reads. Stopped (and its folder removed) by stop().
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from '../../scripts/services';
import { stopChild } from './referenceProvider';

export interface RtmpTarget {
  /** rtmp://127.0.0.1:<port>/live: what a simulcast target's url names. */
  url: string;
  port: number;
  /** The file a stream published under `key` is recorded to. */
  recordingOf(key: string): string;
  stop(): Promise<void>;
}

export async function startRtmpTarget(): Promise<RtmpTarget> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-rtmp-target-'));
  const recordings = join(dir, 'recordings');
  mkdirSync(recordings);
  // nginx's workers run as nobody when the test runs as root: they must write the recordings.
  chmodSync(dir, 0o755);
  chmodSync(recordings, 0o777);
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 64; }
rtmp {
  access_log ${join(dir, 'access.log')};
  server {
    listen 127.0.0.1:${port};
    application live {
      live on;
      record all;
      record_path ${recordings};
    }
  }
}
`,
  );
  const child = spawn('nginx', ['-p', dir, '-c', conf, '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: 'ignore' });
  if (!(await waitForPort(port, 10_000))) {
    await stopChild(child, 'SIGKILL');
    throw new Error(`the RTMP target's nginx did not listen on port ${port}`);
  }
  return {
    url: `rtmp://127.0.0.1:${port}/live`,
    port,
    recordingOf: (key) => join(recordings, `${key}.flv`),
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
