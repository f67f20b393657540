/**
 * A bench worker process for the show: opens many live-viewer sockets speaking graphql-transport-ws,
 * each subscribed to channelStatus(channelId), a signed-in viewer with its JWT and device as the watch page
 * connects. When a viewer first sees `live: true` it holds the URL at once when the event carries
 * `playbackUrl` (an open channel; behind a gate, the viewer's own), else it asks the content check with its
 * JWT, as a player behind a gate does, and holds the URL when the check answers it. A signed-in viewer
 * also asks the check once when it opens the page (before the show, as the watch page does), from the
 * same device it asks again from at go-live. Reports to the parent
 * (IPC) when all are subscribed and, on request, when each viewer came to hold the URL.
 *
 * The checks travel over at most `httpConnections` keep-alive connections of this worker (node:http, as
 * bench/joiners.ts), as they would through the balancer or CDN in front of an instance. One connection
 * per check (fetch's pool opens one for each request it cannot queue) put 15,000 viewer sockets plus
 * thousands of check connections on the instance at go-live: past the 20,000 files a process may hold
 * here, the instance could accept no more, and the checks waiting in its backlog stalled the run.
 */
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import type { ViewersStart as Start } from './harness';
import { openInBatches } from './viewerBatches';
import { messageText } from '../shared/wsMessage';

/** The worker's keep-alive connections for the checks (set at start). */
let agent: Agent;

const SUBSCRIPTION = 'subscription($channelId: ID!) { channelStatus(channelId: $channelId) { state live playbackUrl } }';
const now = () => performance.timeOrigin + performance.now();

const sockets: WebSocket[] = [];
/** When each viewer came to hold the live URL (ms, wall clock). */
const holding: number[] = [];
let failures = 0;
let checkFailures = 0;
/** Viewers that held the URL from the push itself (no check asked). */
let fromPush = 0;

/** GET `url` over the worker's connections: the answer's text (anything but 200 rejects). */
function getText(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = request(url, { agent, headers }, (reply) => {
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('end', () => (reply.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`status ${reply.statusCode}`))));
      reply.on('error', reject);
    });
    call.on('error', reject);
    call.end();
  });
}

/** The content check from the viewer's device; at go-live (`atGoLive`) its answer is counted: the URL held, or a failure. */
async function askCheck(start: Start, token: string | undefined, device: string, atGoLive: boolean): Promise<void> {
  const base = start.url.replace('ws', 'http').replace(/\/graphql$/, '');
  const headers: Record<string, string> = { 'x-service-client-id': start.siteId, 'x-service-device-id': device };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const body = JSON.parse(await getText(`${base}/pages/v2/content/id/${start.channelId}`, headers)) as {
      canIPlayResponse?: { contentCheck?: { video?: { video?: { url?: string } | null } } };
    };
    if (!atGoLive) return;
    if (body.canIPlayResponse?.contentCheck?.video?.video?.url) holding.push(now());
    else checkFailures += 1;
  } catch {
    if (atGoLive) checkFailures += 1;
  }
}

let opened = 0;
/** Sockets the server closed before their viewer was in, by close code (each such viewer opened again). */
const closedBeforeIn: Record<string, number> = {};
/** Viewers whose socket closed after they were in: they never see the show go live. */
let lost = 0;
/** Opens a viewer's socket again after a close before it was in, as graphql-ws clients retry: at most this often. */
const ATTEMPTS = 5;

/**
 * One viewer: resolves once it is in (its first event, and its first check when signed in) or has failed.
 * A close before that is not an error event: unheard, it left the viewer's batch waiting for ever, which
 * was the bench's stall (a handful of the 15,000 sockets closed by the server while the machine was loaded).
 */
function openViewer(start: Start, token?: string): Promise<void> {
  opened += 1;
  const device = `bench-${process.pid}-${opened}`;
  return new Promise((resolve) => {
    let inside = false;
    const enter = () => {
      inside = true;
      resolve();
    };
    const connect = (attempt: number) => {
      const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
      sockets.push(socket);
      let live = false;
      // As the watch page connects: its site, and a signed-in viewer's token and device (a gated show's push then carries its own URL).
      const payload = { 'x-service-client-id': start.siteId, ...(token ? { authorization: `Bearer ${token}`, 'x-service-device-id': device } : {}) };
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload })));
      socket.on('message', (data) => {
        const text = messageText(data);
        if (text.startsWith('{"type":"connection_ack"')) {
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { channelId: start.channelId } } }));
          return;
        }
        if (text.startsWith('{"type":"error"') || text.includes('"errors"')) {
          failures += 1;
          return enter();
        }
        if (!text.includes('"channelStatus"')) return;
        // The first event (at subscribe) says the viewer is in; a signed-in one opens the page (its first check).
        if (!text.includes('"live":true')) return token ? void askCheck(start, token, device, false).then(enter) : enter();
        if (live) return;
        live = true;
        if (text.includes('"playbackUrl":"')) {
          holding.push(now());
          fromPush += 1;
        } else void askCheck(start, token, device, true);
      });
      socket.on('error', () => undefined);
      socket.on('close', (code) => {
        if (inside) {
          if (!live) lost += 1;
          return;
        }
        closedBeforeIn[code] = (closedBeforeIn[code] ?? 0) + 1;
        if (attempt < ATTEMPTS) return connect(attempt + 1);
        failures += 1;
        enter();
      });
    };
    connect(1);
  });
}

type ShowStart = Start & {
  /** Keep-alive connections this worker's checks share (default: `concurrency`). */
  httpConnections?: number;
};

async function onMessage(message: ShowStart | { type: 'report' } | { type: 'close' }): Promise<void> {
  if (message.type === 'start') {
    agent = new Agent({ keepAlive: true, maxSockets: message.httpConnections ?? message.concurrency });
    await openInBatches(message, (token) => openViewer(message, token));
    process.send?.({ type: 'ready', open: sockets.filter((socket) => socket.readyState === WebSocket.OPEN).length, failures, closedBeforeIn });
  } else if (message.type === 'report') {
    process.send?.({ type: 'holding', times: holding, checkFailures, lost, fromPush });
  } else if (message.type === 'close') {
    for (const socket of sockets) socket.terminate();
    process.exit(0);
  }
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: ShowStart | { type: 'report' } | { type: 'close' }) => void onMessage(message));
