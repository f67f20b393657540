/**
 * Subscriptions over HTTP beside the socket: on one instance, N viewers over Server-Sent Events (or
 * multipart HTTP) and N graphql-ws viewers of the same channel and operation — one fan-out group, where
 * each event is serialized once per transport. Viewers join in rounds (sockets, streams, streams,
 * sockets, …), so neither transport is ahead in the group's send order, and the server's memory growth
 * of each round is put to its transport. One broadcast: latency from the call to each
 * viewer's receipt, by transport.
 */
import { percentile, siteWithOverlay, request, rssOf, startInstance, startWorker } from './harness';

export interface HttpFanoutResult {
  transport: 'sse' | 'multipart';
  viewers: { websocket: number; http: number };
  received: { websocket: number; http: number };
  p50Ms: { websocket: number; http: number };
  p99Ms: { websocket: number; http: number };
  memoryPerViewerKB: { websocket: number; http: number };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));
const round1 = (value: number) => Math.round(value * 10) / 10;

export async function measureHttpFanout(transport: 'sse' | 'multipart', perTransport: number): Promise<HttpFanoutResult> {
  const instance = await startInstance();
  const { site, headers, overlay, channel } = await siteWithOverlay(instance, 'Bench', '<b>${score}</b>', 60);
  await fetch(`${instance.url}/overlay/v1/broadcast/${overlay._id}`, { method: 'POST', headers, body: JSON.stringify({ channelId: 'warmup', duration: 1 }) });

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

  const sentAt = performance.timeOrigin + performance.now();
  const reply = await fetch(`${instance.url}/overlay/v1/broadcast/${overlay._id}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ channelId: channel, variables: { score: '1-0' } }),
  });
  const { broadcastId } = (await reply.json()) as { broadcastId: string };
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const latencies = async (side: 'websocket' | 'http') => {
    const receipts = await Promise.all(workers[side].map((worker) => request(worker, { type: 'report', broadcastId }, 'receipts')));
    return receipts
      .flatMap((receipt) => receipt.times as number[])
      .map((at) => at - sentAt)
      .sort((a, b) => a - b);
  };
  const socket = await latencies('websocket');
  const http = await latencies('http');
  for (const worker of [...workers.websocket, ...workers.http]) worker.send({ type: 'close' });
  await instance.stop();
  return {
    transport,
    viewers: open,
    received: { websocket: socket.length, http: http.length },
    p50Ms: { websocket: round1(percentile(socket, 50)), http: round1(percentile(http, 50)) },
    p99Ms: { websocket: round1(percentile(socket, 99)), http: round1(percentile(http, 99)) },
    memoryPerViewerKB: { websocket: round1(grown.websocket / open.websocket / 1024), http: round1(grown.http / open.http / 1024) },
  };
}
