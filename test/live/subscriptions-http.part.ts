/**
 * Live subscriptions over HTTP, on the real server: Server-Sent Events (graphql-sse, distinct
 * connections, /graphql/stream) and multipart HTTP (Apollo's protocol, POST /graphql). The framing,
 * heartbeats and complete of both; a subscription over plain HTTP answered 400 naming the transports
 * (never a 5xx, nothing logged as an error); the live state for late joiners; limits; the client closing
 * a stream frees it (the viewer gauges by transport return to 0); a drain ends the streams.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Stack } from '../../stack';
import { rest } from '../helpers/http';
import { closeHttpViewers, MULTIPART_ACCEPT, openHttpViewer, type HttpTransport } from '../helpers/httpViewer';
import { scrape } from '../helpers/metrics';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { VIEWER_SUBSCRIPTION } from '../helpers/viewer';
import { until } from '../helpers/wait';
import { loadConfig } from '../../shared/config';

let stack: Stack;
let site: TestSite;
/** Channels (pages) of the site the viewers watch. */
let stage: string;
let overlayId: string;
const errorLines: string[] = [];
const TRANSPORTS: HttpTransport[] = ['sse', 'multipart'];

beforeAll(async () => {
  // Every line the server logs at error level or above is kept: a subscription over HTTP must log none.
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line && JSON.parse(line).level >= 50) errorLines.push(line);
      done();
    },
  });
  stack = await startTestStack({
    logger: pino({ level: 'warn' }, sink),
    env: { SSE_HEARTBEAT_MS: '100', MULTIPART_HEARTBEAT_MS: '100', GRAPHQL_MAX_DEPTH: '8' },
  });
  site = await createTestSite(stack, 'HTTP viewers');
  stage = await createChannel(stack, site.siteId);
  const body = { name: 'Lower third', type: 'template', contents: { html: '<p>${name}</p>' }, duration: 60 };
  overlayId = (await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body })).body._id;
});
afterEach(async () => {
  closeHttpViewers();
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
});
afterAll(stopAll);

const viewerHeaders = () => ({ 'x-service-client-id': site.siteId });
const broadcast = (body: object) => rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, { headers: site.admin, body });
/** Waits until the live server holds `count` subscriptions (a broadcast sent next reaches them). */
async function subscriptions(count: number): Promise<void> {
  await until(
    () => stack.gateway.live.stats().subscriptions,
    (held) => held === count,
    `${count} subscriptions held`,
  );
}

