/**
 * The show: N viewers of one channel on channelStatus (clients spread over worker processes), then the
 * stream's `active` webhook; the time from sending it to each viewer holding the live URL — at once from
 * the push on an open channel, from the content check (one per viewer, with its JWT) behind a login gate.
 * The provider is a minimal fake (createStream answers a stream, every other call 200) on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { viewerAccounts } from './answers';
import { callJson, createSite, percentile, request, startInstance, startWorker, type Instance } from './harness';

export interface ShowFigures {
  channel: 'open' | 'gated';
  viewers: number;
  /** Viewers holding the live URL when the run ended. */
  holding: number;
  checkFailures: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** SQL statements the instance sent from the webhook until every viewer held the URL (the webhook's own included). */
  databaseStatements: number;
}

/** SQL statements the instance has sent so far (/internal/v1/database-queries). */
async function statementsOf(instance: Instance): Promise<number> {
  const reply = await fetch(`${instance.url}/internal/v1/database-queries`, { headers: { 'x-internal-secret': instance.env.INTERNAL_SECRET } });
  return ((await reply.json()) as { queries: number }).queries;
}

const round = (value: number) => Math.round(value * 10) / 10;

async function fakeProvider(): Promise<{ url: string; server: Server }> {
  let streams = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      streams += 1;
      const body =
        request.url === '/createStream'
          ? {
              ingestUrl: 'rtmp://ingest.bench.test/live',
              streamKey: `key-${streams}`,
              playbackUrl: `https://cdn.bench.test/${streams}/index.m3u8`,
              providerStreamId: `bench-stream-${streams}`,
            }
          : {};
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A switched-on channel (behind a login gate when `gated`) with its stream, connected but not yet active. */
async function liveChannel(instance: Instance, providerUrl: string, gated: boolean) {
  const site = createSite(instance);
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const urls = Object.fromEntries(
    ['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream'].map((operation) => [operation, `${providerUrl}/${operation}`]),
  );
  const contract = (await callJson(instance, 'POST', '/streamprovider/v1/register', admin, {
    name: 'Bench provider',
    urls,
    accountCredentials: {},
    useAccount: false,
  })) as { id: string; authorization: string };
  const page = (await callJson(instance, 'POST', '/pages/v3', admin, {
    slug: 'bench-show',
    type: 'channel',
    data: { name: 'Bench show', ...(gated ? { gate: { active: true, kind: 'login' } } : {}) },
    active_renderers: { livestream: true },
    renderers: { livestream: { livestream_published: true } },
  })) as { _id: string };
  const stream = (await callJson(instance, 'POST', '/stream/v1/', admin, { pageId: page._id, contractId: contract.id })) as { providerStreamId: string };
  const webhook = (type: string, time: number) =>
    callJson(instance, 'POST', '/stream/v1/webhook', { authorization: `Bearer ${contract.authorization}` }, { type, id: stream.providerStreamId, time });
  await webhook('connected', Date.now());
  return { siteId: site.siteId, channelId: page._id, webhook };
}

export async function measureShow(viewers: number, gated: boolean): Promise<ShowFigures> {
  const provider = await fakeProvider();
  const instance = await startInstance({ env: { OUTBOUND_ALLOW_PRIVATE: 'true', STREAM_FALLBACK_IMAGE_URL: 'https://images.bench.test/fallback.png' } });
  try {
    const channel = await liveChannel(instance, provider.url, gated);
    const tokens = gated ? await viewerAccounts(instance, channel.siteId, viewers) : null;
    const perWorker = Number(process.env.BENCH_FANOUT_PER_WORKER ?? 3000);
    const workers = Array.from({ length: Math.ceil(viewers / perWorker) }, () => startWorker('showViewers.ts'));
    // The checks' keep-alive connections, shared out among the workers (bench/showViewers.ts says why they are bounded).
    const httpConnections = Math.ceil(Number(process.env.BENCH_SHOW_CONNECTIONS ?? 500) / workers.length);
    let assigned = 0;
    const ready = await Promise.all(
      workers.map((worker) => {
        const count = Math.min(perWorker, viewers - assigned);
        const slice = tokens?.slice(assigned, assigned + count);
        assigned += count;
        const url = `${instance.url.replace('http', 'ws')}/graphql`;
        return request(
          worker,
          { type: 'start', url, siteId: channel.siteId, channelId: channel.channelId, count, concurrency: 200, httpConnections, tokens: slice },
          'ready',
        );
      }),
    );
    const open = ready.reduce((sum, reply) => sum + reply.open, 0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const statementsBefore = await statementsOf(instance);
    const sentAt = performance.timeOrigin + performance.now();
    await channel.webhook('active', Date.now());
    // Until every viewer holds the URL, or 5 minutes (a gated channel's checks take long: see `holding`).
    let reports: { times: number[]; checkFailures: number }[] = [];
    for (const deadline = Date.now() + 300_000; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      reports = await Promise.all(workers.map((worker) => request(worker, { type: 'report' }, 'holding')));
      if (reports.reduce((sum, report) => sum + report.times.length + report.checkFailures, 0) >= open) break;
    }
    const databaseStatements = (await statementsOf(instance)) - statementsBefore;
    for (const worker of workers) worker.send({ type: 'close' });
    const latencies = reports
      .flatMap((report) => report.times)
      .map((at) => at - sentAt)
      .sort((a, b) => a - b);
    return {
      channel: gated ? 'gated' : 'open',
      viewers: open,
      holding: latencies.length,
      checkFailures: reports.reduce((sum, report) => sum + report.checkFailures, 0),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(latencies.at(-1) ?? 0),
      databaseStatements,
    };
  } finally {
    await instance.stop();
    provider.server.close();
  }
}
