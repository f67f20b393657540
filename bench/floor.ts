/**
 * The floor the live sections are printed beside: a bare Node + `ws` server speaking just enough of
 * graphql-transport-ws (connection_init → ack, subscribe) that the bench's own viewer clients connect
 * to it unchanged. It does no work but the fan-out: `POST /broadcast` sends one overlay SHOW frame to
 * every subscriber; `POST /chat` {text} acks at once with a seq and sends the messages in batches of
 * CHAT_BATCH_MS (at once when quiet), each batch serialized once — the frames stagegraph sends. A
 * `sendChatReaction` mutation on a socket is answered at once and counted; once a second the room's viewers
 * get one REACTIONS event with the counts since the last, as stagegraph's (so the chat section's floor carries
 * the same reactions, from the same reacting clients). A `voteQaQuestion` mutation is answered at once with the
 * question's count; once a second, when votes came, the room's viewers get the room (every question's count,
 * most votes first), serialized once: the Q&A section's frames. Run as a child process: prints its port on stdout.
 *
 * For the join storm it also answers a viewer's two reads (`GET /page/v2/configuration/…` and
 * `GET /pages/v2/content/id/…`, fixed JSON of about the size of stagegraph's) and sends an
 * overlayBroadcasts subscriber a live broadcast (FLOOR_BROADCAST_ID) at once, as a late joiner gets it.
 */
import { createServer } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { messageText } from '../shared/wsMessage';

const batchMs = Number(process.env.CHAT_BATCH_MS ?? 250);
/** The live broadcast a joiner gets at once (bench/join.ts gives it and waits for it). */
const lateJoinerBroadcastId = process.env.FLOOR_BROADCAST_ID ?? 'f100f100f100f100f100f100';
const READ_BODIES: Record<string, string> = {
  configuration: JSON.stringify({
    page: { _id: '0'.repeat(24), slug: 'main-stage', name: 'Main stage', panels: [{ type: 'chat' }, { type: 'store' }] },
    site: {},
    theme: {},
  }),
  content: JSON.stringify({ allowed: true, reason: null, live: false, channel: { _id: '0'.repeat(24), slug: 'main-stage', name: 'Main stage' } }),
};
const LATE_JOINER = JSON.stringify({
  data: {
    overlayBroadcasts: { kind: 'SHOW', broadcastId: lateJoinerBroadcastId, overlay: { id: 'floor', contents: { html: '<b>welcome</b>' } }, expiresAt: 0 },
  },
});
const subscribers = new Map<WebSocket, Buffer>();
let seq = 0;
let pending: {
  id: string;
  seq: number;
  panelId: string;
  text: string;
  author: { accountId: string; name: string; admin: boolean };
  created: number;
  streamSecond: null;
}[] = [];
let timer: NodeJS.Timeout | null = null;
let lastFlushAt = 0;
/** Reactions answered since the last REACTIONS event, per emoji. */
let reactions = new Map<string, number>();
const REACTIONS_MS = 1000;

function sendAll(payload: string): void {
  const body = Buffer.from(payload);
  for (const [socket, prefix] of subscribers) socket.send(Buffer.concat([prefix, body]), { binary: false });
}

function flush(): void {
  timer = null;
  lastFlushAt = Date.now();
  const messages = pending;
  pending = [];
  sendAll(`${JSON.stringify({ data: { chatMessages: { kind: 'MESSAGES', ids: [], accountId: null, messages, system: null } } })}}`);
}

function flushReactions(): void {
  if (reactions.size === 0) return;
  const counts = [...reactions].map(([emoji, count]) => ({ emoji, count }));
  reactions = new Map();
  sendAll(`${JSON.stringify({ data: { chatMessages: { kind: 'REACTIONS', ids: [], accountId: null, messages: [], system: null, reactions: counts } } })}}`);
}
setInterval(flushReactions, REACTIONS_MS).unref();

/** The Q&A room's votes per question, and whether they changed since the last push. */
const votes = new Map<string, number>();
let votesChanged = false;
const qaRoom = () => {
  const questions = [...votes].sort((a, b) => b[1] - a[1]).map(([id, count]) => ({ id, votes: count }));
  return JSON.stringify({ data: { qaRoom: { questions } } });
};
setInterval(() => {
  if (!votesChanged) return;
  votesChanged = false;
  sendAll(`${qaRoom()}}`);
}, REACTIONS_MS).unref();

