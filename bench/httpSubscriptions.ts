/**
 * Subscriptions over HTTP beside the socket: on one instance, N viewers over Server-Sent Events (or
 * multipart HTTP) and N graphql-ws viewers of the same channel and operation — one fan-out group, where
 * each event is serialized once per transport. Viewers join in rounds (sockets, streams, streams,
 * sockets, …), so neither transport is ahead in the group's send order, and the server's memory growth
 * of each round is put to its transport. Then broadcasts one at a time, two that warm both paths and
 * BENCH_HTTP_BROADCASTS (default 10) measured, each waited for until every viewer on both sides has it: latency
 * from the call to each viewer's receipt, pooled by transport, and each broadcast's own p99 ratio. (One
 * broadcast alone gave ratios of 1.07–1.34 for the same build: a run's p99 was whichever broadcast it drew.)
 */
import { createChannelPage, percentile, receiptsOf, siteWithOverlay, request, rssOf, startInstance, startWorker } from './harness';

export interface HttpFanoutResult {
  transport: 'sse' | 'multipart';
  viewers: { websocket: number; http: number };
  received: { websocket: number; http: number };
  p50Ms: { websocket: number; http: number };
  p99Ms: { websocket: number; http: number };
  /** Each measured broadcast's p99 over HTTP / its p99 on the socket. */
  broadcastRatios: number[];
  memoryPerViewerKB: { websocket: number; http: number };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));
const WARMUPS = 2;
const round1 = (value: number) => Math.round(value * 10) / 10;

export async function measureHttpFanout(transport: 'sse' | 'multipart', perTransport: number): Promise<HttpFanoutResult> {
  const instance = await startInstance();
  const { site, headers, overlay, channel } = await siteWithOverlay(instance, 'Bench', '<b>${score}</b>', 60);
  const warmup = await createChannelPage(instance, headers, 'warmup');
  await fetch(`${instance.url}/overlay/v1/broadcast/${overlay._id}`, { method: 'POST', headers, body: JSON.stringify({ channelId: warmup, duration: 1 }) });

  const perRound = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
  const rounds = Math.ceil(perTransport / perRound);
  const workers = { websocket: [] as ReturnType<typeof startWorker>[], http: [] as ReturnType<typeof startWorker>[] };
  const open = { websocket: 0, http: 0 };
  const grown = { websocket: 0, http: 0 };
  await settle();
  let rss = rssOf(instance.pid);
  for (let round = 0; round < rounds; round += 1) {
    const count = Math.min(perRound, perTransport - round * perRound);
    // Each round starts with the side the last one ended with: on average neither is earlier in the group.
    for (const side of round % 2 === 0 ? (['websocket', 'http'] as const) : (['http', 'websocket'] as const)) {
      const worker = startWorker(side === 'websocket' ? 'viewers.ts' : 'httpViewers.ts');
      workers[side].push(worker);
      const start =
        side === 'websocket'
          ? { type: 'start', url: `${instance.url.replace('http', 'ws')}/graphql`, siteId: site.siteId, channelId: channel, count, concurrency: 200 }
          : { type: 'start', url: instance.url, transport, siteId: site.siteId, channelId: channel, count, concurrency: 200 };
      open[side] += (await request(worker, start, 'ready')).open;
      await settle();
      const now = rssOf(instance.pid);
      grown[side] += now - rss;
      rss = now;
    }
  }

  const sides = ['websocket', 'http'] as const;
  const pooled = { websocket: [] as number[], http: [] as number[] };
  const received = { ...open };
  const broadcastRatios: number[] = [];
  const measured = Number(process.env.BENCH_HTTP_BROADCASTS ?? 10);
  for (let index = -WARMUPS; index < measured; index += 1) {
    const sentAt = performance.timeOrigin + performance.now();
    const reply = await fetch(`${instance.url}/overlay/v1/broadcast/${overlay._id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ channelId: channel, variables: { score: `${index + WARMUPS}-0` } }),
    });
    const { broadcastId } = (await reply.json()) as { broadcastId: string };
    const [websocket, http] = await receiptsOf([workers.websocket, workers.http], broadcastId, [open.websocket, open.http]);
    const times = { websocket, http };
    if (index < 0) continue;
    const own = { websocket: [] as number[], http: [] as number[] };
    for (const side of sides) {
      own[side] = times[side].map((at) => at - sentAt).sort((a, b) => a - b);
      pooled[side].push(...own[side]);
      received[side] = Math.min(received[side], own[side].length);
    }
    broadcastRatios.push(Math.round((percentile(own.http, 99) / percentile(own.websocket, 99)) * 100) / 100);
  }
  const socket = pooled.websocket.sort((a, b) => a - b);
  const http = pooled.http.sort((a, b) => a - b);
  for (const worker of [...workers.websocket, ...workers.http]) worker.send({ type: 'close' });
  await instance.stop();
  return {
    transport,
    viewers: open,
    received,
    p50Ms: { websocket: round1(percentile(socket, 50)), http: round1(percentile(http, 50)) },
    p99Ms: { websocket: round1(percentile(socket, 99)), http: round1(percentile(http, 99)) },
    broadcastRatios,
    memoryPerViewerKB: { websocket: round1(grown.websocket / open.websocket / 1024), http: round1(grown.http / open.http / 1024) },
  };
}
