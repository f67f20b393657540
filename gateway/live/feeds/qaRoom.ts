/**
 * The `qaRoom` subscription: a Q&A room live, for thousands of viewers per instance.
 *
 * As poll results are (feeds/pollResults.ts), each instance keeps, per room that has subscribers here, the
 * room as every viewer sees it — the open and answered questions in room order with their votes, read
 * from the database through the content subgraph, so every instance shows the same exact counts. The
 * content subgraph announces on the bus (Topics.qaRoom) that a room changed (a batch of votes stored, a
 * question asked or moderated); the instance then reads the room again at most once a second and pushes
 * it to its subscribers: one rendering per distinct document, never one per viewer, and no viewer gets
 * more than one push a second. What differs per viewer (its own votes, its held questions) is the
 * query's (`qaQuestions`) and the answers of its own calls, not the live room's.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Identity } from '../../../shared/auth/identity';
import { Topics, type EventBus } from '../../../shared/bus';
import { QA_PUSH_INTERVAL_MS, type QaQuestionView, type QaRoomEventView, type QaRoomMessage } from '../../../shared/contracts/qaEvents';
import { ErrorCode } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { Logger } from '../../../shared/logger';
import type { LiveStream, LiveStreamSubscription } from '../streams';
import { closePaced, pushRound, schedulePush, type Paced, type PacedViewer } from './pacedPushes';
import type { RenderedEvent } from '../viewerChannel';

export interface QaRoomSource {
  /** The room as the site ID alone reads it; throws a GraphQLError (NOT_FOUND) for an unknown room. */
  load(siteId: string, panelId: string): Promise<QaRoomEventView>;
}

const LOAD_ROOM = /* GraphQL */ `
  query LiveQaRoom($panelId: ID!) { qaQuestions(panelId: $panelId) { results { id panelId text votes status highlighted author { accountId name } created } } }
`;
export const QA_ROOM_OPERATIONS = [LOAD_ROOM];

type Execute = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

/** Reads through the gateway (the content subgraph owns Q&A) as the site ID alone reads it: shown questions only. */
export function qaRoomSource(execute: Execute): QaRoomSource {
  return {
    async load(siteId, panelId) {
      const viewer: Identity = { siteId, developerKey: false, account: null, requestId: newId() };
      const result = await execute({ query: LOAD_ROOM, variables: { panelId } }, viewer);
      const [error] = result.errors ?? [];
      if (error) throw new GraphQLError(error.message, { extensions: { code: error.extensions?.code } });
      const questions = (result.data as { qaQuestions: { results: Omit<QaQuestionView, 'votedByMe'>[] } }).qaQuestions.results.map((question) => ({
        ...question,
        votedByMe: null,
      }));
      return { panelId, questions, highlightedId: questions.find((question) => question.highlighted)?.id ?? null };
    },
  };
}

interface Viewer extends PacedViewer {
  subscription: LiveStreamSubscription;
  sentVersion: number;
}

interface RoomState extends Paced {
  siteId: string;
  panelId: string;
  room: QaRoomEventView | null;
  /** The room as JSON, to tell a read that changed nothing. */
  json: string;
  /** Bumped whenever a read changed the room. */
  version: number;
  viewers: Set<Viewer>;
  /** The room may have changed since the last read. */
  stale: boolean;
  running: boolean;
}