describe('the protocols’ framing', () => {
  it('SSE: text/event-stream, an opening comment, each result an event `next` with one data line', async () => {
    const viewer = await openHttpViewer(stack, 'sse', { query: VIEWER_SUBSCRIPTION, variables: { channelId: stage }, headers: viewerHeaders() });
    expect(viewer.status).toBe(200);
    expect(viewer.contentType).toBe('text/event-stream; charset=utf-8');
    await subscriptions(1);
    const sent = await broadcast({ channelId: stage, variables: { name: 'Ada' } });
    const result = await viewer.next();
    expect(result.data.overlayBroadcasts).toMatchObject({ kind: 'SHOW', broadcastId: sent.body.broadcastId, channelId: stage });
    expect(result.data.overlayBroadcasts.overlay.contents.html).toBe('<p>Ada</p>');
    expect(viewer.raw.startsWith(':\n\n')).toBe(true);
    expect(viewer.raw).toContain(`event: next\ndata: ${JSON.stringify(result)}\n\n`);
  });

  it('multipart: boundary "graphql", a {} part first, each result a part {"payload": …} followed by the next boundary', async () => {
    const viewer = await openHttpViewer(stack, 'multipart', { query: VIEWER_SUBSCRIPTION, variables: { channelId: stage }, headers: viewerHeaders() });
    expect(viewer.status).toBe(200);
    expect(viewer.contentType).toBe('multipart/mixed;boundary="graphql";subscriptionSpec=1.0');
    await subscriptions(1);
    const sent = await broadcast({ channelId: stage });
    const result = await viewer.next();
    expect(result.data.overlayBroadcasts.broadcastId).toBe(sent.body.broadcastId);
    const part = '\r\ncontent-type: application/json; charset=utf-8\r\n\r\n';
    expect(viewer.raw.startsWith(`\r\n--graphql${part}{}\r\n--graphql`)).toBe(true);
    expect(viewer.raw).toContain(`${part}${JSON.stringify({ payload: result })}\r\n--graphql`);
  });

  it.each(TRANSPORTS)('%s: heartbeats keep an idle stream open', async (transport) => {
    const viewer = await openHttpViewer(stack, transport, { query: VIEWER_SUBSCRIPTION, headers: viewerHeaders() });
    await viewer.until((seen) => seen.heartbeats >= 3);
    expect(viewer.results).toEqual([]);
  });

  it('the heartbeats are graphql-sse’s 12 s and Apollo’s 5 s unless configured', async () => {
    const defaults = loadConfig({ JWT_SECRET: 'x'.repeat(32), INTERNAL_SECRET: 'y'.repeat(32), ENCRYPTION_KEY: 'z'.repeat(32) });
    expect([defaults.sseHeartbeatMs, defaults.multipartHeartbeatMs]).toEqual([12_000, 5_000]);
  });

  it('SSE: a query answers one `next` and `complete`, and the stream ends', async () => {
    const viewer = await openHttpViewer(stack, 'sse', { query: /* GraphQL */ `query { site { name } }`, headers: site.admin });
    await viewer.ended;
    expect(viewer.results).toEqual([{ data: { site: { name: 'HTTP viewers' } } }]);
    expect(viewer.completed).toBe(true);
    expect(viewer.raw.endsWith('event: complete\ndata:\n\n')).toBe(true);
  });

  it.each(TRANSPORTS)('%s: a subscription that fails once running ends with its errors and complete', async (transport) => {
    const poll = await rest(stack, 'POST', '/poll/v3/', {
      headers: site.admin,
      body: {
        type: 'poll',
        name: 'Gone',
        question: 'Q?',
        answers: [
          { id: 'a', text: 'A' },
          { id: 'b', text: 'B' },
        ],
      },
    });
    expect(poll.status).toBe(200);
    const pollId = poll.body._id as string;
    const viewer = await openHttpViewer(stack, transport, {
      query: /* GraphQL */ `subscription($id: ID!) { pollResults(pollId: $id) { pollId total } }`,
      variables: { id: pollId },
      headers: viewerHeaders(),
    });
    expect([viewer.status, viewer.body]).toEqual([200, null]);
    expect((await viewer.next()).data.pollResults).toEqual({ pollId, total: 0 });
    expect((await rest(stack, 'DELETE', `/poll/v3/${pollId}`, { headers: site.admin })).status).toBeLessThan(300);
    await viewer.ended;
    expect(viewer.results.at(-1).errors[0].extensions.code).toBe('NOT_FOUND');
    expect(viewer.completed).toBe(true);
  });
});

