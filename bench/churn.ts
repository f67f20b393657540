/**
 * A bench worker for the soak: opens viewers at a steady rate, each living a random while, and
 * reports for every viewer when it subscribed, when it left and which broadcasts it was shown.
 */
import WebSocket from 'ws';
import { messageText } from '../shared/wsMessage';

interface Start {
  type: 'start';
  url: string;
  siteId: string;
  channelId: string;
  perSecond: number;
  seconds: number;
  minLifeMs: number;
  maxLifeMs: number;
}

export interface ViewerRecord {
  subscribedAt: number;
  closedAt: number;
  shown: string[];
  failed: boolean;
}

const SUBSCRIPTION = 'subscription($channelId: ID) { overlayBroadcasts(channelId: $channelId) { kind broadcastId } }';
const now = () => performance.timeOrigin + performance.now();
const records: ViewerRecord[] = [];

function viewer(start: Start): Promise<void> {
  return new Promise((resolve) => {
    const record: ViewerRecord = { subscribedAt: 0, closedAt: 0, shown: [], failed: false };
    records.push(record);
    const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
    const life = start.minLifeMs + Math.random() * (start.maxLifeMs - start.minLifeMs);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': start.siteId } })));
    socket.on('message', (data) => {
      const text = messageText(data);
      if (text.startsWith('{"type":"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { channelId: start.channelId } } }));
        record.subscribedAt = now();
        setTimeout(() => {
          record.closedAt = now();
          socket.close(1000);
        }, life);
        return;
      }
      const match = /"kind":"SHOW","broadcastId":"([0-9a-f]+)"/.exec(text);
      if (match) record.shown.push(match[1]);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {
      record.failed = true;
      resolve();
    });
  });
}

async function onMessage(message: Start): Promise<void> {
  if (message.type !== 'start') return;
  const opened: Promise<void>[] = [];
  const tick = 50;
  const perTick = (message.perSecond * tick) / 1000;
  let owed = 0;
  const ends = Date.now() + message.seconds * 1000;
  while (Date.now() < ends) {
    owed += perTick;
    for (; owed >= 1; owed -= 1) opened.push(viewer(message));
    await new Promise((resolve) => setTimeout(resolve, tick));
  }
  await Promise.all(opened);
  process.send?.({ type: 'done', records });
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: Start) => void onMessage(message));
