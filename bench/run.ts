/**
 * `npm run bench`: builds, starts what it measures, prints a table of side-by-side figures and writes
 * them to bench/results/latest.json. BENCH_VIEWERS sets the number of live viewers (default 15000).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureFanout } from './fanout';
import { root } from './harness';

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const viewers = Number(process.env.BENCH_VIEWERS ?? 15000);
  const figures: Record<string, unknown> = {};

  const fanout = await measureFanout(viewers);
  figures.fanout = fanout;
  console.log('\nfan-out: one broadcast to live viewers on one instance');
  console.table([{ viewers: fanout.viewers, received: fanout.received, 'p50 ms': fanout.p50Ms, 'p99 ms': fanout.p99Ms, 'max ms': fanout.maxMs, 'KB per idle viewer': fanout.memoryPerViewerKB }]);
  console.log(`targets: p99 ≤ 350 ms (${(fanout.p99Ms / 350).toFixed(2)}× of target), ≤ 15 KB per idle viewer (${(fanout.memoryPerViewerKB / 15).toFixed(2)}× of target)`);

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'latest.json'), `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
