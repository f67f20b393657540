/**
 * The live path's sections of `npm run bench` (bench/run.ts runs them): the fan-out to one instance's viewers
 * (BENCH_REPEAT runs, each beside its own floor), two instances on PostgreSQL + Redis, chat with reactions, and
 * the join and reconnect storms. Each prints its table and puts its figures in `figures`.
 */
import { loadavg } from 'node:os';
import { measureChat, startFloor, type ChatFigures } from './chat';
import { measureFanout, measureFanoutFloor } from './fanout';
import type { Figures } from './gatewaySections';
import { startInstance, startPostgres, startRedis } from './harness';
import { measureJoinFloor, measureJoinStorms, type JoinFigures } from './join';

/**
 * Fan-out on one instance, BENCH_REPEAT times (default BENCH_FANOUT_RUNS, else 3), each run on a fresh
 * instance followed by the floor (a bare Node + ws server, the same clients) in the same run: every run
 * is printed beside its own floor, with the median and the spread, never a best run. The signed-in runs
 * (watch time off and on) follow unless BENCH_FANOUT_SIGNED_IN=false.
 */
export async function fanoutSection(figures: Figures, viewers: number): Promise<void> {
  const repeat = Number(process.env.BENCH_REPEAT ?? process.env.BENCH_FANOUT_RUNS ?? 3);
  const runs = [];
  const floors: Awaited<ReturnType<typeof measureFanoutFloor>>[] = [];
  for (let run = 0; run < repeat; run += 1) {
    runs.push(await measureFanout(viewers));
    floors.push(await measureFanoutFloor(viewers, true));
  }
  figures.fanout = runs;
  figures.fanoutFloor = floors;
  const ratios = runs.map((fanout, run) => fanout.p99Ms / floors[run].p99Ms);
  console.log(
    `\nfan-out: broadcasts to live viewers on one instance (per run ${process.env.BENCH_FANOUT_WARMUPS ?? 5} that warm the path, then ${process.env.BENCH_FANOUT_BROADCASTS ?? 100} measured, their receipts pooled), ` +
      `${runs.length} runs, each beside the floor (bare Node + ws, same clients, measured the same way) run right after it; load average ${loadAverage()}`,
  );
  console.table(
    runs.map((fanout, run) => ({
      run: run + 1,
      viewers: fanout.viewers,
      received: fanout.received,
      'p50 ms': fanout.p50Ms,
      'p99 ms': fanout.p99Ms,
      'max ms': fanout.maxMs,
      'each broadcast p99 ms': fanout.broadcastP99Ms.join(' '),
      'KB per idle viewer': fanout.memoryPerViewerKB,
      'floor received': floors[run].received,
      'floor p50 ms': floors[run].p50Ms,
      'floor p99 ms': floors[run].p99Ms,
      'floor each broadcast p99 ms': floors[run].broadcastP99Ms.join(' '),
      'p99 / floor': ratios[run].toFixed(2),
    })),
  );
  const p99s = runs.map((fanout) => fanout.p99Ms);
  const worst = Math.max(...p99s);
  const medianP99 = median(p99s);
  console.log(
    `p99 median ${medianP99} ms, spread ${Math.min(...p99s)}–${worst} ms (${(((worst - Math.min(...p99s)) / medianP99) * 100).toFixed(1)} % of the median; target ≤ 10 %); ` +
      `p99 / floor per run ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}×, worst ${Math.max(...ratios).toFixed(2)}×; target ≤ 1.10× in every run)`,
  );
  console.log(
    `targets: p99 ≤ 350 ms (worst run ${(worst / 350).toFixed(2)}× of target), ` +
      `≤ 15 KB per idle viewer (worst run ${(Math.max(...runs.map((fanout) => fanout.memoryPerViewerKB)) / 15).toFixed(2)}× of target)`,
  );
  if (process.env.BENCH_FANOUT_SIGNED_IN === 'false') return;
  // The same with every viewer signed in, watch time counted for a quest (WATCH_TIME on, the default)
  // and not (WATCH_TIME=false), side by side: what counting costs the fan-out (docs/design.md: nothing
  // measurable), with the watch-time rows and statements written while the viewers watched.
  const signedIn: Record<string, Awaited<ReturnType<typeof measureFanout>>[]> = { 'watch time off': [], 'watch time on': [] };
  for (let run = 0; run < Number(process.env.BENCH_FANOUT_RUNS ?? 3); run += 1) {
    signedIn['watch time off'].push(await measureFanout(viewers, [], undefined, { signedIn: true, env: { WATCH_TIME: 'false' } }));
    signedIn['watch time on'].push(await measureFanout(viewers, [], undefined, { signedIn: true }));
  }
  figures.fanoutSignedIn = signedIn;
  console.log(`\nfan-out with signed-in viewers, watch time for quests off and on (WATCH_FLUSH_MS default), ${signedIn['watch time on'].length} runs each`);
  console.table(
    Object.entries(signedIn).flatMap(([mode, list]) =>
      list.map((fanout) => ({
        mode,
        viewers: fanout.viewers,
        received: fanout.received,
        'p50 ms': fanout.p50Ms,
        'p99 ms': fanout.p99Ms,
        'max ms': fanout.maxMs,
        'KB per idle viewer': fanout.memoryPerViewerKB,
        'watched s': Math.round(fanout.watchedMs / 1000),
        'watch-time rows': fanout.watchTimeRows,
        'watch-time statements': fanout.watchTimeStatements,
      })),
    ),
  );
  const medianRun = (list: { p99Ms: number }[]) => median(list.map((fanout) => fanout.p99Ms));
  const on = signedIn['watch time on'];
  console.log(
    `p99 watch time on / off (median runs) = ${(medianRun(on) / medianRun(signedIn['watch time off'])).toFixed(2)}×; target p99 ≤ 350 ms (worst run with watch time ${(Math.max(...on.map((fanout) => fanout.p99Ms)) / 350).toFixed(2)}× of target)`,
  );
}

