/**
 * A bench worker process for the show: opens many live-viewer sockets speaking graphql-transport-ws,
 * each subscribed to channelStatus(channelId). When a viewer first sees `live: true` it holds the URL at
 * once when the event carries `playbackUrl` (an open channel), else it asks the content check with its
 * JWT, as a player behind a gate does, and holds the URL when the check answers it. A signed-in viewer
 * also asks the check once when it opens the page (before the show, as the watch page does), from the
 * same device it asks again from at go-live. Reports to the parent
 * (IPC) when all are subscribed and, on request, when each viewer came to hold the URL.
 */
import WebSocket from 'ws';
import type { ViewersStart as Start } from './harness';
import { openInBatches } from './viewerBatches';
import { messageText } from '../shared/wsMessage';

const SUBSCRIPTION = 'subscription($channelId: ID!) { channelStatus(channelId: $channelId) { state live playbackUrl } }';
const now = () => performance.timeOrigin + performance.now();

const sockets: WebSocket[] = [];
/** When each viewer came to hold the live URL (ms, wall clock). */
const holding: number[] = [];
let failures = 0;
let checkFailures = 0;

/** The content check from the viewer's device; at go-live (`atGoLive`) its answer is counted: the URL held, or a failure. */
async function askCheck(start: Start, token: string | undefined, device: string, atGoLive: boolean): Promise<void> {
  const base = start.url.replace('ws', 'http').replace(/\/graphql$/, '');
  const headers: Record<string, string> = { 'x-service-client-id': start.siteId, 'x-service-device-id': device };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const reply = await fetch(`${base}/pages/v2/content/id/${start.channelId}`, { headers });
    const body = (await reply.json()) as { canIPlayResponse?: { contentCheck?: { video?: { video?: { url?: string } | null } } } };
    if (!atGoLive) return;
    if (body.canIPlayResponse?.contentCheck?.video?.video?.url) holding.push(now());
    else checkFailures += 1;
  } catch {
    if (atGoLive) checkFailures += 1;
  }
}

let opened = 0;

function openViewer(start: Start, token?: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
    sockets.push(socket);
    let live = false;
    opened += 1;
    const device = `bench-${process.pid}-${opened}`;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': start.siteId } })));
    socket.on('message', (data) => {
      const text = messageText(data);
      if (text.startsWith('{"type":"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { channelId: start.channelId } } }));
        return;
      }
      if (text.startsWith('{"type":"error"') || text.includes('"errors"')) {
        failures += 1;
        return resolve();
      }
      if (!text.includes('"channelStatus"')) return;
      // The first event (at subscribe) says the viewer is in; a signed-in one opens the page (its first check).
      if (!text.includes('"live":true')) return token ? void askCheck(start, token, device, false).then(resolve) : resolve();
      if (live) return;
      live = true;
      if (text.includes('"playbackUrl":"')) holding.push(now());
      else void askCheck(start, token, device, true);
    });
    socket.on('error', () => {
      failures += 1;
      resolve();
    });
  });
}

async function onMessage(message: Start | { type: 'report' } | { type: 'close' }): Promise<void> {
  if (message.type === 'start') {
    await openInBatches(message, (token) => openViewer(message, token));
    process.send?.({ type: 'ready', open: sockets.filter((socket) => socket.readyState === WebSocket.OPEN).length, failures });
  } else if (message.type === 'report') {
    process.send?.({ type: 'holding', times: holding, checkFailures });
  } else if (message.type === 'close') {
    for (const socket of sockets) socket.terminate();
    process.exit(0);
  }
}

// A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
process.on('message', (message: Start | { type: 'report' } | { type: 'close' }) => void onMessage(message));
