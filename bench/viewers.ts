/**
 * A bench worker process: opens many live-viewer sockets speaking graphql-transport-ws, subscribes
 * each to overlayBroadcasts, and reports to the parent (IPC) when all are subscribed and, per
 * broadcast, every viewer's receipt time. Kept minimal (raw `ws`) so one process holds thousands.
 */
import WebSocket from 'ws';
import type { ViewersStart as Start } from './harness';
import { openInBatches } from './viewerBatches';
import { collectOnRequest } from './clientGc';
import { messageText } from '../shared/wsMessage';

const SUBSCRIPTION = 'subscription($channelId: ID) { overlayBroadcasts(channelId: $channelId) { kind broadcastId overlay { id contents } expiresAt } }';
const now = () => performance.timeOrigin + performance.now();

const sockets: WebSocket[] = [];
/** broadcastId → receipt times (ms, wall clock). */
const receipts = new Map<string, number[]>();
let failures = 0;
/** Set when the parent ends the run: closes then are ours, not the server's. */
let closing = false;

function openViewer(start: Start, token?: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
    sockets.push(socket);
    const payload = token ? { 'x-service-client-id': start.siteId, Authorization: `Bearer ${token}` } : { 'x-service-client-id': start.siteId };
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload })));
    socket.on('message', (data) => {
      const text = messageText(data);
      if (text.startsWith('{"type":"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { channelId: start.channelId } } }));
        resolve();
        return;
      }
      const at = now();
      const match = /"broadcastId":"([0-9a-f]+)"/.exec(text);
      if (match && text.includes('"kind":"SHOW"')) {
        let list = receipts.get(match[1]);
        if (!list) receipts.set(match[1], (list = []));
        list.push(at);
      }
    });
    socket.on('error', () => {
      failures += 1;
      resolve();
    });
    // An instance draining (1012) or stopping (1001): back through the balancer after a jittered wait, as
    // the embed does, resubscribing (the live overlays come again). The socket's slot is taken by the new one.
    socket.on('close', (code) => {
      if (closing || (code !== 1012 && code !== 1001)) return;
      setTimeout(
        () => {
          sockets.splice(sockets.indexOf(socket), 1);
          void openViewer(start);
        },
        250 + Math.random() * 1000,
      );
    });
  });
}

type Message = Start | { type: 'report'; broadcastId: string } | { type: 'collect' } | { type: 'close' };

async function onMessage(message: Message): Promise<void> {
  if (message.type === 'start') {
    await openInBatches(message, (token) => openViewer(message, token));
    process.send?.({ type: 'ready', open: sockets.filter((socket) => socket.readyState === WebSocket.OPEN).length, failures });
  } else if (message.type === 'report') {
    process.send?.({ type: 'receipts', broadcastId: message.broadcastId, times: receipts.get(message.broadcastId) ?? [] });
  } else if (message.type === 'collect') {
    collectOnRequest();
  } else if (message.type === 'close') {
    closing = true;
    for (const socket of sockets) socket.terminate();
    process.exit(0);
  }
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: Message) => void onMessage(message));