/** The middle value (the upper middle of an even count). */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The machine's load average (1, 5, 15 min): the machine is shared, so every section says how busy it was. */
const loadAverage = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(' / ');

export async function twoInstancesSection(figures: Figures, viewers: number): Promise<void> {
  const redis = await startRedis();
  if (redis) {
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'bench' };
    const first = await startInstance({ env });
    const second = await startInstance({ shareWith: first, env });
    const two = await measureFanout(viewers * 2, [first, second]);
    await Promise.all([first.stop(), second.stop()]);
    await redis.stop();
    figures.fanoutTwoInstances = two;
    console.log('\nfan-out: two instances behind Redis, the broadcast sent to one of them');
    console.table([
      {
        viewers: two.viewers,
        received: two.received,
        'p50 ms': two.p50Ms,
        'p99 ms': two.p99Ms,
        'max ms': two.maxMs,
        'KB per idle viewer': two.memoryPerViewerKB,
      },
    ]);
    const one = (figures.fanout as { p99Ms: number }[] | undefined)?.map((run) => run.p99Ms).sort((a, b) => a - b);
    if (one?.length) console.log(`p99 two instances / one instance (its median run) = ${(two.p99Ms / one[Math.floor(one.length / 2)]).toFixed(2)}×`);
  } else {
    figures.fanoutTwoInstances = 'not measured: redis-server is not installed here';
    console.log('\nfan-out across two instances: not measured (redis-server is not installed here)');
  }
}

/**
 * Chat: BENCH_CHAT_VIEWERS (default BENCH_VIEWERS) viewers in one room, 1,000 signed-in senders posting
 * BENCH_CHAT_RATE (20) messages/s in all and 2,000 accounts reacting BENCH_CHAT_REACTIONS (5,000) times a second,
 * for BENCH_CHAT_SECONDS (30) s: one instance on SQLite, the floor
 * (a bare Node + ws server sending the same batched frames to the same clients), and two instances on
 * PostgreSQL + Redis when their binaries are installed. With BENCH_BEFORE_DIST, one instance of that build
 * too, in the same run.
 */
