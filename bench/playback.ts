/**
 * What the reference provider's token check costs per playback request (provider/nginx.ts: nginx asks
 * the provider with `auth_request` before each file). The provider runs as its own process (`npm run
 * provider`, so the load generator here does not share its event loop) with a registration written for
 * it (no service: nothing here calls one) and its nginx; one signed and one open
 * stream get a 150 KB fragment each (about a second of a 1.2 Mb/s rendition), and a second nginx serves
 * the same folder with no check at all. Measured: one request at a time (the latency a check adds), and
 * closed-loop load from autocannon (the requests/s nginx serves with and without the check).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { hlsDir } from '../provider/files';
import { newPlaybackKey, signPlaybackUrl } from '../shared/playbackSigning';
import { cpuMsOf, freePort, root, untilPlaybackServes } from './harness';

export interface PlaybackFigures {
  /** Milliseconds per request, one at a time, each the mean of `sequentialRequests`. */
  sequentialMs: { unchecked: number; signed: number; open: number; refused: number; nginxAlone404: number };
  sequentialRequests: number;
  /** Requests/s and latency under autocannon's closed loop. */
  load: { target: string; requestsPerSecond: number; p50Ms: number; p99Ms: number; non2xx: number; providerCpuUsPerRequest: number }[];
  connections: number;
  seconds: number;
}

const FRAGMENT_BYTES = 150_000;

/** An nginx serving `dir` as is, on `port`: the baseline. */
function uncheckedNginx(dir: string, root: string, port: number) {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const temporary = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${join(dir, name)};`).join(' ');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'logs', 'error.log')}; events {}
http { access_log off; ${temporary} sendfile on; tcp_nopush on; server { listen 127.0.0.1:${port}; root ${root}; } }`,
  );
  return spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'logs', 'error.log'), '-g', 'daemon off;'], { stdio: 'ignore' });
}

async function meanMs(url: string, requests: number): Promise<number> {
  const once = async () => {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.status;
  };
  for (let index = 0; index < 200; index += 1) await once();
  const started = performance.now();
  for (let index = 0; index < requests; index += 1) await once();
  return Math.round(((performance.now() - started) / requests) * 1000) / 1000;
}

export async function measurePlayback(sequentialRequests = 3000, connections = 32, seconds = 8): Promise<PlaybackFigures> {
  const stateDir = mkdtempSync(join(tmpdir(), 'stagegraph-bench-playback-'));
  const key = newPlaybackKey();
  const authorization = 'bench-token';
  writeFileSync(
    join(stateDir, 'registration.json'),
    JSON.stringify({ serviceUrl: 'http://127.0.0.1:9', siteId: 'bench', contractId: 'bench', authorization, playbackKey: key }),
  );
  const [port, playbackPort, rtmpPort, uncheckedPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const provider = spawn(process.execPath, ['--import', 'tsx', join(root, 'provider', 'index.ts')], {
    cwd: root,
    stdio: 'ignore',
    env: {
      ...process.env,
      PROVIDER_STATE_DIR: stateDir,
      PROVIDER_PORT: String(port),
      PROVIDER_PLAYBACK_PORT: String(playbackPort),
      RTMP_PORT: String(rtmpPort),
      PROVIDER_LISTEN_HOST: '127.0.0.1',
      RTMP_LISTEN_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
  });
  await untilPlaybackServes(provider, `http://127.0.0.1:${playbackPort}/`);
  const unchecked = uncheckedNginx(join(stateDir, 'unchecked'), hlsDir(stateDir), uncheckedPort);
  try {
    const create = async (signed: boolean) => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/createStream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${authorization}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'bench', fallbackImageUrl: 'https://images.bench.test/a.png', ...(signed ? { playbackPolicy: 'signed' } : {}) }),
      });
      return (await response.json()) as { streamKey: string; playbackUrl: string };
    };
    const [signed, open] = [await create(true), await create(false)];
    for (const stream of [signed, open]) {
      const file = join(hlsDir(stateDir), `${stream.streamKey}-1.ts`);
      writeFileSync(file, Buffer.alloc(FRAGMENT_BYTES, 0x47));
      // nginx's RTMP module removes fragments older than twice its playlist (hls_cleanup): these stay young.
      const later = Date.now() / 1000 + 3600;
      utimesSync(file, later, later);
    }
    const urls = {
      unchecked: `http://127.0.0.1:${uncheckedPort}/${open.streamKey}-1.ts`,
      signed: signPlaybackUrl(signed.playbackUrl, key, Math.floor(Date.now() / 1000) + 3600).replace('.m3u8', '-1.ts'),
      open: open.playbackUrl.replace('.m3u8', '-1.ts'),
      nginxAlone404: `http://127.0.0.1:${playbackPort}/nothing`,
    };
    const refused = urls.signed.replace(/\/t\/(\d+)\./, (_whole, expires: string) => `/t/${Number(expires) + 1}.`);
    const statuses = await Promise.all([urls.unchecked, urls.signed, urls.open, refused].map(async (url) => (await fetch(url)).status));
    if (statuses.join() !== '200,200,200,403') throw new Error(`playback bench: unexpected statuses ${statuses.join()}`);

    const sequentialMs = {
      unchecked: await meanMs(urls.unchecked, sequentialRequests),
      signed: await meanMs(urls.signed, sequentialRequests),
      open: await meanMs(urls.open, sequentialRequests),
      refused: await meanMs(refused, sequentialRequests),
      nginxAlone404: await meanMs(urls.nginxAlone404, sequentialRequests),
    };
    const load: PlaybackFigures['load'] = [];
    for (const [target, url] of [
      ['fragment, no check', urls.unchecked],
      ['fragment, signed (checked)', urls.signed],
    ] as const) {
      // The provider's process (its token checks; nginx is a process of its own) CPU time over the run, per request.
      const cpuBefore = cpuMsOf(provider.pid!);
      const result = await autocannon({ url, connections, duration: seconds });
      const providerCpuUsPerRequest = Math.round(((cpuMsOf(provider.pid!) - cpuBefore) * 1000) / Math.max(1, result.requests.total));
      load.push({
        target,
        requestsPerSecond: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        non2xx: result.non2xx,
        providerCpuUsPerRequest,
      });
    }
    return { sequentialMs, sequentialRequests, load, connections, seconds };
  } finally {
    unchecked.kill('SIGTERM');
    const exited = new Promise((resolve) => provider.once('exit', resolve));
    provider.kill('SIGTERM'); // it stops its nginx
    await exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** `npm run bench -- playback`: the figures, printed and kept under `figures.playback`. */
export async function playbackSection(figures: Record<string, unknown>): Promise<void> {
  const playback = await measurePlayback();
  figures.playback = playback;
  console.log('\nplayback at the reference provider: nginx with its token check (auth_request) beside nginx with none, 150 KB fragments');
  console.table(playback.sequentialMs);
  console.table(playback.load);
  console.log(
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
}
