/**
 * A bench worker process for the join and reconnect storms: each viewer loads the page configuration,
 * runs the content check with its own device ID, then opens a graphql-transport-ws socket and
 * subscribes; it has joined when the late-joiner broadcast arrives. On `reconnect` every socket is
 * dropped at once and opened again, as after a load balancer reload. Reports to the parent over IPC.
 */
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { messageText } from '../shared/wsMessage';

interface Join {
  type: 'join';
  url: string;
  siteId: string;
  pageId: string;
  broadcastId: string;
  count: number;
  /** Viewers joining at the same time in this worker. */
  concurrency: number;
  /** Makes the device IDs of this worker distinct from the others'. */
  worker: number;
}

const SUBSCRIPTION = 'subscription($channelId: ID) { overlayBroadcasts(channelId: $channelId) { kind broadcastId overlay { id contents } expiresAt } }';
const TIMEOUT_MS = 60_000;

let job: Join;
const sockets: (WebSocket | undefined)[] = [];
let failures = 0;
let firstFailure: string | null = null;

function fail(reason: string): void {
  failures += 1;
  firstFailure ??= reason;
}

/** Opens viewer `index`'s socket and resolves once the late-joiner broadcast has arrived (or it failed). */
function subscribe(index: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${job.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { perMessageDeflate: false });
    sockets[index] = socket;
    let done = false;
    const finish = (reason?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (reason) fail(reason);
      resolve();
    };
    const timer = setTimeout(() => finish('no late-joiner broadcast in time'), TIMEOUT_MS);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': job.siteId } })));
    socket.on('message', (data) => {
      const text = messageText(data);
      if (text.startsWith('{"type":"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { channelId: job.pageId } } }));
      } else if (text.includes(job.broadcastId) && text.includes('"kind":"SHOW"')) {
        finish();
      } else if (text.includes('"type":"error"')) {
        finish(`subscription refused: ${text.slice(0, 200)}`);
      }
    });
    socket.on('error', (error) => finish(`socket: ${error.message}`));
    socket.on('close', () => finish('socket closed before the broadcast'));
  });
}

/**
 * One keep-alive connection per lane, as each viewer's browser keeps its own. node:http rather than
 * fetch: fetch costs this worker several times the CPU of the request it sends, and the workers share
 * the machine's two cores with the instance they measure, which a real viewer's browser does not.
 */
let agent: Agent;

function read(path: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request(`${job.url}${path}`, { agent, headers: { 'x-service-client-id': job.siteId, ...headers } }, (reply) => {
      reply.resume();
      reply.on('end', () => (reply.statusCode === 200 ? resolve() : reject(new Error(`${path}: ${reply.statusCode}`))));
      reply.on('error', reject);
    });
    call.on('error', reject);
    call.end();
  });
}

async function join(index: number): Promise<void> {
  try {
    await read(`/page/v2/configuration/${job.pageId}`, {});
    await read(`/pages/v2/content/id/${job.pageId}`, { 'x-service-device-id': `device-${job.worker}-${index}` });
  } catch (error) {
    fail((error as Error).message);
    return;
  }
  await subscribe(index);
}

/** Runs `step` for every viewer, `concurrency` at a time. */
async function everyViewer(step: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < job.count) await step(next++);
  };
  await Promise.all(Array.from({ length: Math.min(job.concurrency, job.count) }, lane));
}

async function onMessage(message: Join | { type: 'reconnect' } | { type: 'close' }): Promise<void> {
  if (message.type === 'join') {
    job = message;
    agent = new Agent({ keepAlive: true, maxSockets: message.concurrency });
    failures = 0;
    await everyViewer(join);
    process.send?.({ type: 'joined', at: performance.timeOrigin + performance.now(), failures, firstFailure });
  } else if (message.type === 'reconnect') {
    failures = 0;
    firstFailure = null;
    // Dropped at once, then every viewer comes back (a viewer whose reads failed has no socket).
    for (const socket of sockets) {
      socket?.removeAllListeners('close');
      socket?.terminate();
    }
    await everyViewer(subscribe);
    process.send?.({ type: 'reconnected', at: performance.timeOrigin + performance.now(), failures, firstFailure });
  } else if (message.type === 'close') {
    for (const socket of sockets) socket?.terminate();
    process.exit(0);
  }
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: Join | { type: 'reconnect' } | { type: 'close' }) => void onMessage(message));