export async function chatSection(figures: Figures, viewers: number): Promise<void> {
  const count = Number(process.env.BENCH_CHAT_VIEWERS ?? viewers);
  const shape = {
    ratePerSecond: Number(process.env.BENCH_CHAT_RATE ?? 20),
    seconds: Number(process.env.BENCH_CHAT_SECONDS ?? 30),
    senders: 1000,
    reactionsPerSecond: Number(process.env.BENCH_CHAT_REACTIONS ?? 5000),
  };
  const rows: ChatFigures[] = [];
  for (const [build, dist] of builds()) {
    const one = await startInstance({ dist });
    const row = await measureChat(count, { ...shape, instances: [one] }).finally(() => one.stop());
    rows.push(dist ? { ...row, target: `${row.target}, ${build}` } : row);
  }
  const floor = await startFloor();
  rows.push(await measureChat(count, { ...shape, floor }));
  await floor.stop();
  if (process.env.BENCH_CHAT_TWO !== 'false') {
    const postgres = await startPostgres();
    const redis = postgres && (await startRedis());
    if (postgres && redis) {
      const env = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, REDIS_PREFIX: 'bench-chat' };
      const first = await startInstance({ env });
      const second = await startInstance({ shareWith: first, env });
      const two = await measureChat(count, { ...shape, instances: [first, second] });
      rows.push({ ...two, target: 'stagegraph × 2, PostgreSQL + Redis' });
      await Promise.all([first.stop(), second.stop()]);
    }
    await redis?.stop();
    await postgres?.stop();
  }
  figures.chat = rows;
  console.log(
    `\nchat: ${count} viewers in one room, ${shape.senders} signed-in senders, ${shape.ratePerSecond} messages/s and ${shape.reactionsPerSecond} reactions/s for ${shape.seconds} s`,
  );
  console.table(
    rows.map((row) => ({
      target: row.target,
      viewers: row.viewers,
      messages: row.messages,
      'send failures': row.sendFailures,
      'viewers with all, in order': row.completeViewers,
      missing: row.missing,
      disorder: row.disorder,
      'ack p50 ms': row.ackP50Ms,
      'ack p99 ms': row.ackP99Ms,
      'ack→viewer p50 ms': row.deliveryP50Ms,
      'ack→viewer p99 ms': row.deliveryP99Ms,
      'send→viewer p99 ms': row.sendToViewerP99Ms,
      'frames/s per viewer': row.meanFramesPerSecond,
      'most frames in 1 s': row.maxFramesPerSecond,
      'reactions sent': row.reactionsSent,
      'reactions accepted': row.reactionsAccepted,
      'viewers with exact reaction counts': row.exactReactionViewers,
    })),
  );
  for (const row of rows)
    if (row.reactionsSent > 0)
      console.log(
        `${row.target}: reaction answers ${JSON.stringify(row.reactionStatuses)}, reaction ack p50 ${row.reactionAckP50Ms} ms, p99 ${row.reactionAckP99Ms} ms`,
      );
  const stagegraph = rows[0];
  const bare = rows.find((row) => row.target.startsWith('floor')) as ChatFigures;
  console.log(
    `targets: ack p99 ≤ 250 ms (${stagegraph.ackP99Ms}), ack→viewer p99 ≤ 1000 ms (${stagegraph.deliveryP99Ms}), ≤ 4 frames/s (mean ${stagegraph.meanFramesPerSecond}, most in any 1 s ${stagegraph.maxFramesPerSecond}); ` +
      `ack→viewer p99 stagegraph / floor = ${(stagegraph.deliveryP99Ms / bare.deliveryP99Ms).toFixed(2)}×; ` +
      `send→viewer p99 stagegraph / floor = ${(stagegraph.sendToViewerP99Ms / bare.sendToViewerP99Ms).toFixed(2)}×; ` +
      `reactions accepted ${stagegraph.reactionsAccepted} of ${stagegraph.reactionsSent} sent (${shape.reactionsPerSecond * shape.seconds} meant), counts exact at ${stagegraph.exactReactionViewers} of ${stagegraph.viewers} viewers`,
  );
}