describe('a subscription over plain HTTP', () => {
  const cases: [string, { method: 'GET' | 'POST'; accept: string }][] = [
    ['POST application/json', { method: 'POST', accept: 'application/json' }],
    ['POST graphql-response+json', { method: 'POST', accept: 'application/graphql-response+json' }],
    ['GET', { method: 'GET', accept: 'application/json' }],
    ['GET with the multipart Accept', { method: 'GET', accept: MULTIPART_ACCEPT }],
  ];
  it.each(cases)('%s: 400 naming the transports, nothing logged as an error', async (_name, { method, accept }) => {
    const search = method === 'GET' ? `?query=${encodeURIComponent('subscription { overlayBroadcasts { kind } }')}` : '';
    for (const headers of [{}, viewerHeaders(), site.admin]) {
      const response = await fetch(`${stack.url}/graphql${search}`, {
        method,
        headers: { accept, 'content-type': 'application/json', ...headers },
        body: method === 'POST' ? JSON.stringify({ query: 'subscription { overlayBroadcasts { kind } }' }) : undefined,
      });
      expect(response.status).toBe(400);
      const { errors } = (await response.json()) as { errors: { message: string }[] };
      expect(errors[0].message).toMatch(/graphql-ws.*\/graphql\/stream.*text\/event-stream.*multipart\/mixed;subscriptionSpec=1\.0/);
    }
    expect(errorLines).toEqual([]);
  });

  it('a query with the multipart Accept is answered as JSON by the gateway, as Apollo Client expects', async () => {
    const response = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { accept: MULTIPART_ACCEPT, 'content-type': 'application/json', ...site.admin },
      body: JSON.stringify({ query: '{ site { name } }' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { site: { name: 'HTTP viewers' } } });
  });

  it('/graphql/stream without Accept: text/event-stream is 406, other methods 405', async () => {
    const response = await fetch(`${stack.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...viewerHeaders() },
      body: JSON.stringify({ query: VIEWER_SUBSCRIPTION }),
    });
    expect(response.status).toBe(406);
    expect(((await response.json()) as { errors: { message: string }[] }).errors[0].message).toContain('text/event-stream');
    const put = await fetch(`${stack.url}/graphql/stream`, { method: 'PUT', headers: { accept: 'text/event-stream' } });
    expect(put.status).toBe(405);
  });
});

describe('live state, limits, closing', () => {
  it.each(TRANSPORTS)('%s: a late joiner (or a viewer back after a drop) gets the live overlay at once', async (transport) => {
    const sent = await broadcast({ channelId: stage });
    for (let visit = 0; visit < 2; visit += 1) {
      const viewer = await openHttpViewer(stack, transport, { query: VIEWER_SUBSCRIPTION, variables: { channelId: stage }, headers: viewerHeaders() });
      const event = (await viewer.next()).data.overlayBroadcasts;
      expect(event.broadcastId).toBe(sent.body.broadcastId);
      expect(event.remainingSeconds).toBeGreaterThan(50);
      viewer.close();
    }
  });

  it('SSE over GET (query parameters), and multipart with the quoted subscriptionSpec="1.0" of Apollo Router’s docs', async () => {
    const sent = await broadcast({ channelId: stage });
    const overGet = await openHttpViewer(stack, 'sse', {
      method: 'GET',
      query: VIEWER_SUBSCRIPTION,
      variables: { channelId: stage },
      headers: viewerHeaders(),
    });
    expect((await overGet.next()).data.overlayBroadcasts.broadcastId).toBe(sent.body.broadcastId);
    const quoted = await openHttpViewer(stack, 'multipart', {
      accept: 'multipart/mixed;subscriptionSpec="1.0", application/json',
      query: VIEWER_SUBSCRIPTION,
      variables: { channelId: stage },
      headers: viewerHeaders(),
    });
    expect((await quoted.next()).data.overlayBroadcasts.broadcastId).toBe(sent.body.broadcastId);
  });

  it.each(TRANSPORTS)('%s: the document limits and input rules of /graphql apply before anything runs', async (transport) => {
    const tooDeep = `subscription { overlayBroadcasts { ${'overlay { '.repeat(10)}id${' }'.repeat(10)} } }`;
    const refused = await openHttpViewer(stack, transport, { query: tooDeep, headers: viewerHeaders() });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.errors)).toMatch(/depth/i);
    const invalid = await openHttpViewer(stack, transport, { query: 'subscription { overlayBroadcasts { nope } }', headers: viewerHeaders() });
    expect(invalid.status).toBe(400);
    const badVariables = await openHttpViewer(stack, transport, { query: VIEWER_SUBSCRIPTION, variables: { channelId: '\ud800' }, headers: viewerHeaders() });
    expect(badVariables.status).toBe(400);
    const tooLarge = await fetch(`${stack.url}${transport === 'sse' ? '/graphql/stream' : '/graphql'}`, {
      method: 'POST',
      headers: { accept: transport === 'sse' ? 'text/event-stream' : MULTIPART_ACCEPT, 'content-type': 'application/json', ...viewerHeaders() },
      body: JSON.stringify({ query: `subscription { overlayBroadcasts { kind } } # ${'x'.repeat(stack.config.bodyLimitBytes)}` }),
    });
    expect(tooLarge.status).toBe(413);
    expect(stack.gateway.live.stats().connections).toBe(0);
  });

  it('the client closing a stream frees it: the viewer gauges by transport return to 0', async () => {
    const opened = await Promise.all([
      openHttpViewer(stack, 'sse', { query: VIEWER_SUBSCRIPTION, variables: { channelId: stage }, headers: viewerHeaders() }),
      openHttpViewer(stack, 'sse', { query: VIEWER_SUBSCRIPTION, headers: viewerHeaders() }),
      openHttpViewer(stack, 'multipart', { query: VIEWER_SUBSCRIPTION, headers: viewerHeaders() }),
    ]);
    await subscriptions(3);
    const gauge = (samples: Awaited<ReturnType<typeof scrape>>, transport: string) =>
      samples.find((sample) => sample.name === 'stagegraph_live_viewers' && sample.labels.transport === transport)?.value;
    const during = await scrape(stack);
    expect([gauge(during, 'sse'), gauge(during, 'multipart'), gauge(during, 'websocket')]).toEqual([2, 1, 0]);
    for (const viewer of opened) viewer.close();
    await subscriptions(0);
    const after = await scrape(stack);
    expect([gauge(after, 'sse'), gauge(after, 'multipart'), gauge(after, 'websocket')]).toEqual([0, 0, 0]);
    expect(stack.gateway.live.stats().connections).toBe(0);
  });
  it('a stream is its own connection once started: chunked frames on the wire, and a client closing its side ends it and frees the viewer', async () => {
    const streamRequests = async () =>
      (await scrape(stack))
        .filter((sample) => sample.name === 'stagegraph_http_requests_total' && sample.labels.route === '/graphql/stream' && sample.labels.status === '200')
        .reduce((sum, sample) => sum + sample.value, 0);
    const requestsBefore = await streamRequests();
    // A raw socket, so the bytes on the wire are what is checked: the stream frames its chunks itself.
    const socket = connect(stack.port, '127.0.0.1');
    let received = '';
    let ended = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('end', () => (ended = true));
    const body = JSON.stringify({ query: VIEWER_SUBSCRIPTION, variables: { channelId: stage } });
    socket.write(
      `POST /graphql/stream HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\ncontent-type: application/json\r\n` +
        `x-service-client-id: ${site.siteId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await until(
      () => received,
      (text) => text.includes('\r\n\r\n3\r\n:\n\n\r\n'),
      'the headers and the opening comment as one chunk',
    );
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.toLowerCase()).toContain('transfer-encoding: chunked\r\n');
    await subscriptions(1);
    // The request's observers (metrics, log line, trace span) counted it when the stream was set up, as an upgrade.
    expect(await streamRequests()).toBe(requestsBefore + 1);
    await broadcast({ channelId: stage, variables: { name: 'Ada' } });
    await until(
      () => received,
      (text) => /\r\n[0-9a-f]+\r\nevent: next\ndata: \{"data":\{"overlayBroadcasts":.*Ada.*\n\n\r\n/.test(text),
      'the broadcast as one chunk',
    );
    // The client ends its side (a half close, as some proxies do): the server ends the stream and the connection.
    socket.end();
    await until(
      () => ended,
      (done) => done,
      'the server closing the connection',
    );
    await subscriptions(0);
    expect(stack.gateway.live.stats().connections).toBe(0);
    socket.destroy();
  });
});

describe('a drain (SIGTERM)', () => {
  it('ends SSE streams without complete and multipart streams with a transport error, so clients subscribe again elsewhere', async () => {
    const draining = await startTestStack({ sameDeploymentAs: stack, env: { SHUTDOWN_GRACE_MS: '0' } });
    const sse = await openHttpViewer(draining, 'sse', { query: VIEWER_SUBSCRIPTION, headers: viewerHeaders() });
    const multipart = await openHttpViewer(draining, 'multipart', { query: VIEWER_SUBSCRIPTION, headers: viewerHeaders() });
    await sse.until((viewer) => viewer.raw.length > 0);
    await multipart.until((viewer) => viewer.raw.length > 0);
    await draining.drain();
    await Promise.all([sse.ended, multipart.ended]);
    expect(sse.completed).toBe(false);
    expect(multipart.transportErrors).toEqual([{ message: 'this instance is restarting; subscribe again', extensions: { code: 'SERVICE_UNAVAILABLE' } }]);
    expect(multipart.completed).toBe(true);
    expect(draining.gateway.live.stats().connections).toBe(0);
  });
});
