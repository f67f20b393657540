/**
 * A bench worker process: opens many live viewers over HTTP — Server-Sent Events (graphql-sse,
 * /graphql/stream) or multipart (Apollo's protocol, POST /graphql) — subscribed to overlayBroadcasts,
 * and reports to the parent (IPC) when all streams are open and, per broadcast, every viewer's receipt
 * time. Kept minimal (node:http, one connection per viewer) so one process holds thousands.
 */
import { Agent, request, type ClientRequest } from 'node:http';
import { collectOnRequest } from './clientGc';

interface Start {
  type: 'start';
  /** The instance's base URL. */
  url: string;
  transport: 'sse' | 'multipart';
  siteId: string;
  channelId: string;
  count: number;
  /** Streams opened at once. */
  concurrency: number;
}

const SUBSCRIPTION = 'subscription($channelId: ID) { overlayBroadcasts(channelId: $channelId) { kind broadcastId overlay { id contents } expiresAt } }';
const now = () => performance.timeOrigin + performance.now();
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

const requests: ClientRequest[] = [];
const receipts = new Map<string, number[]>();
let open = 0;
let failures = 0;

function openViewer(start: Start): Promise<void> {
  return new Promise((resolve) => {
    const sse = start.transport === 'sse';
    const target = new URL(sse ? '/graphql/stream' : '/graphql', start.url);
    const body = JSON.stringify({ query: SUBSCRIPTION, variables: { channelId: start.channelId } });
    const call = request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          accept: sse ? 'text/event-stream' : 'multipart/mixed;subscriptionSpec=1.0, application/json',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-service-client-id': start.siteId,
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          failures += 1;
          response.resume();
          resolve();
          return;
        }
        open += 1;
        resolve();
        const delimiter = sse ? '\n\n' : '\r\n--graphql';
        let pending = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const at = now();
          pending += chunk;
          let end = pending.indexOf(delimiter);
          while (end >= 0) {
            const frame = pending.slice(0, end);
            pending = pending.slice(end + delimiter.length);
            end = pending.indexOf(delimiter);
            const match = /"broadcastId":"([0-9a-f]+)"/.exec(frame);
            if (match && frame.includes('"kind":"SHOW"')) {
              let list = receipts.get(match[1]);
              if (!list) receipts.set(match[1], (list = []));
              list.push(at);
            }
          }
        });
        response.on('error', () => undefined);
      },
    );
    call.on('error', () => {
      failures += 1;
      resolve();
    });
    requests.push(call);
    call.end(body);
  });
}

type Message = Start | { type: 'report'; broadcastId: string } | { type: 'collect' } | { type: 'close' };

async function onMessage(message: Message): Promise<void> {
  if (message.type === 'start') {
    for (let opened = 0; opened < message.count; opened += message.concurrency) {
      const batch = Math.min(message.concurrency, message.count - opened);
      await Promise.all(Array.from({ length: batch }, () => openViewer(message)));
    }
    process.send?.({ type: 'ready', open, failures });
  } else if (message.type === 'report') {
    process.send?.({ type: 'receipts', broadcastId: message.broadcastId, times: receipts.get(message.broadcastId) ?? [] });
  } else if (message.type === 'collect') {
    collectOnRequest();
  } else if (message.type === 'close') {
    for (const call of requests) call.destroy();
    process.exit(0);
  }
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: Message) => void onMessage(message));