/**
 * BENCH_BEFORE_DIST names the dist folder of an earlier build: sections that support it measure that
 * build too, in the same run, so before and after are side by side under the same load.
 */
export const builds = (): [string, string | undefined][] => [
  ['after', undefined],
  ...(process.env.BENCH_BEFORE_DIST ? [['before', process.env.BENCH_BEFORE_DIST] as [string, string]] : []),
];

/**
 * Join and reconnect storms of N viewers on one instance (SQLite, then PostgreSQL + Redis when installed;
 * each build of `builds()`), and the floor in the same run: the same clients against bench/floor.ts.
 */
export async function joinSection(figures: Figures, viewers: number): Promise<void> {
  const rows: Record<string, unknown> = {};
  const results: Record<string, JoinFigures> = {};
  const measure = async (label: string, env: Record<string, string>) => {
    for (const [build, dist] of builds()) {
      const result = await measureJoinStorms(viewers, env, dist);
      const name = `${label}${dist ? `, ${build}` : ''}`;
      results[name] = result;
      for (const [storm, figure] of Object.entries(result)) {
        rows[`${storm} storm, ${name}`] = {
          viewers: figure.viewers,
          failures: figure.failures,
          seconds: figure.seconds,
          'viewers/s': figure.perSecond,
          'database queries': figure.databaseQueries,
        };
      }
    }
  };
  await measure('SQLite', {});
  const postgres = await startPostgres();
  const redis = postgres && (await startRedis());
  if (postgres && redis) await measure('PostgreSQL + Redis', { DATABASE_URL: postgres.url, REDIS_URL: redis.url, REDIS_PREFIX: 'bench-join' });
  await redis?.stop();
  await postgres?.stop();
  // The floor in the same run: the machine is shared, so a storm's time means something beside it only.
  const floor = await measureJoinFloor(viewers);
  results['floor (bare Node + ws)'] = floor;
  for (const [storm, figure] of Object.entries(floor)) {
    rows[`${storm} storm, floor (bare Node + ws)`] = {
      viewers: figure.viewers,
      failures: figure.failures,
      seconds: figure.seconds,
      'viewers/s': figure.perSecond,
      'database queries': 0,
    };
  }
  figures.joinStorm = results;
  console.log(`\njoin and reconnect storms: ${viewers} viewers on one channel of one instance`);
  console.table(rows);
  for (const [label, result] of Object.entries(results)) {
    console.log(
      `${label}: join ${result.join.seconds} s, reconnect ${result.reconnect.seconds} s (targets ≤ 10 s: ${(result.join.seconds / 10).toFixed(2)}×, ${(result.reconnect.seconds / 10).toFixed(2)}× of target); ` +
        `database queries per viewer: join ${(result.join.databaseQueries / viewers).toFixed(3)}, reconnect ${(result.reconnect.databaseQueries / viewers).toFixed(4)}`,
    );
    if (result !== floor)
      console.log(
        `  beside the floor: join ${(result.join.seconds / floor.join.seconds).toFixed(2)}×, reconnect ${(result.reconnect.seconds / floor.reconnect.seconds).toFixed(2)}×`,
      );
    for (const storm of [result.join, result.reconnect]) if (storm.firstFailure) console.log(`  first failure: ${storm.firstFailure}`);
  }
  if (!postgres) console.log('PostgreSQL + Redis: not measured (postgres binaries or redis-server not installed here)');
}
