/**
 * Data events end to end against one instance: signed events accepted per second (signature, schema,
 * durable store, rule evaluation) under closed-loop load from autocannon, each event distinct and
 * signed; then the latency from an event's 201 to the overlay its rule broadcast at live viewers.
 */
import autocannon from 'autocannon';
import { createHmac } from 'node:crypto';
import { createChannelPage, createSite, percentile, request, startWorker, type Instance, callJson as call } from './harness';

export interface DataEventFigures {
  /** Closed-loop load: connections, seconds, events answered 201 per second, anything else. */
  throughput: { connections: number; seconds: number; accepted: number; eventsPerSecond: number; p50Ms: number; p99Ms: number; errors: number };
  /** The same load on the lightest REST read of the same subgraph (GET /dataprovider/v1/available), side by side. */
  restReadBaseline: { requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number };
  /** eventsPerSecond ÷ the baseline's requests per second: what the event path costs over a bare REST call. */
  eventsOverRestRead: number;
  /** From the client's receipt of an event's 201 to each viewer's receipt of the overlay its rule broadcast. */
  ruleToViewer: { events: number; viewers: number; received: number; p50Ms: number; p99Ms: number; maxMs: number };
}

const sign = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
const now = () => performance.timeOrigin + performance.now();
const round = (value: number) => Math.round(value * 10) / 10;

/** Needs an instance whose DATA_EVENT_RATE_LIMIT does not stop the load (see bench/run.ts). */
export async function measureDataEvents(instance: Instance, viewers = 100, ruleEvents = 200): Promise<DataEventFigures> {
  const site = createSite(instance);
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const channel = await createChannelPage(instance, admin, 'main');
  const schema = {
    type: 'object',
    required: ['data'],
    properties: {
      data: { type: 'object', required: ['kind', 'seq'], properties: { kind: { type: 'string' }, seq: { type: 'integer' }, score: { type: 'number' } } },
    },
  };
  const { dataProviderId, secret } = await call(instance, 'POST', '/dataprovider/v1/register', admin, {
    name: 'Bench feed',
    description: 'bench',
    schema,
    ownerName: 'Bench',
    ownerEmail: 'bench@example.test',
    realtime: true,
    ttl: 600,
  });
  const overlay = await call(instance, 'POST', '/overlay/v1', admin, { name: 'Goal', type: 'template', contents: { html: '<b>${seq}</b>' }, duration: 120 });
  await call(instance, 'POST', '/personalization/v1/', admin, {
    name: 'Goal overlay',
    jsonRule: {
      trigger: { dataProviderId, fact: 'data.kind', operator: 'equal', value: 'goal', behavior: 'immediate' },
      action: {
        type: 'SEND_OVERLAY',
        targeting: { scope: 'all_channels', target: [] },
        templateId: overlay._id,
        dataMap: { seq: 'data.seq' },
        broadcastPayload: {},
      },
    },
  });
  const path = `/dataprovider/v1/${dataProviderId}/events`;
  const send = async (payload: object) => {
    const text = JSON.stringify(payload);
    const reply = await fetch(`${instance.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-dataprovider-signature': sign(secret, text) },
      body: text,
    });
    if (reply.status !== 201) throw new Error(`event answered ${reply.status}: ${await reply.text()}`);
  };

  // Throughput: every request a distinct event (the rule is evaluated and does not fire).
  let seq = 0;
  const signedTick = () => {
    const body = JSON.stringify({ data: { kind: 'tick', seq: (seq += 1), score: seq % 100 } });
    return { headers: { 'content-type': 'application/json', 'x-dataprovider-signature': sign(secret, body) }, body };
  };
  const connections = Number(process.env.BENCH_EVENT_CONNECTIONS ?? 32);
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const load = (duration: number) =>
    autocannon({ url: instance.url, connections, duration, requests: [{ method: 'POST', path, setupRequest: (req) => ({ ...req, ...signedTick() }) }] });
  await load(1);
  const result = await load(seconds);
  const accepted = result['2xx'];
  const baseline = await autocannon({ url: `${instance.url}/dataprovider/v1/available`, connections, duration: seconds, headers: admin });
  const baselinePerSecond = baseline['2xx'] / seconds;

  // Latency: viewers in a worker process; events that fire the rule, one at a time.
  const worker = startWorker();
  const ready = await request(
    worker,
    { type: 'start', url: `${instance.url.replace('http', 'ws')}/graphql`, siteId: site.siteId, channelId: channel, count: viewers, concurrency: 50 },
    'ready',
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const answeredAt = new Map<number, number>();
  for (let index = 0; index < ruleEvents; index += 1) {
    await send({ data: { kind: 'goal', seq: 1_000_000 + index } });
    answeredAt.set(1_000_000 + index, now());
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const { data } = (await call(instance, 'POST', '/graphql', admin, { query: 'query { activeOverlayBroadcasts { broadcastId variables } }' })) as {
    data: { activeOverlayBroadcasts: { broadcastId: string; variables: { seq?: string } }[] };
  };
  const latencies: number[] = [];
  for (const broadcast of data.activeOverlayBroadcasts) {
    const answered = answeredAt.get(Number(broadcast.variables.seq));
    if (answered === undefined) continue;
    const receipt = await request(worker, { type: 'report', broadcastId: broadcast.broadcastId }, 'receipts');
    for (const at of receipt.times as number[]) latencies.push(at - answered);
  }
  worker.send({ type: 'close' });
  latencies.sort((a, b) => a - b);
  return {
    throughput: {
      connections,
      seconds,
      accepted,
      eventsPerSecond: Math.round(accepted / seconds),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: result.errors + result.non2xx,
    },
    restReadBaseline: {
      requestsPerSecond: Math.round(baselinePerSecond),
      p50Ms: baseline.latency.p50,
      p99Ms: baseline.latency.p99,
      errors: baseline.errors + baseline.non2xx,
    },
    eventsOverRestRead: Math.round((accepted / seconds / baselinePerSecond) * 100) / 100,
    ruleToViewer: {
      events: ruleEvents,
      viewers: ready.open,
      received: latencies.length,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(latencies[latencies.length - 1] ?? NaN),
    },
  };
}
