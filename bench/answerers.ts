/**
 * A bench worker process for the answers section: opens signed-in viewer sockets (graphql-transport-ws,
 * the viewer's JWT in connectionParams), subscribes each to pollResults, and on command each viewer
 * answers the poll on its own socket (answerPoll) at a random moment of the window. Reports, per
 * viewer, the answer's acknowledgement time and every results push (time and total). Raw `ws`, so one
 * process holds thousands.
 */
import WebSocket from 'ws';

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

function openViewer(start: Start, token: string, answerId: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
    const viewer: Viewer = { socket, answerId, sentAt: 0, ackAt: 0, ackError: null, pushes: [] };
    viewers.push(viewer);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': start.siteId, Authorization: `Bearer ${token}` } })));
    socket.on('message', (data) => {
      const at = now();
      const message = JSON.parse(data.toString()) as { type: string; id?: string; payload?: any };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: 'results', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { pollId: start.pollId } } }));
        return;
      }
      if (message.id === 'results' && message.type === 'next') {
        const results = message.payload?.data?.pollResults;
        if (results) {
          if (viewer.pushes.length === 0) {
            subscribed += 1;
            resolve();
          }
          viewer.pushes.push([at, results.total]);
        }
      } else if (message.id === 'answer' && message.type === 'next') {
        viewer.ackAt = at;
        const error = message.payload?.errors?.[0];
        if (error) viewer.ackError = `${error.extensions?.code ?? ''} ${error.message}`;
      } else if (message.type === 'error') {
        failures += 1;
        resolve();
      }
    });
    socket.on('error', () => {
      failures += 1;
      resolve();
    });
    socket.on('close', () => resolve());
  });
}

process.on('message', async (message: Start | Answer | { type: 'report' } | { type: 'close' }) => {
  if (message.type === 'start') {
    pollId = message.pollId;
    for (let opened = 0; opened < message.tokens.length; opened += message.concurrency) {
      const batch = message.tokens.slice(opened, opened + message.concurrency);
      await Promise.all(batch.map((token, index) => openViewer(message, token, message.answerIds[opened + index])));
    }
    process.send?.({ type: 'ready', subscribed, failures });
  } else if (message.type === 'answer') {
    for (const viewer of viewers) {
      const delay = message.startAt + Math.random() * message.windowMs - now();
      setTimeout(() => {
        viewer.sentAt = now();
        viewer.socket.send(JSON.stringify({ id: 'answer', type: 'subscribe', payload: { query: MUTATION, variables: { pollId, answerId: viewer.answerId } } }));
      }, Math.max(0, delay));
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
});
