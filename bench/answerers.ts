/**
 * A bench worker process for the answers section: opens signed-in viewer sockets (graphql-transport-ws,
 * the viewer's JWT in connectionParams), subscribes each to pollResults, and on command each viewer
 * answers the poll on its own socket (answerPoll) at a random moment of the window. Reports, per
 * viewer, the answer's acknowledgement time and every results push (time and total). Raw `ws`, so one
 * process holds thousands.
 */
import WebSocket from 'ws';
import { messageText } from '../shared/wsMessage';

interface Start {
  type: 'start';
  url: string;
  siteId: string;
  pollId: string;
  tokens: string[];
  answerIds: string[];
  concurrency: number;
}

interface Answer {
  type: 'answer';
  /** Wall-clock ms when the window opens. */
  startAt: number;
  windowMs: number;
}

const SUBSCRIPTION = 'subscription($pollId: ID!) { pollResults(pollId: $pollId) { total open answers { id count } mine { answerId } } }';
const MUTATION = 'mutation($pollId: ID!, $answerId: ID!) { answerPoll(pollId: $pollId, answerId: $answerId) { success } }';
const now = () => performance.timeOrigin + performance.now();

interface Viewer {
  socket: WebSocket;
  answerId: string;
  sentAt: number;
  ackAt: number;
  ackError: string | null;
  pushes: [at: number, total: number][];
}

const viewers: Viewer[] = [];
let pollId = '';
let failures = 0;
let subscribed = 0;

/** Connections given up on, and retries made: a viewer whose socket closes before its first results reconnects, as graphql-ws clients do. */
const ATTEMPTS = 5;
let retries = 0;

function openViewer(start: Start, token: string, answerId: string): Promise<void> {
  const viewer: Viewer = { socket: null as unknown as WebSocket, answerId, sentAt: 0, ackAt: 0, ackError: null, pushes: [] };
  viewers.push(viewer);
  return new Promise((resolve) => {
    const connect = (attempt: number) => {
      const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
      viewer.socket = socket;
      let settled = false;
      const giveUpOrRetry = () => {
        if (settled || viewer.pushes.length > 0) return;
        settled = true;
        if (attempt + 1 >= ATTEMPTS) {
          failures += 1;
          resolve();
          return;
        }
        retries += 1;
        setTimeout(() => connect(attempt + 1), 200 + Math.random() * 800);
      };
      socket.on('open', () =>
        socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': start.siteId, Authorization: `Bearer ${token}` } })),
      );
      socket.on('message', (data) => {
        const at = now();
        const text = messageText(data);
        // Results pushes are most of the traffic: read their total without parsing the whole frame.
        if (text.startsWith('{"id":"results","type":"next"')) {
          const total = /"total":(\d+)/.exec(text);
          if (total) {
            if (viewer.pushes.length === 0) {
              subscribed += 1;
              resolve();
            }
            viewer.pushes.push([at, Number(total[1])]);
            return;
          }
        }
        const message = JSON.parse(text) as { type: string; id?: string; payload?: any };
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id: 'results', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { pollId: start.pollId } } }));
          return;
        }
        if (message.id === 'answer' && message.type === 'next') {
          viewer.ackAt = at;
          const error = message.payload?.errors?.[0];
          if (error) viewer.ackError = `${error.extensions?.code ?? ''} ${error.message}`;
        } else if (message.type === 'error') {
          socket.close();
          giveUpOrRetry();
        }
      });
      socket.on('error', giveUpOrRetry);
      socket.on('close', giveUpOrRetry);
    };
    connect(0);
  });
}

async function onMessage(message: Start | Answer | { type: 'report' } | { type: 'close' }): Promise<void> {
  if (message.type === 'start') {
    pollId = message.pollId;
    for (let opened = 0; opened < message.tokens.length; opened += message.concurrency) {
      const batch = message.tokens.slice(opened, opened + message.concurrency);
      await Promise.all(batch.map((token, index) => openViewer(message, token, message.answerIds[opened + index])));
    }
    process.send?.({ type: 'ready', subscribed, failures, retries });
  } else if (message.type === 'answer') {
    for (const viewer of viewers) {
      const delay = message.startAt + Math.random() * message.windowMs - now();
      setTimeout(
        () => {
          viewer.sentAt = now();
          viewer.socket.send(
            JSON.stringify({ id: 'answer', type: 'subscribe', payload: { query: MUTATION, variables: { pollId, answerId: viewer.answerId } } }),
          );
        },
        Math.max(0, delay),
      );
    }
    process.send?.({ type: 'scheduled' });
  } else if (message.type === 'report') {
    process.send?.({
      type: 'report',
      viewers: viewers.map((viewer) => ({ sentAt: viewer.sentAt, ackAt: viewer.ackAt, ackError: viewer.ackError, pushes: viewer.pushes })),
    });
  } else if (message.type === 'close') {
    for (const viewer of viewers) viewer.socket.terminate();
    process.exit(0);
  }
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: Start | Answer | { type: 'report' } | { type: 'close' }) => void onMessage(message));
