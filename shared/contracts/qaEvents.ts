/**
 * What the content subgraph (which stores Q&A questions and votes) and the gateway's live server (which
 * pushes the room to viewers) both speak about audience Q&A. The bus only says *that* a room changed; every
 * instance reads the room from the database (the truth), at most once a second, so every count is exact
 * on every instance and a burst of votes costs one read, not one per vote.
 */
import { Topics, type EventBus } from '../bus';

/** Format version of the Q&A bus messages: an instance reads this and the versions before it. */
export const QA_ROOM_MESSAGE_VERSION = 1;

/** Shortest time between two pushes of a room, and between two pushes to one viewer. */
export const QA_PUSH_INTERVAL_MS = 1000;

/** What goes over Topics.qaRoom: the room's questions, their statuses or their votes changed. */
export interface QaRoomMessage {
  v: number;
  siteId: string;
  panelId: string;
}

/** A question as viewers see it (the REST and GraphQL shape). */
export interface QaQuestionView {
  id: string;
  panelId: string;
  text: string;
  votes: number;
  /** held | open | answered | dismissed */
  status: string;
  highlighted: boolean;
  author: { accountId: string; name?: string | null } | null;
  created: number;
  votedByMe: boolean | null;
}

/** One event of the qaRoom subscription. */
export interface QaRoomEventView {
  panelId: string;
  questions: QaQuestionView[];
  highlightedId: string | null;
}

/**
 * Tells every instance a room changed. While Redis is away this instance's viewers learn it at once and
 * the others once it is back (the latest per room: one message says all a reader needs).
 */
export function announceQaRoom(bus: EventBus, siteId: string, panelId: string): void {
  const message: QaRoomMessage = { v: QA_ROOM_MESSAGE_VERSION, siteId, panelId };
  bus.announce(Topics.qaRoom, `${siteId}\u0000${panelId}`, 'latest', message);
}
