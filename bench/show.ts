/**
 * The show: N viewers of one channel on channelStatus (clients spread over worker processes), then the
 * stream's `active` webhook; the time from sending it to each viewer holding the live URL — at once from
 * the push on an open channel; behind a login gate from the push too, which carries each signed-in viewer's
 * own signed URL when the instance keeps its check (the viewers opened the page, as the watch page does),
 * else from the content check (one per viewer, with its JWT).
 * The provider is a minimal fake (createStream answers a stream, every other call 200) on loopback; it
 * takes signed playback, so the gated channel's URLs are signed per viewer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newPlaybackKey, PLAYBACK_SIGNING_SCHEME, signPlaybackUrl } from '../shared/playbackSigning';
import { viewerAccounts } from './answers';
import { callJson, cpuMsOf, createSite, percentile, request, startInstance, startWorker, type Instance } from './harness';

export interface ShowFigures {
  channel: 'open' | 'gated';
  viewers: number;
  /** Viewers holding the live URL when the run ended. */
  holding: number;
  /** Of them, those that held it from the push itself (behind a gate: their own URL), without asking the check. */
  fromPush: number;
  checkFailures: number;
  /** Viewers whose socket closed after they were in, before the show went live for them. */
  lost: number;
  /** Sockets the server closed before their viewer was in, by close code; each such viewer opened again (bench/showViewers.ts). */
  closedBeforeIn: Record<string, number>;
  /** The first viewer to hold the URL: what the webhook's own path costs before any viewer is written to. */
  firstMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /**
   * Database reads (SELECT statements) the change caused on the instance: those it sent from the webhook
   * until every viewer held the URL (`readsInWindow`), less those of the webhook's own path
   * (`webhookReads`) and the background work's over as long (`quietReadsPerSecond`: the jobs that poll).
   */
  readsPerChange: number;
  /** Every read the instance sent from the webhook until every viewer held the URL. */
  readsInWindow: number;
  /** How long that was (s). */
  windowSeconds: number;
  /** Statements of every kind the change caused, counted the same way. */
  statementsPerChange: number;
  /**
   * Reads and statements of the webhook's own path: the same `active` webhook sent just before to a
   * twin channel of the site that no viewer watches (its stream connected as this one's is), so nothing
   * reads what it changed.
   */
  webhookReads: number;
  webhookStatements: number;
  /** Reads the instance sent per second while nothing happened (QUIET_MS before the calibration): background work. */
  quietReadsPerSecond: number;
  /** CPU the instance used from the webhook until every viewer held the URL, per viewer (µs). */
  instanceCpuPerViewerUs: number;
}

interface DatabaseCounts {
  queries: number;
  reads: number;
}

/** SQL statements (and reads among them) the instance has sent so far (/internal/v1/database-queries). */
async function countsOf(instance: Instance): Promise<DatabaseCounts> {
  const reply = await fetch(`${instance.url}/internal/v1/database-queries`, { headers: { 'x-internal-secret': instance.env.INTERNAL_SECRET } });
  return (await reply.json()) as DatabaseCounts;
}

const since = (before: DatabaseCounts, after: DatabaseCounts): DatabaseCounts => ({
  queries: after.queries - before.queries,
  reads: after.reads - before.reads,
});
/** How long the instance is watched while nothing happens, for the background work's reads per second. */
const QUIET_MS = 3000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The webhook's own reads and statements: the `active` webhook of a twin channel no viewer watches, with
 * what the instance sent in the quiet QUIET_MS before it (background work) beside.
 */