export class QaRoomFeed implements LiveStream {
  private readonly rooms = new Map<string, RoomState>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly source: QaRoomSource,
    bus: EventBus,
    private readonly logger: Logger,
    private readonly intervalMs = QA_PUSH_INTERVAL_MS,
  ) {
    this.unsubscribe = bus.subscribe(Topics.qaRoom, (message) => this.onMessage(message as QaRoomMessage));
  }

  close(): void {
    this.unsubscribe();
    for (const state of this.rooms.values()) this.dropState(state);
  }

  subscribe(subscription: LiveStreamSubscription): () => void {
    const state = this.stateOf(subscription.identity.siteId as string, String(subscription.args.panelId));
    const viewer: Viewer = { subscription, sentVersion: -1, lastSentAt: 0 };
    state.viewers.add(viewer);
    // The first event as soon as the room is known: a viewer never waits a second for its first look.
    if (state.room) this.sendTo(viewer, state.version, viewer.subscription.render({ qaRoom: state.room }));
    return () => this.remove(state, viewer);
  }

  private stateOf(siteId: string, panelId: string): RoomState {
    const key = `${siteId}\u0000${panelId}`;
    const existing = this.rooms.get(key);
    if (existing) return existing;
    const state: RoomState = {
      key,
      siteId,
      panelId,
      room: null,
      json: '',
      version: 0,
      viewers: new Set(),
      stale: true,
      timer: null,
      running: false,
      lastPushAt: 0,
      closed: false,
    };
    this.rooms.set(key, state);
    this.schedule(state, 0);
    return state;
  }

  private remove(state: RoomState, viewer: Viewer): void {
    if (state.viewers.delete(viewer) && state.viewers.size === 0) this.dropState(state);
  }

  private dropState(state: RoomState): void {
    closePaced(this.rooms, state);
  }

  private onMessage(message: QaRoomMessage): void {
    if (!message || typeof message !== 'object' || typeof message.v !== 'number') return;
    const state = this.rooms.get(`${message.siteId}\u0000${message.panelId}`);
    if (!state || state.closed) return;
    state.stale = true;
    this.schedule(state, state.lastPushAt + this.intervalMs - Date.now());
  }

  private schedule(state: RoomState, delay: number): void {
    schedulePush(state, delay, () => void this.push(state));
  }

  /** The room cannot be read (deleted, or never the site's): every subscriber gets the error, and the state goes. */
  private failAll(state: RoomState, error: GraphQLError): void {
    this.dropState(state);
    for (const viewer of [...state.viewers]) viewer.subscription.fail([error]);
    state.viewers.clear();
  }

  /** Reads the room when something changed, then pushes it to each viewer that has not had this version. */
  private async push(state: RoomState): Promise<void> {
    if (state.running || state.closed) return;
    state.running = true;
    try {
      if (state.stale) {
        state.stale = false;
        try {
          const room = await this.source.load(state.siteId, state.panelId);
          const json = JSON.stringify(room);
          if (json !== state.json) {
            state.room = room;
            state.json = json;
            state.version += 1;
          }
        } catch (error) {
          if (error instanceof GraphQLError && error.extensions.code === ErrorCode.NOT_FOUND) return this.failAll(state, error);
          // A passing failure (a subgraph restarting): read again at the next interval; the first read fails its viewers.
          state.stale = true;
          this.logger.warn({ err: (error as Error).message, panelId: state.panelId }, 'could not read a Q&A room');
          if (!state.room) {
            const unavailable = new GraphQLError('the Q&A room is unavailable, try again shortly', { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } });
            return this.failAll(state, unavailable);
          }
          return;
        }
      }
      const { room, version } = state;
      if (state.closed || !room) return;
      const rendered = new Map<string, RenderedEvent>();
      const deferred = await pushRound(
        state,
        [...state.viewers],
        this.intervalMs,
        (viewer) => viewer.sentVersion !== version && state.viewers.has(viewer),
        (viewer) => {
          let payload = rendered.get(viewer.subscription.documentKey);
          if (!payload) rendered.set(viewer.subscription.documentKey, (payload = viewer.subscription.render({ qaRoom: room })));
          this.sendTo(viewer, version, payload);
        },
      );
      if (deferred) this.schedule(state, this.intervalMs);
    } finally {
      state.running = false;
      if (state.stale && !state.closed) this.schedule(state, state.lastPushAt + this.intervalMs - Date.now());
    }
  }

  private sendTo(viewer: Viewer, version: number, payload: RenderedEvent): void {
    viewer.sentVersion = version;
    viewer.lastSentAt = Date.now();
    viewer.subscription.send(payload);
  }
}
