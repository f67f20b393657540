/**
 * A chat room's pushes on their way to its viewers: one pass over the viewers at a time, in slices of time
 * (gateway/live/passSlices.ts) so that an acknowledgement waits at most one slice per turn of the loop.
 *
 * A flush does not wait for the pass before it. It is added to the room's outgoing pushes at once, and the
 * pass under way gives every viewer it has not reached yet all it lacks in one frame (what one flush would
 * have made of it: chatCounts.ts `joinEvents`); another lap then brings it to the viewers the pass had
 * already passed. A push then reaches every viewer within about one pass, where waiting for the pass
 * before it took up to two, and a viewer still gets one frame per visit. Each viewer keeps only the
 * number of the last push it has (Viewer.through); the frames of what follows a number are rendered once
 * per selection and shared by every viewer at that number.
 */
import type { ChatEventView } from '../../../shared/contracts/chatEvents';
import { PassSlices } from '../passSlices';
import { joinEvents } from './chatCounts';
import { isClosed, type Room, type Viewer } from './chatRoom';
import type { RenderedEvent } from '../viewerChannel';

/** Adds a flush's events to the room's outgoing pushes; true when a pass must start (none is under way). */
export function addOutgoing(room: Room, events: ChatEventView[]): boolean {
  room.lastOutgoing += 1;
  room.outgoing.push({ id: room.lastOutgoing, events });
  room.catchUps.clear();
  return room.state.push === 'idle';
}

/** Marks a viewer as having everything pushed so far (its first event was made after it). */
export function caughtUp(room: Room, viewer: Viewer): void {
  viewer.through = room.lastOutgoing;
}

/**
 * Gives every started viewer of the room the pushes it lacks, lap after lap, until a lap ends with no
 * push added during it: then every viewer has every push.
 */
export async function pass(room: Room): Promise<void> {
  const slices = new PassSlices();
  for (;;) {
    const lapTarget = room.lastOutgoing;
    // A Set visits the viewers that joined during the lap too (they start caught up) and skips those that left.
    for (const viewer of room.viewers) {
      if (slices.spent()) {
        await slices.yield();
        if (isClosed(room)) return;
      }
      if (viewer.started && viewer.through < room.lastOutgoing) deliver(room, viewer);
    }
    // Every viewer now has every push up to lapTarget: those are nobody's to send any more.
    const kept = room.outgoing.findIndex((outgoing) => outgoing.id > lapTarget);
    room.outgoing = kept < 0 ? [] : room.outgoing.slice(kept);
    if (room.lastOutgoing === lapTarget || isClosed(room)) return;
  }
}

function deliver(room: Room, viewer: Viewer): void {
  const { subscription } = viewer;
  // What it is sent now; a push added while it is sent (a flush from inside a write) is the next lap's.
  const through = room.lastOutgoing;
  if (viewer.hasThrough > 0) {
    // Reconnected ahead of this instance: its own rendering, without what it already has.
    for (const event of eventsAfter(room, viewer.through)) {
      const messages = event.messages.filter((message) => message.seq > viewer.hasThrough);
      // Nothing new for it unless counts ride on the event (they are this viewer's too).
      if (event.kind === 'MESSAGES' && messages.length === 0 && !event.reactions && event.viewers == null) continue;
      subscription.send(subscription.render({ chatMessages: { ...event, messages } }));
    }
    if (room.sentSeq >= viewer.hasThrough) viewer.hasThrough = 0;
  } else {
    // By number, then by selection: no key is built per viewer (a selection's key is its whole document).
    let bySelection = room.catchUps.get(viewer.through);
    if (!bySelection) room.catchUps.set(viewer.through, (bySelection = new Map<string, RenderedEvent[]>()));
    let frames = bySelection.get(subscription.documentKey);
    if (!frames)
      bySelection.set(subscription.documentKey, (frames = eventsAfter(room, viewer.through).map((event) => subscription.render({ chatMessages: event }))));
    for (const frame of frames) subscription.send(frame);
  }
  viewer.through = through;
}

/** The events of the pushes after `through`, consecutive messages and counts joined as one flush would have sent them. */
function eventsAfter(room: Room, through: number): ChatEventView[] {
  const events: ChatEventView[] = [];
  for (const outgoing of room.outgoing) {
    if (outgoing.id <= through) continue;
    for (const event of outgoing.events) {
      const joined = events.length > 0 ? joinEvents(events[events.length - 1], event) : null;
      if (joined) events[events.length - 1] = joined;
      else events.push(event);
    }
  }
  return events;
}