async function calibrate(instance: Instance, twin: { webhook: (type: string, time: number) => Promise<unknown> }) {
  const quietFrom = await countsOf(instance);
  await pause(QUIET_MS);
  const before = await countsOf(instance);
  await twin.webhook('active', Date.now());
  // Whatever the change sets off here (no viewer: nothing should) has time to reach the database.
  await pause(500);
  return { own: since(before, await countsOf(instance)), quietReadsPerSecond: (since(quietFrom, before).reads * 1000) / QUIET_MS };
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

type BenchSite = { siteId: string; developerKey: string };
type Contract = { id: string; authorization: string };

/** The fake provider registered with the site (once: a site names each of its providers once). */
async function registerProvider(instance: Instance, site: BenchSite, providerUrl: string): Promise<Contract> {
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const urls = Object.fromEntries(
    ['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream'].map((operation) => [operation, `${providerUrl}/${operation}`]),
  );
  // It takes signed playback: the gated channel's viewers get signed URLs (one HMAC per second of the show's video), the open one's plain.
  return (await callJson(instance, 'POST', '/streamprovider/v1/register', admin, {
    name: 'Bench provider',
    urls,
    accountCredentials: {},
    useAccount: false,
    playbackSigning: { scheme: PLAYBACK_SIGNING_SCHEME },
  })) as Contract;
}

/**
 * What one signature costs (µs): signPlaybackUrl, the check's whole signing step, timed over many calls
 * in this process (at most one per viewer: viewers in the same second share one; the instance's own share is
 * inside its CPU per viewer above).
 */
export function signingCostUs(calls = 200_000): number {
  const key = newPlaybackKey();
  const url = 'http://provider.bench.test:4200/hls/0123456789abcdef01234567.m3u8';
  const expires = Math.floor(Date.now() / 1000) + 600;
  for (let index = 0; index < 10_000; index += 1) signPlaybackUrl(url, key, expires);
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) signPlaybackUrl(url, key, expires + (index & 1));
  return Math.round(((performance.now() - started) * 1000 * 100) / calls) / 100;
}

/** A switched-on channel of `site` (behind a login gate when `gated`) with its stream, connected but not yet active. */
async function liveChannel(instance: Instance, site: BenchSite, contract: Contract, gated: boolean, slug: string) {
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const page = (await callJson(instance, 'POST', '/pages/v3', admin, {
    slug,
    type: 'channel',
    data: { name: slug, ...(gated ? { gate: { active: true, kind: 'login' } } : {}) },
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
    const site = createSite(instance);
    const contract = await registerProvider(instance, site, provider.url);
    const channel = await liveChannel(instance, site, contract, gated, 'bench-show');
    const twin = await liveChannel(instance, site, contract, gated, 'bench-twin');
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
    const closedBeforeIn: Record<string, number> = {};
    for (const reply of ready)
      for (const [code, count] of Object.entries(reply.closedBeforeIn as Record<string, number>)) closedBeforeIn[code] = (closedBeforeIn[code] ?? 0) + count;
    await pause(500);
    const calibration = await calibrate(instance, twin);
    const before = await countsOf(instance);
    const cpuBefore = cpuMsOf(instance.pid);
    const sentAt = performance.timeOrigin + performance.now();
    await channel.webhook('active', Date.now());
    // Until every viewer holds the URL, or 5 minutes (a gated channel's checks take long: see `holding`).
    let reports: { times: number[]; checkFailures: number; lost: number; fromPush: number }[] = [];
    for (const deadline = Date.now() + 300_000; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      reports = await Promise.all(workers.map((worker) => request(worker, { type: 'report' }, 'holding')));
      if (reports.reduce((sum, report) => sum + report.times.length + report.checkFailures + report.lost, 0) >= open) break;
    }
    const cpuMs = cpuMsOf(instance.pid) - cpuBefore;
    const caused = since(before, await countsOf(instance));
    const windowSeconds = (performance.timeOrigin + performance.now() - sentAt) / 1000;
    const background = calibration.quietReadsPerSecond * windowSeconds;
    for (const worker of workers) worker.send({ type: 'close' });
    const latencies = reports
      .flatMap((report) => report.times)
      .map((at) => at - sentAt)
      .sort((a, b) => a - b);
    return {
      channel: gated ? 'gated' : 'open',
      viewers: open,
      holding: latencies.length,
      fromPush: reports.reduce((sum, report) => sum + report.fromPush, 0),
      checkFailures: reports.reduce((sum, report) => sum + report.checkFailures, 0),
      lost: reports.reduce((sum, report) => sum + report.lost, 0),
      closedBeforeIn,
      firstMs: round(latencies[0] ?? 0),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(latencies.at(-1) ?? 0),
      readsPerChange: Math.max(0, Math.round(caused.reads - calibration.own.reads - background)),
      readsInWindow: caused.reads,
      windowSeconds: round(windowSeconds),
      statementsPerChange: caused.queries - calibration.own.queries,
      webhookReads: calibration.own.reads,
      webhookStatements: calibration.own.queries,
      quietReadsPerSecond: round(calibration.quietReadsPerSecond),
      instanceCpuPerViewerUs: Math.round((cpuMs * 1000) / Math.max(1, open)),
    };
  } finally {
    await instance.stop();
    provider.server.close();
  }
}
