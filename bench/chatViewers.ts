/**
 * A chat bench worker process: opens many viewer sockets speaking graphql-transport-ws, subscribes each
 * to chatMessages(panelId), and records per viewer when each message (by seq) arrived, whether any came
 * twice or out of order, and how many frames it got per second. Minimal (raw `ws`, seqs read by a
 * regular expression) so one process holds thousands.
 */
import WebSocket from 'ws';
import { serveRoomViewers, subscribeRoom, type RoomViewersStart } from './viewerBatches';

type Start = RoomViewersStart;

interface Report {
  type: 'report';
  /** Each message's seq, when its acknowledgement arrived and when it was sent (ms, wall clock). */
  acks: [number, number, number][];
  /** Reactions accepted per emoji: what each viewer's counts must add up to. */
  reactions?: Record<string, number>;
}

const SUBSCRIPTION =
  'subscription($panelId: ID!) { chatMessages(panelId: $panelId) { kind ids messages { id seq text author { accountId name } created } reactions { emoji count } } }';
const REACTIONS = /"reactions":\[([^\]]*)\]/;
const REACTION = /"emoji":"((?:[^"\\]|\\.)*)","count":(\d+)/g;
const now = () => performance.timeOrigin + performance.now();
const HISTOGRAM_MS = 10_000;

interface ViewerState {
  socket: WebSocket;
  started: boolean;
  lastSeq: number;
  received: number;
  disorder: number;
  frames: number[];
  maxFramesPerSecond: number;
  frameCount: number;
  firstFrameAt: number;
  lastFrameAt: number;
  /** Reaction counts received, summed per emoji. */
  reactions: Map<string, number>;
}

const viewers: ViewerState[] = [];
/** seq → receipt time per viewer (index in `viewers`). */
const receipts = new Map<number, Float64Array>();
let capacity = 0;

function onFrame(viewer: ViewerState, index: number, text: string): void {
  if (!text.includes('"type":"next"')) return;
  if (!viewer.started) {
    viewer.started = true;
    return;
  }
  const at = now();
  viewer.frameCount += 1;
  if (viewer.firstFrameAt === 0) viewer.firstFrameAt = at;
  viewer.lastFrameAt = at;
  viewer.frames.push(at);
  while (at - viewer.frames[0] >= 1000) viewer.frames.shift();
  viewer.maxFramesPerSecond = Math.max(viewer.maxFramesPerSecond, viewer.frames.length);
  const counts = REACTIONS.exec(text);
  if (counts) for (const [, emoji, count] of counts[1].matchAll(REACTION)) viewer.reactions.set(emoji, (viewer.reactions.get(emoji) ?? 0) + Number(count));
  for (const match of text.matchAll(/"seq":(\d+)/g)) {
    const seq = Number(match[1]);
    if (seq <= viewer.lastSeq) viewer.disorder += 1;
    viewer.lastSeq = Math.max(viewer.lastSeq, seq);
    viewer.received += 1;
    let times = receipts.get(seq);
    if (!times) receipts.set(seq, (times = new Float64Array(capacity)));
    times[index] = at;
  }
}

function openViewer(start: Start, index: number): Promise<void> {
  const { socket, opened } = subscribeRoom(start, SUBSCRIPTION, (text) => {
    const wasStarted = viewer.started;
    onFrame(viewer, index, text);
    return !wasStarted && viewer.started;
  });
  const viewer: ViewerState = {
    socket,
    started: false,
    lastSeq: 0,
    received: 0,
    disorder: 0,
    frames: [],
    maxFramesPerSecond: 0,
    frameCount: 0,
    firstFrameAt: 0,
    lastFrameAt: 0,
    reactions: new Map(),
  };
  viewers[index] = viewer;
  return opened;
}

/** Whether a viewer's reaction counts add up to exactly what was accepted (emoji as JSON escapes them). */
function exactReactions(viewer: ViewerState, expected: Record<string, number>): boolean {
  const wanted = Object.entries(expected).filter(([, count]) => count > 0);
  if (wanted.length !== viewer.reactions.size) return false;
  return wanted.every(([emoji, count]) => viewer.reactions.get(JSON.stringify(emoji).slice(1, -1)) === count);
}

function report({ acks, reactions = {} }: Report) {
  const histogram = new Uint32Array(HISTOGRAM_MS + 1);
  const fromSend = new Uint32Array(HISTOGRAM_MS + 1);
  let missing = 0;
  for (const [seq, ackedAt, sentAt] of acks) {
    const times = receipts.get(seq);
    for (let index = 0; index < viewers.length; index += 1) {
      const at = times?.[index] ?? 0;
      if (at === 0) {
        missing += 1;
        continue;
      }
      histogram[Math.min(HISTOGRAM_MS, Math.max(0, Math.round(at - ackedAt)))] += 1;
      fromSend[Math.min(HISTOGRAM_MS, Math.max(0, Math.round(at - sentAt)))] += 1;
    }
  }
  const complete = viewers.filter((viewer) => viewer.received === acks.length && viewer.disorder === 0).length;
  return {
    type: 'receipts',
    histogram: Array.from(histogram),
    sendHistogram: Array.from(fromSend),
    missing,
    viewers: viewers.length,
    complete,
    exactReactions: viewers.filter((viewer) => exactReactions(viewer, reactions)).length,
    reactionsSeen: Object.fromEntries(viewers[0]?.reactions ?? []),
    disorder: viewers.reduce((sum, viewer) => sum + viewer.disorder, 0),
    maxFramesPerSecond: Math.max(0, ...viewers.map((viewer) => viewer.maxFramesPerSecond)),
    // Frames per second over the time the messages came in, averaged over viewers.
    meanFramesPerSecond:
      viewers.reduce((sum, viewer) => sum + (viewer.frameCount > 1 ? (viewer.frameCount - 1) / ((viewer.lastFrameAt - viewer.firstFrameAt) / 1000) : 0), 0) /
      Math.max(1, viewers.length),
  };
}

serveRoomViewers<Report>({
  open: (start, index) => {
    // Receipts of a message are kept per viewer index, one slot each.
    capacity = Math.max(capacity, start.count);
    return openViewer(start, index);
  },
  started: () => viewers.filter((viewer) => viewer.started).length,
  report,
  close: () => viewers.forEach((viewer) => viewer.socket.terminate()),
});
