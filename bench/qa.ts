/**
 * Audience Q&A (`npm run bench -- qa`): N viewers in one room (BENCH_QA_VIEWERS, default BENCH_VIEWERS)
 * subscribed to qaRoom with the site ID, while signed-in voters (bench/socketActors.ts, each on its own
 * socket, as the watch page votes) upvote the room's questions at BENCH_QA_RATE votes/s (default 2,000) for
 * BENCH_QA_SECONDS (default 30), each voter taking each question at most once. Reported: the votes
 * acknowledged and their p50/p99, the viewers whose last room shows every question's exact count (what
 * the acknowledgements add up to), any count that went back, and the most frames one viewer got within a
 * second (and the shortest gap between two), and the server's CPU per vote (a figure other work on the machine
 * does not move, where the latencies move with it). Beside the floor (bench/floor.ts): the same viewer and voter
 * clients on a bare Node + ws server that answers each vote at once and pushes the room once a second.
 */
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { viewerAccounts } from './answers';
import { startFloor, type Floor } from './chat';
import { callJson, cpuMsOf, createSite, request, startInstance, startWorker, type Instance } from './harness';

export interface QaFigures {
  target: string;
  viewers: number;
  questions: number;
  votesSent: number;
  votesAcknowledged: number;
  voteStatuses: Record<string, number>;
  ackP50Ms: number;
  ackP99Ms: number;
  /** Viewers whose last room shows every question's exact count. */
  exactViewers: number;
  decreases: number;
  maxFramesPerSecond: number;
  minGapMs: number;
  /** The server's CPU while the votes went (user + system): per vote acknowledged, and in cores busy. */
  serverCpuPerVoteMs: number;
  serverCores: number;
}

interface QaShape {
  ratePerSecond: number;
  seconds: number;
  /** Voters (signed-in accounts, a socket each). */
  voters: number;
}

const VOTE_MUTATION = 'mutation($panelId: ID!, $questionId: ID!) { voteQaQuestion(panelId: $panelId, questionId: $questionId) { votes } }';
const round = (value: number) => Math.round(value * 10) / 10;

/** A room with `questions` questions, each asked by an account of its own (one question a minute each). */
async function roomOf(instance: Instance, count: number): Promise<{ siteId: string; panelId: string; questionIds: string[] }> {
  const site = createSite(instance);
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const panel = await callJson(instance, 'POST', '/panel/v3/', admin, { siteId: site.siteId, renderer: { panel_type: 'qa', panel_name: 'Bench Q&A' } });
  const askers = await viewerAccounts(instance, site.siteId, count);
  const questionIds: string[] = [];
  for (const [index, token] of askers.entries()) {
    const headers = { 'x-service-client-id': site.siteId, authorization: `Bearer ${token}` };
    questionIds.push((await callJson(instance, 'POST', `/qa/v1/${panel._id}/questions`, headers, { text: `Bench question ${index}?` })).id as string);
  }
  return { siteId: site.siteId, panelId: panel._id as string, questionIds };
}

