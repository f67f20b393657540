/**
 * The show's section of `npm run bench` (bench/run.ts runs it): the go-live of one channel's viewers, open and
 * gated, beside the fan-out floor. Prints its table and puts its figures in `figures`.
 */
import { loadavg } from 'node:os';
import { measureFanoutFloor } from './fanout';
import type { Figures } from './gatewaySections';
import { measureShow, signingCostUs } from './show';

/**
 * The show: N viewers on channelStatus, then the stream's `active` webhook; p99 from the webhook to each
 * viewer holding the live URL, on an open channel (the URL in the push) and behind a login gate (each
 * signed-in viewer's own signed URL in the push, else the content check it asks), beside the fan-out floor
 * (bench/floor.ts: a bare ws server sending one frame to as many of the same clients) in the same run.
 */
export async function showSection(figures: Figures, viewers: number): Promise<void> {
  const runs = [await measureShow(viewers, false), await measureShow(viewers, true)];
  const floor = await measureFanoutFloor(viewers);
  console.log(`\nthe show: the active webhook → ${viewers} viewers of one channel holding the live URL (one instance)`);
  console.log(
    'reads per change: SELECT statements the instance sent from the webhook until the last viewer held the URL, less the webhook’s own and the background jobs’ (below)',
  );
  console.table([
    ...runs.map((run) => ({
      target: `stagegraph, ${run.channel} channel`,
      viewers: run.viewers,
      'holding URL': run.holding,
      'from the push': run.fromPush,
      'check failures': run.checkFailures,
      'first ms': run.firstMs,
      'p50 ms': run.p50Ms,
      'p99 ms': run.p99Ms,
      'max ms': run.maxMs,
      'reads per change': run.readsPerChange,
      'statements per change': run.statementsPerChange,
      'instance CPU µs per viewer': run.instanceCpuPerViewerUs,
    })),
    {
      target: 'floor (bare ws, one frame)',
      viewers: floor.viewers,
      'holding URL': floor.received,
      'from the push': floor.received,
      'check failures': 0,
      'first ms': NaN,
      'p50 ms': floor.p50Ms,
      'p99 ms': floor.p99Ms,
      'max ms': NaN,
      'reads per change': NaN,
      'statements per change': NaN,
      'instance CPU µs per viewer': NaN,
    },
  ]);
  const signing = signingCostUs();
  figures.show = { runs, floor, signingPerViewerUs: signing };
  console.log(
    `signing: the gated channel's URLs are signed, at most one HMAC-SHA256 per viewer and no database read (viewers in the same second share one signature): ${signing} µs per signature`,
  );
  for (const run of runs) {
    console.log(
      `${run.channel}: the webhook's own path (the same webhook to a twin channel no one watches) read ${run.webhookReads} times ` +
        `in ${run.webhookStatements} statements, left out above, as are the background jobs' reads (${run.quietReadsPerSecond}/s while quiet) ` +
        `over the ${run.windowSeconds} s (all reads in it: ${run.readsInWindow}); ` +
        `viewers lost before the show: ${run.lost}; sockets closed before their viewer was in (opened again): ${JSON.stringify(run.closedBeforeIn)}`,
    );
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
}
