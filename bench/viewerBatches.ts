/** How a viewer worker (bench/viewers.ts, bench/showViewers.ts) opens its share: `concurrency` at a time, up to `count`. */
import WebSocket from 'ws';
import { messageText } from '../shared/wsMessage';
import type { ViewersStart } from './harness';

/** Opens `start.count` viewers, `start.concurrency` at once, each with its token when the start carries tokens. */
export async function openInBatches(start: ViewersStart, open: (token: string | undefined) => Promise<void>): Promise<void> {
  for (let opened = 0; opened < start.count; opened += start.concurrency) {
    const batch = Math.min(start.concurrency, start.count - opened);
    await Promise.all(Array.from({ length: batch }, (_, index) => open(start.tokens?.[opened + index])));
  }
}

/** What a room's viewer worker (bench/chatViewers.ts, bench/qaViewers.ts) is told: open `count` viewers, `concurrency` at once. */
export interface RoomViewersStart {
  type: 'start';
  url: string;
  siteId: string;
  panelId: string;
  count: number;
  concurrency: number;
}

/**
 * Runs a room's viewer worker over IPC: `start` opens the viewers in batches and answers `ready` with how many
 * started; `report` answers with `report`'s receipts; `close` ends every socket and the process.
 */
export function serveRoomViewers<Report extends { type: 'report' }>(worker: {
  open(start: RoomViewersStart, index: number): Promise<void>;
  started(): number;
  report(message: Report): object;
  close(): void;
}): void {
  const onMessage = async (message: RoomViewersStart | Report | { type: 'close' }): Promise<void> => {
    if (message.type === 'start') {
      for (let opened = 0; opened < message.count; opened += message.concurrency) {
        const batch = Math.min(message.concurrency, message.count - opened);
        await Promise.all(Array.from({ length: batch }, (_, index) => worker.open(message, opened + index)));
      }
      process.send?.({ type: 'ready', open: worker.started() });
    } else if (message.type === 'report') {
      process.send?.(worker.report(message));
    } else {
      worker.close();
      process.exit(0);
    }
  };
  // A step that fails rejects unheard, which ends the worker (Node's default), as it did inside the listener.
  process.on('message', (message: RoomViewersStart | Report | { type: 'close' }) => void onMessage(message));
}

/**
 * Opens one viewer's socket to a room (graphql-transport-ws, the site ID in connectionParams) and subscribes
 * with `query` once acknowledged; each later text frame goes to `onFrame`, which says whether the viewer has
 * its first event. `opened` resolves then (or when the socket fails).
 */
export function subscribeRoom(start: RoomViewersStart, query: string, onFrame: (text: string) => boolean): { socket: WebSocket; opened: Promise<void> } {
  const socket = new WebSocket(start.url, 'graphql-transport-ws', { perMessageDeflate: false });
  const opened = new Promise<void>((resolve) => {
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': start.siteId } })));
    socket.on('message', (data) => {
      const text = messageText(data);
      if (text.startsWith('{"type":"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables: { panelId: start.panelId } } }));
        return;
      }
      if (onFrame(text)) resolve();
    });
    socket.on('error', () => resolve());
  });
  return { socket, opened };
}
