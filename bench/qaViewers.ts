/**
 * A Q&A bench worker process: opens many viewer sockets speaking graphql-transport-ws, subscribes each to
 * qaRoom(panelId) with the site ID alone, and keeps per viewer the counts of the latest room it got, how
 * many frames it got per second, the shortest gap between two of them, and whether a count ever went back.
 * Minimal (raw `ws`) so one process holds thousands.
 */
import WebSocket from 'ws';
import { serveRoomViewers, subscribeRoom, type RoomViewersStart } from './viewerBatches';

type Start = RoomViewersStart;

interface Report {
  type: 'report';
  /** The exact votes per question: what each viewer's latest room must show. */
  expected: Record<string, number>;
}

const SUBSCRIPTION = 'subscription($panelId: ID!) { qaRoom(panelId: $panelId) { questions { id votes } } }';
const now = () => performance.timeOrigin + performance.now();

interface ViewerState {
  socket: WebSocket;
  started: boolean;
  counts: Map<string, number>;
  frames: number[];
  maxFramesPerSecond: number;
  frameCount: number;
  lastFrameAt: number;
  minGapMs: number;
  /** Times a question's count went down from one frame to the next (never, while votes only come). */
  decreases: number;
}

const viewers: ViewerState[] = [];

function onFrame(viewer: ViewerState, text: string): void {
  if (!text.includes('"type":"next"')) return;
  const payload = JSON.parse(text) as { payload?: { data?: { qaRoom?: { questions: { id: string; votes: number }[] } } } };
  const room = payload.payload?.data?.qaRoom;
  if (!room) return;
  for (const { id, votes } of room.questions) {
    if (votes < (viewer.counts.get(id) ?? 0)) viewer.decreases += 1;
    viewer.counts.set(id, votes);
  }
  const at = now();
  if (!viewer.started) {
    viewer.started = true;
    viewer.lastFrameAt = at;
    return;
  }
  viewer.frameCount += 1;
  viewer.minGapMs = Math.min(viewer.minGapMs, at - viewer.lastFrameAt);
  viewer.lastFrameAt = at;
  viewer.frames.push(at);
  while (at - viewer.frames[0] >= 1000) viewer.frames.shift();
  viewer.maxFramesPerSecond = Math.max(viewer.maxFramesPerSecond, viewer.frames.length);
}

function openViewer(start: Start, index: number): Promise<void> {
  const { socket, opened } = subscribeRoom(start, SUBSCRIPTION, (text) => {
    const wasStarted = viewer.started;
    onFrame(viewer, text);
    return !wasStarted && viewer.started;
  });
  const viewer: ViewerState = {
    socket,
    started: false,
    counts: new Map(),
    frames: [],
    maxFramesPerSecond: 0,
    frameCount: 0,
    lastFrameAt: 0,
    minGapMs: Infinity,
    decreases: 0,
  };
  viewers[index] = viewer;
  return opened;
}

const exact = (viewer: ViewerState, expected: Record<string, number>) =>
  Object.entries(expected).every(([id, votes]) => (viewer.counts.get(id) ?? 0) === votes);

function report({ expected }: Report) {
  return {
    type: 'receipts',
    viewers: viewers.length,
    exact: viewers.filter((viewer) => exact(viewer, expected)).length,
    decreases: viewers.reduce((sum, viewer) => sum + viewer.decreases, 0),
    maxFramesPerSecond: Math.max(0, ...viewers.map((viewer) => viewer.maxFramesPerSecond)),
    minGapMs: Math.min(Infinity, ...viewers.map((viewer) => viewer.minGapMs)),
    frames: viewers.reduce((sum, viewer) => sum + viewer.frameCount, 0),
  };
}

serveRoomViewers<Report>({
  open: (start, index) => {
    return openViewer(start, index);
  },
  started: () => viewers.filter((viewer) => viewer.started).length,
  report,
  close: () => viewers.forEach((viewer) => viewer.socket.terminate()),
});