export async function measureQa(viewers: number, shape: QaShape, target: { instance: Instance } | { floor: Floor }): Promise<QaFigures> {
  const total = Math.round(shape.ratePerSecond * shape.seconds);
  // Enough questions that no voter needs one twice: each voter takes them in turn from an offset of its own.
  const questionCount = Math.max(2, Math.ceil(total / shape.voters) + 1);
  let siteId = 'floor';
  let panelId = 'floor';
  let questionIds = Array.from({ length: questionCount }, (_, index) => `floor-question-${index}`);
  let tokens = Array.from({ length: shape.voters }, (_, index) => `floor-${index}`);
  const url = 'floor' in target ? target.floor.url : target.instance.url;
  if ('instance' in target) {
    ({ siteId, panelId, questionIds } = await roomOf(target.instance, questionCount));
    tokens = await viewerAccounts(target.instance, siteId, shape.voters);
  }

  const perWorker = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
  const workers: ChildProcess[] = Array.from({ length: Math.ceil(viewers / perWorker) }, () => startWorker('qaViewers.ts'));
  let assigned = 0;
  const ready = await Promise.all(
    workers.map((worker) => {
      const count = Math.min(perWorker, viewers - assigned);
      assigned += count;
      return request(worker, { type: 'start', url: `${url.replace('http', 'ws')}/graphql`, siteId, panelId, count, concurrency: 200 }, 'ready');
    }),
  );
  const voter = startWorker('socketActors.ts');
  const start = {
    type: 'start',
    urls: [url],
    siteId,
    panelId,
    tokens,
    query: VOTE_MUTATION,
    variable: 'questionId',
    choices: questionIds,
    pick: 'own',
    ratePerSecond: shape.ratePerSecond,
    seconds: shape.seconds,
    inFlight: 2000,
  };
  await request(voter, start, 'ready');
  const pid = 'floor' in target ? target.floor.pid : target.instance.pid;
  const [cpuBefore, startedAt] = [cpuMsOf(pid), performance.now()];
  const voted = await request(voter, { type: 'go' }, 'reacted');
  const [cpuMs, tookMs] = [cpuMsOf(pid) - cpuBefore, performance.now() - startedAt];
  voter.send({ type: 'close' });
  // The last second's votes reach every viewer with the next push (at most a second, and the room's read).
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const expected: Record<string, number> = Object.fromEntries(questionIds.map((id) => [id, voted.accepted[id] ?? 0]));
  const reports = await Promise.all(workers.map((worker) => request(worker, { type: 'report', expected }, 'receipts')));
  for (const worker of workers) worker.send({ type: 'close' });
  const acknowledged = Object.values(voted.accepted as Record<string, number>).reduce((sum, count) => sum + count, 0);
  return {
    target: 'floor' in target ? 'floor: bare Node + ws' : 'stagegraph × 1',
    viewers: ready.reduce((sum, reply) => sum + reply.open, 0),
    questions: questionCount,
    votesSent: voted.sent,
    votesAcknowledged: acknowledged,
    voteStatuses: voted.statuses,
    ackP50Ms: voted.ackP50Ms,
    ackP99Ms: voted.ackP99Ms,
    exactViewers: reports.reduce((sum, report) => sum + report.exact, 0),
    decreases: reports.reduce((sum, report) => sum + report.decreases, 0),
    maxFramesPerSecond: Math.max(...reports.map((report) => report.maxFramesPerSecond)),
    minGapMs: round(Math.min(...reports.map((report) => report.minGapMs))),
    serverCpuPerVoteMs: Math.round((cpuMs / Math.max(1, acknowledged)) * 1000) / 1000,
    serverCores: Math.round((cpuMs / tookMs) * 100) / 100,
  };
}

/** The section: stagegraph on one instance (SQLite), then the floor with the same clients; figures as ratios beside it. */
export async function qaSection(figures: Record<string, unknown>, defaultViewers: number): Promise<void> {
  const viewers = Number(process.env.BENCH_QA_VIEWERS ?? defaultViewers);
  const shape: QaShape = {
    ratePerSecond: Number(process.env.BENCH_QA_RATE ?? 2000),
    seconds: Number(process.env.BENCH_QA_SECONDS ?? 30),
    voters: Number(process.env.BENCH_QA_VOTERS ?? Math.min(2000, Math.max(100, viewers))),
  };
  const instance = await startInstance();
  const rows = [await measureQa(viewers, shape, { instance }).finally(() => instance.stop())];
  const floor = await startFloor();
  rows.push(await measureQa(viewers, shape, { floor }).finally(() => floor.stop()));
  const [ours, bare] = rows;
  const ackP99OverFloor = round(ours.ackP99Ms / bare.ackP99Ms);
  figures.qa = { rows, ackP99OverFloor };
  console.log(`\nQ&A: ${viewers} viewers in one room, ${shape.voters} voters, ${shape.ratePerSecond} votes/s for ${shape.seconds} s`);
  console.table(
    rows.map((row) => ({
      target: row.target,
      viewers: row.viewers,
      questions: row.questions,
      'votes sent': row.votesSent,
      'votes acked': row.votesAcknowledged,
      'ack p50 ms': row.ackP50Ms,
      'ack p99 ms': row.ackP99Ms,
      'viewers exact': `${row.exactViewers} of ${row.viewers}`,
      'counts back': row.decreases,
      'max frames/s': row.maxFramesPerSecond,
      'min gap ms': row.minGapMs,
      'server CPU ms/vote': row.serverCpuPerVoteMs,
      'server cores busy': row.serverCores,
    })),
  );
  console.log(
    `vote ack p99: ${ours.ackP99Ms} ms (goal ≤ 250), ${ackP99OverFloor}× the floor's; statuses ${JSON.stringify(ours.voteStatuses)}; 1-minute load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`,
  );
}
