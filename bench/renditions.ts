/**
 * The renditions' section of `npm run bench` (bench/run.ts runs it): what one rendition of the reference
 * provider's ladder costs per stream-second (docs/show.md, "Renditions"). A real nginx with its RTMP module
 * and the provider's own ladder configuration (provider/renditions.ts, without the provider's callbacks)
 * takes a 1280x720 30 fps test pattern from ffmpeg in real time; the CPU time of the ladder's ffmpeg (the
 * exec_push child, from /proc/<pid>/stat) over a measured span, divided by the stream seconds of that span,
 * is its cost. Each ladder is measured in turn: `source` alone (copied: the pass-through every ladder pays)
 * and `source` with each rung, so a rung's cost is the difference, printed beside source's as a ratio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { transcodingApplications, type RenditionName } from '../provider/renditions';
import { freePort } from '../scripts/services';
import type { Figures } from './gatewaySections';

/** Seconds the ladder runs before the span is measured (ffmpeg's start, x264's lookahead). */
const WARMUP_SECONDS = 4;
/** Stream seconds measured per ladder. */
const SPAN_SECONDS = 15;
/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

const LADDERS: RenditionName[][] = [['source'], ['source', '720p'], ['source', '480p'], ['source', '240p'], ['source', '720p', '480p', '240p']];

/** User + system CPU seconds a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start after its closing parenthesis: utime is the 14th field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The ladder's ffmpeg for `streamKey`: the process whose command line publishes into the ladder application. */
function ladderProcess(streamKey: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (commandLine.includes(`/ladder/${streamKey}_`)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

const stop = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()).kill('SIGTERM'));

/** The ladder's CPU seconds per stream second, with nginx and the encoder started for it and stopped after. */
async function measureLadder(renditions: RenditionName[]): Promise<number> {
  const state = mkdtempSync(join(tmpdir(), 'stagegraph-bench-ladder-'));
  const rtmpPort = await freePort();
  mkdirSync(join(state, 'hls'));
  const ladder = transcodingApplications({ renditions, hlsFragmentSeconds: 1, dvrSeconds: 60, rtmpPort, rtmpListenHost: '127.0.0.1' }, join(state, 'hls'));
  const conf = join(state, 'nginx.conf');
  writeFileSync(
    conf,
    `load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
worker_processes 1;
pid ${join(state, 'nginx.pid')};
error_log ${join(state, 'error.log')} warn;
env PATH;
events { worker_connections 256; }
rtmp {
  access_log off;
  server {
    listen 127.0.0.1:${rtmpPort};
    application live {
      live on;
${ladder.live}    }
${ladder.applications}  }
}
`,
  );
  const nginx = spawn('nginx', ['-p', state, '-c', conf, '-e', join(state, 'error.log'), '-g', 'daemon off;'], { stdio: 'ignore' });
  const key = `bench${rtmpPort}`;
  let encoder: ChildProcess | null = null;
  try {
    await pause(500);
    encoder = spawn(
      'ffmpeg',
      [
        ...['-loglevel', 'error', '-nostdin', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440'],
        ...[
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-tune',
          'zerolatency',
          '-g',
          '30',
          '-c:a',
          'aac',
          '-f',
          'flv',
          `rtmp://127.0.0.1:${rtmpPort}/live/${key}`,
        ],
      ],
      { stdio: 'ignore' },
    );
    let pid: number | null = null;
    for (let waited = 0; pid === null && waited < 100; waited += 1) {
      await pause(100);
      pid = ladderProcess(key);
    }
    if (pid === null) throw new Error(`the ladder's ffmpeg did not start (see ${join(state, 'error.log')})`);
    await pause(WARMUP_SECONDS * 1000);
    const [cpuBefore, before] = [cpuSeconds(pid), performance.now()];
    await pause(SPAN_SECONDS * 1000);
    const [cpuAfter, after] = [cpuSeconds(pid), performance.now()];
    return (cpuAfter - cpuBefore) / ((after - before) / 1000);
  } finally {
    if (encoder) await stop(encoder);
    await stop(nginx);
    rmSync(state, { recursive: true, force: true });
  }
}

/** Measures each ladder in turn, prints the table and puts the figures in `figures.renditions`. */
export async function renditionsSection(figures: Figures): Promise<void> {
  const costs = new Map<string, number>();
  for (const ladder of LADDERS) costs.set(ladder.join(','), await measureLadder(ladder));
  const source = costs.get('source')!;
  const rows = LADDERS.map((ladder) => {
    const cost = costs.get(ladder.join(','))!;
    const rungs = ladder.length - 1;
    const perRendition = rungs === 0 ? source : (cost - source) / rungs;
    return {
      ladder: ladder.join(','),
      'ladder CPU s per stream s': Number(cost.toFixed(3)),
      'one rendition CPU s per stream s': Number(perRendition.toFixed(3)),
      'ratio to source alone': Number((perRendition / source).toFixed(1)),
    };
  });
  console.log(
    `\nrenditions: the ladder's ffmpeg at the reference provider, a 1280x720 30 fps source, CPU seconds per stream second (load average ${loadavg()[0].toFixed(1)})`,
  );
  console.table(rows);
  figures.renditions = { sourceCpuPerStreamSecond: source, ladders: rows };
}
