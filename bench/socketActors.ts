/**
 * A bench worker process of signed-in viewers acting on one room as the watch page does, each with a
 * mutation on its own socket (graphql-transport-ws, its JWT in connectionParams; raw `ws`, so one process
 * holds thousands): chat reactions (`sendChatReaction`, bench/chat.ts) or Q&A votes (`voteQaQuestion`,
 * bench/qa.ts). Actions go at a steady rate, each from the next viewer (and instance) in turn, at most
 * `inFlight` unanswered at once (past it an action is not sent: counted as skipped, never queued), and the
 * worker reports how many of each choice (an emoji, a question) were accepted: what every viewer's counts
 * must add up to exactly.
 */
import WebSocket from 'ws';
import { messageText } from '../shared/wsMessage';

interface Start {
  type: 'start';
  urls: string[];
  siteId: string;
  panelId: string;
  tokens: string[];
  /** The mutation, with `$panelId` and the variable `variable` that carries the choice. */
  query: string;
  variable: string;
  /** What the actions choose among (emoji, question IDs). */
  choices: string[];
  /**
   * `round`: the n-th action takes choice n (emoji in turn); `own`: each viewer takes the choices in turn from
   * an offset of its own, so no viewer takes one twice while it has taken fewer than all (a vote per question).
   */
  pick: 'round' | 'own';
  ratePerSecond: number;
  seconds: number;
  inFlight: number;
}

const OPEN_AT_ONCE = 200;

interface Reactor {
  socket: WebSocket;
  /** Operation id → choice of the actions sent and not yet answered, and when each was sent. */
  pending: Map<string, { choice: string; sentAt: number }>;
  next: number;
  /** Where this viewer's own turn through the choices starts. */
  offset: number;
}

const accepted: Record<string, number> = {};
const statuses: Record<string, number> = {};
/** Milliseconds from each reaction sent to its answer. */
const latencies: number[] = [];
let open = 0;
const count = (status: string) => (statuses[status] = (statuses[status] ?? 0) + 1);

function openReactor(start: Start, url: string, token: string, offset: number): Promise<Reactor | null> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { perMessageDeflate: false });
    const reactor: Reactor = { socket, pending: new Map(), next: 0, offset };
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': start.siteId, Authorization: `Bearer ${token}` } })),
    );
    socket.on('message', (data) => {
      const message = JSON.parse(messageText(data)) as { type: string; id?: string; payload?: any };
      if (message.type === 'connection_ack') return resolve(reactor);
      const sent = message.id === undefined ? undefined : reactor.pending.get(message.id);
      if (sent === undefined || message.id === undefined) return;
      if (message.type === 'next' || message.type === 'error') {
        const { choice, sentAt } = sent;
        latencies.push(performance.now() - sentAt);
        reactor.pending.delete(message.id);
        open -= 1;
        const error = message.type === 'error' ? message.payload?.[0] : message.payload?.errors?.[0];
        if (error) count(String(error.extensions?.code ?? 'error'));
        else {
          count('accepted');
          accepted[choice] = (accepted[choice] ?? 0) + 1;
        }
      }
    });
    socket.on('error', () => resolve(null));
    socket.on('close', () => {
      open -= reactor.pending.size;
      for (let lost = reactor.pending.size; lost > 0; lost -= 1) count('closed');
      reactor.pending.clear();
      resolve(null);
    });
  });
}

async function react(start: Start): Promise<void> {
  const reactors: Reactor[] = [];
  for (let opened = 0; opened < start.tokens.length; opened += OPEN_AT_ONCE) {
    const batch = start.tokens.slice(opened, opened + OPEN_AT_ONCE);
    const sockets = await Promise.all(batch.map((token, index) => openReactor(start, start.urls[(opened + index) % start.urls.length], token, opened + index)));
    for (const reactor of sockets) if (reactor) reactors.push(reactor);
  }
  process.send?.({ type: 'ready', reactors: reactors.length });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const total = Math.round(start.ratePerSecond * start.seconds);
  let sent = 0;
  const startAt = performance.now();
  for (let index = 0; index < total && reactors.length > 0; index += 1) {
    const wait = startAt + (index * 1000) / start.ratePerSecond - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (open >= start.inFlight) {
      count('skipped');
      continue;
    }
    const reactor = reactors[index % reactors.length];
    const turn = start.pick === 'round' ? index : reactor.offset + reactor.next;
    const choice = start.choices[turn % start.choices.length];
    const id = String((reactor.next += 1));
    reactor.pending.set(id, { choice, sentAt: performance.now() });
    open += 1;
    sent += 1;
    reactor.socket.send(
      JSON.stringify({ id, type: 'subscribe', payload: { query: start.query, variables: { panelId: start.panelId, [start.variable]: choice } } }),
    );
  }
  // Every action sent is answered (or its socket closed) before the counts are reported; unanswered after 60 s: counted so.
  const deadline = performance.now() + 60_000;
  while (open > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (open > 0) statuses.unanswered = open;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? NaN) * 10) / 10;
  process.send?.({ type: 'reacted', accepted, statuses, sent, ackP50Ms: at(50), ackP99Ms: at(99) });
  for (const reactor of reactors) reactor.socket.terminate();
}

process.once('message', (message: Start | { type: 'close' }) => {
  if (message.type === 'start') void react(message);
  else process.exit(0);
});
process.on('message', (message: { type: string }) => {
  if (message.type === 'close') process.exit(0);
});
