/**
 * The cold fan-out (`npm run bench -- fanout-cold`): the first broadcast after the audience arrives, measured
 * as a new user would — BENCH_VIEWERS (default 15,000) graphql-ws viewers join one instance, then one broadcast,
 * no warm-up, no CPU placement — beside the floor (a bare Node + ws server, the same clients) done the same
 * way in the same run, BENCH_FANOUT_COLD_RUNS times (default 5). Each run prints its p50 and p99 beside the
 * floor's, and both servers' garbage collections during the broadcast (stagegraph's from its /metrics, the
 * floor's from perf_hooks), which is where a cold broadcast's extra time goes. Target: p99 ≤ 1.1× the floor's
 * in every run.
 */
import { loadavg } from 'node:os';
import { measureFanout, measureFanoutFloor, type GcPauses } from './fanout';
import type { Figures } from './gatewaySections';

const gcText = (gc: GcPauses | undefined) => (gc ? `${gc.count} / ${gc.ms} ms${gc.maxMs === null ? '' : ` (longest ${gc.maxMs} ms)`}` : '—');

export async function fanoutColdSection(figures: Figures, viewers: number): Promise<void> {
  const repeat = Number(process.env.BENCH_FANOUT_COLD_RUNS ?? 5);
  const runs = [];
  for (let run = 0; run < repeat; run += 1) {
    const ours = await measureFanout(viewers, [], undefined, { cold: true });
    const floor = await measureFanoutFloor(viewers, false, true);
    runs.push({ ours, floor, ratio: ours.p99Ms / floor.p99Ms });
  }
  figures.fanoutCold = runs;
  console.log(
    `\ncold fan-out: ${viewers} viewers join one instance, then one broadcast (no warm-up, no CPU placement), ${repeat} runs, ` +
      `each beside the floor done the same way right after it; load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  console.table(
    runs.map(({ ours, floor, ratio }, run) => ({
      run: run + 1,
      received: ours.received,
      'p50 ms': ours.p50Ms,
      'p99 ms': ours.p99Ms,
      'floor p50 ms': floor.p50Ms,
      'floor p99 ms': floor.p99Ms,
      'p99 / floor': ratio.toFixed(2),
      'GCs during it (count / total)': gcText(ours.gc),
      'floor GCs during it': gcText(floor.gc),
    })),
  );
  const ratios = runs.map((run) => run.ratio);
  console.log(
    `p99 / floor per run ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')} (worst ${Math.max(...ratios).toFixed(2)}×; target ≤ 1.10× in every run)`,
  );
}