// The floor's garbage collections, as perf_hooks reports them (what stagegraph's /metrics gives as
// nodejs_gc_duration_seconds): read by the cold fan-out around its broadcast, `GET /gc` (the longest pause since
// the previous read).
const gc = { count: 0, ms: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.count += 1;
    gc.ms += entry.duration;
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/gc') {
    // The longest pause since the last read: a read before a broadcast and one after give that broadcast's.
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(gc));
    gc.maxMs = 0;
    return;
  }
  if (req.method === 'GET') {
    const body = READ_BODIES[req.url?.includes('/configuration/') ? 'configuration' : 'content'];
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    return;
  }
  let raw = '';
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  req.on('end', () => {
    if (req.url === '/broadcast') {
      const broadcastId = Math.random().toString(16).slice(2).padEnd(24, '0');
      sendAll(
        `${JSON.stringify({ data: { overlayBroadcasts: { kind: 'SHOW', broadcastId, overlay: { id: 'floor', contents: { html: '<b>1-0</b>' } }, expiresAt: Date.now() + 60_000 } } })}}`,
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ broadcastId }));
      return;
    }
    const { text } = JSON.parse(raw || '{}') as { text?: string };
    seq += 1;
    const message = {
      id: String(seq),
      seq,
      panelId: 'floor',
      text: String(text),
      author: { accountId: 'floor', name: 'Floor', admin: false },
      created: Date.now(),
      streamSecond: null,
    };
    pending.push(message);
    if (!timer) timer = setTimeout(flush, Math.max(0, lastFlushAt + batchMs - Date.now()));
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(message));
  });
});
// As stagegraph's server (stack.ts): a joiner's keep-alive connection is not closed under it between its two reads.
server.keepAliveTimeout = 65_000;
const wss = new WebSocketServer({ server, path: '/graphql', perMessageDeflate: false, clientTracking: false });
wss.on('connection', (socket) => {
  socket.on('message', (data) => {
    const message = JSON.parse(messageText(data)) as { type: string; id?: string; payload?: { query?: string; variables?: { emoji?: string } } };
    if (message.type === 'connection_init') socket.send('{"type":"connection_ack"}');
    else if (message.type === 'subscribe' && message.payload?.query?.includes('sendChatReaction')) {
      // A reaction: answered at once, counted for the next REACTIONS event.
      const emoji = String(message.payload.variables?.emoji);
      reactions.set(emoji, (reactions.get(emoji) ?? 0) + 1);
      const id = JSON.stringify(message.id);
      socket.send(`{"id":${id},"type":"next","payload":{"data":{"sendChatReaction":{"emoji":${JSON.stringify(emoji)}}}}}`);
      socket.send(`{"id":${id},"type":"complete"}`);
    } else if (message.type === 'subscribe' && message.payload?.query?.includes('voteQaQuestion')) {
      // A vote: answered at once with the question's count, pushed with the next second's room.
      const questionId = String((message.payload.variables as { questionId?: string } | undefined)?.questionId);
      votes.set(questionId, (votes.get(questionId) ?? 0) + 1);
      votesChanged = true;
      const id = JSON.stringify(message.id);
      socket.send(`{"id":${id},"type":"next","payload":{"data":{"voteQaQuestion":{"id":${JSON.stringify(questionId)},"votes":${votes.get(questionId)}}}}}`);
      socket.send(`{"id":${id},"type":"complete"}`);
    } else if (message.type === 'subscribe') {
      subscribers.set(socket, Buffer.from(`{"id":${JSON.stringify(message.id)},"type":"next","payload":`));
      if (message.payload?.query?.includes('qaRoom')) {
        socket.send(`{"id":${JSON.stringify(message.id)},"type":"next","payload":${qaRoom()}}`);
        return;
      }
      if (message.payload?.query?.includes('overlayBroadcasts')) {
        // A joiner: the live broadcast at once.
        socket.send(`{"id":${JSON.stringify(message.id)},"type":"next","payload":${LATE_JOINER}}`);
        return;
      }
      // A chat subscriber's first event: the (empty) room.
      socket.send(
        `{"id":${JSON.stringify(message.id)},"type":"next","payload":{"data":{"chatMessages":{"kind":"MESSAGES","ids":[],"accountId":null,"messages":[],"system":{}}}}}`,
      );
    }
  });
  socket.on('close', () => subscribers.delete(socket));
});
server.listen(0, '127.0.0.1', () => console.log(`FLOOR_PORT=${(server.address() as AddressInfo).port}`));
