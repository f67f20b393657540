/**
 * Chat: N viewers in one room (clients spread over worker processes) while signed-in senders post
 * messages at a steady rate and other accounts react (bench/socketActors.ts); every message's ack time is
 * compared with its arrival at every viewer, and each viewer's reaction counts with the reactions accepted.
 * Printed beside the floor (bench/floor.ts): the same viewer clients on a bare Node + ws server that
 * sends the same batched frames and acks without storing anything. Also the fan-out section's floor.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { spawnTracked } from '../scripts/services';
import { viewerAccounts } from './answers';
import { callJson, createSite, percentile, request, startWorker, type Instance } from './harness';

export interface Floor {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the bare ws server (bench/floor.ts) as its own process. */
export async function startFloor(env: Record<string, string> = {}): Promise<Floor> {
  const child: ChildProcess = spawnTracked(process.execPath, ['--import', 'tsx', join(__dirname, 'floor.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /FLOOR_PORT=(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error('the floor server exited')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: () => new Promise((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

export interface ChatFigures {
  target: string;
  viewers: number;
  messages: number;
  sendFailures: number;
  /** Viewers that got every message once, in seq order. */
  completeViewers: number;
  missing: number;
  disorder: number;
  ackP50Ms: number;
  ackP99Ms: number;
  deliveryP50Ms: number;
  deliveryP99Ms: number;
  /** From the message's send (before its acknowledgement) to each viewer: what a late acknowledgement cannot shorten. */
  sendToViewerP50Ms: number;
  sendToViewerP99Ms: number;
  /** The most frames one viewer got within any one second (arrival jitter included). */
  maxFramesPerSecond: number;
  meanFramesPerSecond: number;
  /** Reactions sent at the room during the run, and accepted (200), per status (skipped: over the in-flight cap). */
  reactionsSent: number;
  reactionsAccepted: number;
  reactionStatuses: Record<string, number>;
  /** Milliseconds from a reaction sent to its answer, p50 and p99. */
  reactionAckP50Ms: number;
  reactionAckP99Ms: number;
  /** Viewers whose reaction counts add up exactly to the accepted reactions, per emoji. */
  exactReactionViewers: number;
}

export interface ChatOptions {
  /** stagegraph instances (viewers and senders spread over them), or the floor. */
  instances?: Instance[];
  floor?: Floor;
  senders?: number;
  ratePerSecond?: number;
  seconds?: number;
  /** Reactions per second at the room while the messages go (the floor gets them too: it answers and counts them). */
  reactionsPerSecond?: number;
}

/** Viewers who react, each on its own socket: 30 reactions per 10 s per account is the limit, so 2,000 carry 5,000/s. */
const REACTORS = 2000;
const BENCH_EMOJI = ['👍', '❤️', '🔥', '🎉'];
const REACTION_MUTATION = 'mutation($panelId: ID!, $emoji: String!) { sendChatReaction(panelId: $panelId, emoji: $emoji) { emoji } }';

const round = (value: number) => Math.round(value * 10) / 10;

function histogramPercentile(histogram: number[], p: number): number {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  const wanted = Math.ceil((p / 100) * total);
  let seen = 0;
  for (let ms = 0; ms < histogram.length; ms += 1) {
    seen += histogram[ms];
    if (seen >= wanted && total > 0) return ms;
  }
  return NaN;
}

export async function measureChat(viewers: number, options: ChatOptions): Promise<ChatFigures> {
  const { instances = [], floor } = options;
  const senders = options.senders ?? 1000;
  const rate = options.ratePerSecond ?? 20;
  const seconds = options.seconds ?? 30;
  const reactionRate = options.reactionsPerSecond ?? 0;
  let reactorTokens: string[] = [];
  const urls = floor ? [floor.url] : instances.map((instance) => instance.url);
  let siteId = 'floor';
  let panelId = 'floor';
  let tokens: string[] = [];
  if (!floor) {
    const site = createSite(instances[0]);
    siteId = site.siteId;
    const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
    panelId = (await callJson(instances[0], 'POST', '/panel/v3/', admin, { siteId, renderer: { panel_type: 'chat', panel_name: 'Bench chat' } }))._id as string;
    tokens = await viewerAccounts(instances[0], siteId, senders + 1);
    if (reactionRate > 0) reactorTokens = await viewerAccounts(instances[0], siteId, REACTORS);
    // Warm each instance's send path (query plans, JIT) before anyone watches: a room's history, not measured.
    const warm = tokens.pop() as string;
    for (const instance of instances) {
      for (let index = 0; index < 3; index += 1) {
        await callJson(
          instance,
          'POST',
          `/chat/v1/${panelId}/messages`,
          { 'x-service-client-id': siteId, authorization: `Bearer ${warm}` },
          { text: `warm-up ${index}` },
        );
      }
    }
  }

  // The floor signs nobody in: its reacting viewers' sockets carry tokens that mean nothing.
  if (floor && reactionRate > 0) reactorTokens = Array.from({ length: REACTORS }, (_, index) => `floor-${index}`);

  const perWorker = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
  const workers = Array.from({ length: Math.ceil(viewers / perWorker) }, () => startWorker('chatViewers.ts'));
  let assigned = 0;
  const ready = await Promise.all(
    workers.map((worker, index) => {
      const count = Math.min(perWorker, viewers - assigned);
      assigned += count;
      const url = urls[index % urls.length];
      return request(worker, { type: 'start', url: `${url.replace('http', 'ws')}/graphql`, siteId, panelId, count, concurrency: 200 }, 'ready');
    }),
  );
  const open = ready.reduce((sum, reply) => sum + reply.open, 0);
  // The reacting viewers open their sockets before anything is measured.
  const reactor = reactionRate > 0 ? startWorker('socketActors.ts') : null;
  if (reactor) {
    const start = {
      type: 'start',
      urls,
      siteId,
      panelId,
      tokens: reactorTokens,
      query: REACTION_MUTATION,
      variable: 'emoji',
      choices: BENCH_EMOJI,
      pick: 'round',
      ratePerSecond: reactionRate,
      seconds,
      inFlight: 1000,
    };
    await request(reactor, start, 'ready');
  }

  // Senders: one message every 1000/rate ms, each from the next account (and instance) in turn.
  const acks: [number, number, number][] = [];
  const ackLatencies: number[] = [];
  let failures = 0;
  const total = rate * seconds;
  const startAt = performance.now() + 100;
  const sends: Promise<void>[] = [];
  const reacted: Promise<{ accepted: Record<string, number>; statuses: Record<string, number>; sent: number; ackP50Ms: number; ackP99Ms: number }> = reactor
    ? request(reactor, { type: 'go' }, 'reacted')
    : Promise.resolve({ accepted: {}, statuses: {}, sent: 0, ackP50Ms: NaN, ackP99Ms: NaN });
  for (let index = 0; index < total; index += 1) {
    const wait = startAt + (index * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const url = urls[index % urls.length];
    const sentAt = performance.now();
    const target = floor ? `${url}/chat` : `${url}/chat/v1/${panelId}/messages`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!floor) Object.assign(headers, { 'x-service-client-id': siteId, authorization: `Bearer ${tokens[index % tokens.length]}` });
    sends.push(
      fetch(target, { method: 'POST', headers, body: JSON.stringify({ text: `bench message ${index}` }) })
        .then(async (reply) => {
          const body = (await reply.json()) as { seq?: number };
          const ackedAt = performance.now();
          if (reply.status !== 201 || typeof body.seq !== 'number') throw new Error(`${reply.status} ${JSON.stringify(body)}`);
          acks.push([body.seq, performance.timeOrigin + ackedAt, performance.timeOrigin + sentAt]);
          ackLatencies.push(ackedAt - sentAt);
        })
        .catch(() => {
          failures += 1;
        }),
    );
  }
  await Promise.all(sends);
  const reactions = await reacted;
  reactor?.send({ type: 'close' });
  // Wait for the last batches (and the last second's reaction counts: published, then summed) to reach every viewer.
  await new Promise((resolve) => setTimeout(resolve, reactor ? 4000 : 3000));
  const reports = await Promise.all(workers.map((worker) => request(worker, { type: 'report', acks, reactions: reactions.accepted }, 'receipts')));
  for (const worker of workers) worker.send({ type: 'close' });
  const histogram = new Array<number>(reports[0].histogram.length).fill(0);
  const sendHistogram = new Array<number>(reports[0].sendHistogram.length).fill(0);
  for (const report of reports) (report.histogram as number[]).forEach((count, ms) => (histogram[ms] += count));
  for (const report of reports) (report.sendHistogram as number[]).forEach((count, ms) => (sendHistogram[ms] += count));
  ackLatencies.sort((a, b) => a - b);
  return {
    target: floor ? 'floor: bare Node + ws' : `stagegraph × ${instances.length}`,
    viewers: open,
    messages: acks.length,
    sendFailures: failures,
    completeViewers: reports.reduce((sum, report) => sum + report.complete, 0),
    missing: reports.reduce((sum, report) => sum + report.missing, 0),
    disorder: reports.reduce((sum, report) => sum + report.disorder, 0),
    ackP50Ms: round(percentile(ackLatencies, 50)),
    ackP99Ms: round(percentile(ackLatencies, 99)),
    deliveryP50Ms: histogramPercentile(histogram, 50),
    deliveryP99Ms: histogramPercentile(histogram, 99),
    sendToViewerP50Ms: histogramPercentile(sendHistogram, 50),
    sendToViewerP99Ms: histogramPercentile(sendHistogram, 99),
    maxFramesPerSecond: Math.max(...reports.map((report) => report.maxFramesPerSecond)),
    meanFramesPerSecond: round(
      reports.reduce((sum, report) => sum + report.meanFramesPerSecond * report.viewers, 0) /
        Math.max(
          1,
          reports.reduce((sum, report) => sum + report.viewers, 0),
        ),
    ),
    reactionsSent: reactions.sent,
    reactionsAccepted: Object.values(reactions.accepted).reduce((sum, count) => sum + count, 0),
    reactionStatuses: reactions.statuses,
    reactionAckP50Ms: reactions.ackP50Ms,
    reactionAckP99Ms: reactions.ackP99Ms,
    exactReactionViewers: reactor ? reports.reduce((sum, report) => sum + report.exactReactions, 0) : 0,
  };
}
