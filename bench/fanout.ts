/**
 * Fan-out: N live viewers on one channel of one instance (clients spread over worker processes), one
 * broadcast; latency from the broadcast call to each viewer's receipt, and server memory per idle viewer.
 */
import { createSite, percentile, request, rssOf, startInstance, startWorker, type Instance } from './harness';

export interface FanoutResult {
  viewers: number;
  received: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  memoryPerViewerKB: number;
}

async function gcAndSettle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

/**
 * `instances`: those to measure (default one started here); viewers are spread over them, or all go to
 * `entry` (a balancer in front of them) when given, and so does the broadcast call.
 */
export async function measureFanout(viewers: number, instances: Instance[] = [], entry?: string): Promise<FanoutResult> {
  const own = instances.length === 0;
  if (own) instances.push(await startInstance());
  const first = { url: entry ?? instances[0].url };
  const site = createSite(instances[0]);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const overlay = await (await fetch(`${first.url}/overlay/v1`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Bench', type: 'template', contents: { html: '<b>${score}</b>' }, duration: 60 }),
  })).json() as { _id: string };

  // Warm the path once (document caches, query plans) before measuring.
  await fetch(`${first.url}/overlay/v1/broadcast/${overlay._id}`, { method: 'POST', headers, body: JSON.stringify({ channelId: 'warmup', duration: 1 }) });

  await gcAndSettle();
  const rssBefore = instances.map((instance) => rssOf(instance.pid));
  const perWorker = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
  const workers = Array.from({ length: Math.ceil(viewers / perWorker) }, startWorker);
  let assigned = 0;
  const ready = await Promise.all(
    workers.map((worker, index) => {
      const count = Math.min(perWorker, viewers - assigned);
      assigned += count;
      const url = entry ?? instances[index % instances.length].url;
      return request(worker, { type: 'start', url: `${url.replace('http', 'ws')}/graphql`, siteId: site.siteId, channelId: 'main', count, concurrency: 200 }, 'ready');
    }),
  );
  const open = ready.reduce((sum, reply) => sum + reply.open, 0);
  await gcAndSettle();
  const rssAfter = instances.map((instance) => rssOf(instance.pid));
  const memoryPerViewerKB = rssAfter.reduce((sum, rss, index) => sum + rss - rssBefore[index], 0) / open / 1024;

  const sentAt = performance.timeOrigin + performance.now();
  const reply = await fetch(`${first.url}/overlay/v1/broadcast/${overlay._id}`, { method: 'POST', headers, body: JSON.stringify({ channelId: 'main', variables: { score: '1-0' } }) });
  const { broadcastId } = (await reply.json()) as { broadcastId: string };
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const receipts = await Promise.all(workers.map((worker) => request(worker, { type: 'report', broadcastId }, 'receipts')));
  const latencies = receipts.flatMap((receipt) => receipt.times as number[]).map((at) => at - sentAt).sort((a, b) => a - b);
  for (const worker of workers) worker.send({ type: 'close' });
  if (own) await Promise.all(instances.map((instance) => instance.stop()));
  return {
    viewers: open,
    received: latencies.length,
    p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    maxMs: Math.round((latencies[latencies.length - 1] ?? NaN) * 10) / 10,
    memoryPerViewerKB: Math.round(memoryPerViewerKB * 10) / 10,
  };
}
