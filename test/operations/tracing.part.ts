/**
 * Traces as a collector receives them: a real OTLP/HTTP receiver (JSON) on loopback gets the spans of
 * one request — REST bridge or /graphql, the gateway's plan, each subgraph (in-process and over HTTP)
 * and the database — under one trace id, the caller's when it sent `traceparent`; the request's log
 * lines carry that id; a broadcast's delivery links back to the call that made it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../shared/logger';
import { flushTracing } from '../../shared/tracing';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { DEADLINE_MS } from '../helpers/wait';
import { watch } from '../helpers/viewer';
import type { Stack } from '../../stack';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  scope: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean };
}

let receiver: Server;
let endpoint: string;
const spans: ReceivedSpan[] = [];
const contentTypes = new Set<string>();
const lines: Record<string, unknown>[] = [];
let stack: Stack;
let overHttp: Stack;
let site: TestSite;
let siteOverHttp: TestSite;

/** A minimal OTLP/HTTP trace receiver: POST /v1/traces with the JSON encoding. */
function startReceiver(): Promise<void> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.add(String(req.headers['content-type']));
      if (req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            const attributes = Object.fromEntries(
              (span.attributes ?? []).map((attribute: OtlpAttribute) => [attribute.key, Object.values(attribute.value)[0]]),
            );
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              scope: scopeSpans.scope?.name ?? '',
              attributes,
              links: span.links ?? [],
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  await startReceiver();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger('info', 'stagegraph', sink);
  stack = await startTestStack({ logger, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
  overHttp = await startTestStack({ logger, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, subgraphsOverHttp: true });
  site = await createTestSite(stack);
  siteOverHttp = await createTestSite(overHttp);
});

afterAll(async () => {
  await stopAll();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Spans of one trace, once the exporter has sent them. */
async function spansOf(traceId: string, atLeast: (found: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    await flushTracing();
    const found = spans.filter((span) => span.traceId === traceId);
    if (atLeast(found) || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
};

it('puts a /graphql request of a caller with traceparent in the caller’s trace: gateway plan, subgraph, database', async () => {
  const { traceId, traceparent } = newTraceparent();
  const reply = await graphql(stack, /* GraphQL */ `query TracedOverlays { overlays { id name } }`, {}, { ...site.admin, traceparent });
  expect(reply.status).toBe(200);

  const found = await spansOf(traceId, (all) => all.some((span) => span.name.startsWith('prisma ')) && all.some((span) => span.name === 'POST /graphql'));
  const names = found.map((span) => span.name);
  expect(names).toContain('POST /graphql');
  expect(names).toEqual(expect.arrayContaining(['gateway.request', 'gateway.plan', 'gateway.execute', 'gateway.fetch']));
  expect(names).toContain('subgraph overlays');
  expect(names.some((name) => name.startsWith('prisma Overlay.'))).toBe(true);
  expect(contentTypes).toContain('application/json');

  // The server span is the caller's child; the rest hangs below it.
  const server = found.find((span) => span.name === 'POST /graphql') as ReceivedSpan;
  expect(server.parentSpanId).toBe(traceparent.split('-')[2]);
  const subgraph = found.find((span) => span.name === 'subgraph overlays') as ReceivedSpan;
  expect(found.find((span) => span.spanId === subgraph.parentSpanId)?.name).toBe('gateway.fetch');

  // The request's log line carries the caller's trace id.
  const logged = lines.find((line) => line.msg === 'request' && line.trace_id === traceId);
  expect(logged).toMatchObject({ method: 'POST', status: 200 });
});

it('gives a REST call without traceparent a trace of its own, shared by its spans and its log line', async () => {
  const reply = await rest(stack, 'GET', '/overlay/v1', { headers: { ...site.admin, 'x-request-id': 'rest-traced-1' } });
  expect(reply.status).toBe(200);
  const logged = lines.find((line) => line.msg === 'request' && line.requestId === 'rest-traced-1') as { trace_id: string };
  expect(logged.trace_id).toMatch(/^[0-9a-f]{32}$/);
  const found = await spansOf(
    logged.trace_id,
    (all) => all.some((span) => span.name === 'subgraph overlays') && all.some((span) => span.name === 'GET /overlay/v1'),
  );
  expect(found.map((span) => span.name)).toEqual(expect.arrayContaining(['GET /overlay/v1', 'gateway.request', 'gateway.fetch', 'subgraph overlays']));
  expect(found.find((span) => span.name === 'GET /overlay/v1')?.attributes['http.route']).toBe('/overlay/v1');
});

it('passes the trace to a subgraph called over HTTP in the traceparent header', async () => {
  const { traceId, traceparent } = newTraceparent();
  const reply = await graphql(overHttp, /* GraphQL */ `query TracedOverHttp { overlays { id } }`, {}, { ...siteOverHttp.admin, traceparent });
  expect(reply.status).toBe(200);
  const found = await spansOf(traceId, (all) => all.some((span) => span.attributes['stagegraph.subgraph'] === 'overlays'));
  const subgraphServer = found.find((span) => span.attributes['stagegraph.subgraph'] === 'overlays' && span.name === 'POST /graphql') as ReceivedSpan;
  expect(subgraphServer).toBeDefined();
  // Its parent is the gateway's fetch, in the same trace: the header carried the fetch's span.
  expect(found.find((span) => span.spanId === subgraphServer.parentSpanId)?.name).toBe('gateway.fetch');
  expect(found.some((span) => span.name.startsWith('prisma '))).toBe(true);
});

it('links a broadcast’s delivery to viewers back to the call that made it', async () => {
  const created = await rest(stack, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Goal', type: 'instance', contents: { text: 'GOAL' }, duration: 30 },
  });
  const viewer = await watch(stack, { siteId: site.siteId });
  const { traceId, traceparent } = newTraceparent();
  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${created.body._id}`, { headers: { ...site.admin, traceparent }, body: {} });
  expect(sent.status).toBe(200);
  expect((await viewer.next()).broadcastId).toBe(sent.body.broadcastId);
  await viewer.close();

  const deadline = Date.now() + DEADLINE_MS;
  let delivery: ReceivedSpan | undefined;
  while (!delivery && Date.now() < deadline) {
    await flushTracing();
    delivery = spans.find((span) => span.name === 'overlay broadcast fan-out' && span.links.some((link) => link.traceId === traceId));
    if (!delivery) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(delivery).toBeDefined();
  // A trace of its own (a root span), linked to a span of the caller's trace.
  expect((delivery as ReceivedSpan).traceId).not.toBe(traceId);
  expect((delivery as ReceivedSpan).parentSpanId).toBeUndefined();
  const linked = (delivery as ReceivedSpan).links.find((link) => link.traceId === traceId) as { spanId: string };
  const callerSpans = await spansOf(traceId, (all) => all.some((span) => span.spanId === linked.spanId));
  expect(callerSpans.some((span) => span.spanId === linked.spanId)).toBe(true);
});
