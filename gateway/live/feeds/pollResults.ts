/**
 * The `pollResults` subscription: live results of a poll for thousands of viewers per instance.
 *
 * Each instance keeps, per poll that has subscribers here, the results as a viewer sees them (counts,
 * the right answer once revealed), read from the database through the content subgraph — the database
 * is the truth, so every instance shows the same counts. The content subgraph announces on the bus
 * (Topics.pollResults) which accounts answered after each stored batch, and when an admin changed the
 * poll; the instance then recounts at most once per 500 ms per poll and pushes the new results to its
 * subscribers. A viewer's own answer (`mine`) comes from the same announcements (and one batched read at
 * subscribe), so it costs no query per viewer. A push renders the selection once per distinct document
 * and own answer, never once per viewer, and no viewer gets more than one push per 500 ms.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Authenticator } from '../../../shared/auth/authenticate';
import type { Identity } from '../../../shared/auth/identity';
import { newId } from '../../../shared/ids';
import { Topics, type EventBus } from '../../../shared/bus';
import type { Logger } from '../../../shared/logger';
import { ErrorCode } from '../../../shared/errors';
import type { PollResultsMessage, PollResultsModel } from '../../../shared/contracts/viewerActivity';
import type { LiveStream, LiveStreamSubscription } from '../streams';
import { closePaced, pushRound, schedulePush, type Paced, type PacedViewer } from './pacedPushes';
import type { RenderedEvent } from '../viewerChannel';

/** Shortest time between two pushes of a poll, and between two pushes to one viewer. */
export const PUSH_INTERVAL_MS = 500;
/** Accounts whose own answer one read asks for. */
const MINE_BATCH = 1000;

/** A poll's results as every viewer sees them (no `mine`). */
export type SharedPollResults = Omit<PollResultsModel, 'mine'>;

export interface PollResultsSource {
  /** The results as the site ID alone reads them; throws a GraphQLError (NOT_FOUND) for an unknown poll. */
  load(siteId: string, pollId: string): Promise<SharedPollResults>;
  /** The answers these accounts gave (accounts without one are left out). */
  answersOf(siteId: string, pollId: string, accountIds: string[]): Promise<{ accountId: string; answerId: string }[]>;
}

const LOAD_RESULTS = /* GraphQL */ `
  query LivePollResults($pollId: ID!) { pollResults(pollId: $pollId) { pollId type question open total answers { id text count } correctAnswerId } }
`;
const LOAD_ANSWERS = /* GraphQL */ `
  query LivePollAnswersOf($pollId: ID!, $accountIds: [ID!]!) { pollAnswersOf(pollId: $pollId, accountIds: $accountIds) { accountId answerId } }
`;
export const POLL_RESULTS_OPERATIONS = [LOAD_RESULTS, LOAD_ANSWERS];

type Execute = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

function dataOf<T>(result: ExecutionResult): T {
  const [error] = result.errors ?? [];
  if (error) throw new GraphQLError(error.message, { extensions: { code: error.extensions?.code } });
  return result.data as T;
}

/**
 * Reads through the gateway (the content subgraph owns polls): the results as the site ID alone reads
 * them, so the right answer stays secret exactly where it is for viewers; own answers as the service.
 */
export function pollResultsSource(execute: Execute, authenticator: Pick<Authenticator, 'serviceIdentity'>): PollResultsSource {
  return {
    async load(siteId, pollId) {
      const viewer: Identity = { siteId, developerKey: false, account: null, requestId: newId() };
      return dataOf<{ pollResults: SharedPollResults }>(await execute({ query: LOAD_RESULTS, variables: { pollId } }, viewer)).pollResults;
    },
    async answersOf(siteId, pollId, accountIds) {
      const result = await execute({ query: LOAD_ANSWERS, variables: { pollId, accountIds } }, authenticator.serviceIdentity(siteId));
      return dataOf<{ pollAnswersOf: { accountId: string; answerId: string }[] }>(result).pollAnswersOf;
    },
  };
}

interface Viewer extends PacedViewer {
  subscription: LiveStreamSubscription;
  accountId: string | null;
  /** The viewer's answer ID; '' none yet; null not known yet (the read at subscribe is pending). */
  mine: string | null;
  /** Whether the first event went out (nothing else goes before it). */
  started: boolean;
  sentVersion: number;
  sentMine: string | null;
}

interface PollState extends Paced {
  siteId: string;
  pollId: string;
  results: SharedPollResults | null;
  /** Bumped whenever a recount changed the results. */
  version: number;
  loaded: Promise<void>;
  viewers: Set<Viewer>;
  byAccount: Map<string, Set<Viewer>>;
  /** The results may have changed since the last recount. */
  stale: boolean;
  running: boolean;
  /** Accounts whose answer is to be read, and whether a read is scheduled. */
  mineQueue: string[];
  mineScheduled: boolean;
}

const mineOf = (results: SharedPollResults, answerId: string | null) =>
  answerId ? { answerId, correct: results.correctAnswerId === null ? null : answerId === results.correctAnswerId } : null;

export class PollResultsFeed implements LiveStream {
  private readonly polls = new Map<string, PollState>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly source: PollResultsSource,
    bus: EventBus,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = bus.subscribe(Topics.pollResults, (message) => this.onMessage(message as PollResultsMessage));
  }

  close(): void {
    this.unsubscribe();
    for (const state of this.polls.values()) this.dropState(state);
  }

  subscribe(subscription: LiveStreamSubscription): () => void {
    const siteId = subscription.identity.siteId as string;
    const pollId = String(subscription.args.pollId);
    const state = this.stateOf(siteId, pollId);
    const accountId = subscription.identity.account?.id ?? null;
    const viewer: Viewer = { subscription, accountId, mine: accountId ? null : '', started: false, sentVersion: -1, sentMine: null, lastSentAt: 0 };
    state.viewers.add(viewer);
    if (accountId) {
      let set = state.byAccount.get(accountId);
      if (!set) state.byAccount.set(accountId, (set = new Set()));
      set.add(viewer);
      this.queueMine(state, accountId);
    }
    void state.loaded.then(() => this.start(state, viewer));
    return () => this.remove(state, viewer);
  }

  // ------------------------------------------------------------------ state per poll

  private stateOf(siteId: string, pollId: string): PollState {
    const key = `${siteId}\u0000${pollId}`;
    const state = this.polls.get(key);
    if (state) return state;
    const created: PollState = {
      key,
      siteId,
      pollId,
      results: null,
      version: 0,
      loaded: Promise.resolve(),
      viewers: new Set(),
      byAccount: new Map(),
      stale: false,
      timer: null,
      running: false,
      lastPushAt: 0,
      mineQueue: [],
      mineScheduled: false,
      closed: false,
    };
    created.loaded = this.source.load(siteId, pollId).then(
      (results) => {
        created.results = results;
        created.version = 1;
      },
      (error: unknown) => this.failAll(created, error),
    );
    this.polls.set(key, created);
    return created;
  }

  private remove(state: PollState, viewer: Viewer): void {
    if (!state.viewers.delete(viewer)) return;
    if (viewer.accountId) {
      const set = state.byAccount.get(viewer.accountId);
      set?.delete(viewer);
      if (set?.size === 0) state.byAccount.delete(viewer.accountId);
    }
    if (state.viewers.size === 0) this.dropState(state);
  }

  private dropState(state: PollState): void {
    closePaced(this.polls, state);
  }

  /** The poll cannot be read (deleted, or never the site's): every subscriber gets the error, and the state goes. */
  private failAll(state: PollState, error: unknown): void {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : new GraphQLError('the poll results are unavailable, try again shortly', { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } });
    if (!(error instanceof GraphQLError)) this.logger.warn({ err: (error as Error).message, pollId: state.pollId }, 'could not read poll results');
    this.dropState(state);
    for (const viewer of [...state.viewers]) viewer.subscription.fail([graphqlError]);
    state.viewers.clear();
    state.byAccount.clear();
  }

  // ------------------------------------------------------------------ own answers

  /** Reads the viewer's own answer with others that subscribed in the same moment: one read for many viewers. */
  private queueMine(state: PollState, accountId: string): void {
    state.mineQueue.push(accountId);
    if (state.mineScheduled) return;
    state.mineScheduled = true;
    setImmediate(() => void this.readMine(state));
  }

  private async readMine(state: PollState): Promise<void> {
    while (state.mineQueue.length > 0 && !state.closed) {
      const accountIds = [...new Set(state.mineQueue.splice(0, MINE_BATCH))];
      let answers: { accountId: string; answerId: string }[] = [];
      try {
        answers = await this.source.answersOf(state.siteId, state.pollId, accountIds);
      } catch (error) {
        // Without it the viewer gets null for now; its answer arrives with the next announcement of it.
        this.logger.warn({ err: (error as Error).message, pollId: state.pollId }, 'could not read viewers’ own poll answers');
      }
      const found = new Map(answers.map((answer) => [answer.accountId, answer.answerId]));
      for (const accountId of accountIds) {
        for (const viewer of state.byAccount.get(accountId) ?? []) {
          // An announcement may have told it meanwhile; a read never takes an answer away.
          if (viewer.mine === null || viewer.mine === '') viewer.mine = found.get(accountId) ?? '';
          this.start(state, viewer);
        }
      }
    }
    state.mineScheduled = false;
  }

  // ------------------------------------------------------------------ pushes

  /** The first event, once the results and the viewer's own answer are known. */
  private start(state: PollState, viewer: Viewer): void {
    if (viewer.started || !state.results || viewer.mine === null || !state.viewers.has(viewer)) return;
    viewer.started = true;
    this.sendTo(viewer, state.version, viewer.subscription.render({ pollResults: { ...state.results, mine: mineOf(state.results, viewer.mine) } }));
  }

  private onMessage(message: PollResultsMessage): void {
    if (!message || typeof message !== 'object' || typeof message.v !== 'number') return;
    const state = this.polls.get(`${message.siteId}\u0000${message.pollId}`);
    if (!state || state.closed) return;
    for (const [accountId, answerId] of Array.isArray(message.answered) ? message.answered : []) {
      for (const viewer of state.byAccount.get(accountId) ?? []) viewer.mine = answerId;
    }
    state.stale = true;
    this.schedule(state, state.lastPushAt + PUSH_INTERVAL_MS - Date.now());
  }

  private schedule(state: PollState, delay: number): void {
    schedulePush(state, delay, () => void this.push(state));
  }

  /** Recounts when something changed, then pushes to each viewer whose results or own answer changed. */
  private async push(state: PollState): Promise<void> {
    if (state.running) return;
    state.running = true;
    try {
      await state.loaded;
      if (state.closed || !state.results) return;
      if (state.stale) {
        state.stale = false;
        let results: SharedPollResults;
        try {
          results = await this.source.load(state.siteId, state.pollId);
        } catch (error) {
          if (error instanceof GraphQLError && error.extensions.code === ErrorCode.NOT_FOUND) this.failAll(state, error);
          else {
            // A passing failure (a subgraph restarting): try again at the next interval.
            state.stale = true;
            this.logger.warn({ err: (error as Error).message, pollId: state.pollId }, 'could not recount poll results');
          }
          return;
        }
        if (JSON.stringify(results) !== JSON.stringify(state.results)) {
          state.results = results;
          state.version += 1;
        }
      }
      const { results, version } = state;
      // One rendering per document and own answer (a handful per poll), whatever the number of viewers.
      const rendered = new Map<string, Map<string, RenderedEvent>>();
      const deferred = await pushRound(
        state,
        [...state.viewers],
        PUSH_INTERVAL_MS,
        // A viewer whose first event went out moments ago waits for the next round: never 2 pushes in 500 ms.
        (viewer) => viewer.started && state.viewers.has(viewer) && (viewer.sentVersion !== version || viewer.sentMine !== viewer.mine),
        (viewer) => {
          let byMine = rendered.get(viewer.subscription.documentKey);
          if (!byMine) rendered.set(viewer.subscription.documentKey, (byMine = new Map<string, RenderedEvent>()));
          let payload = byMine.get(viewer.mine ?? '');
          if (!payload)
            byMine.set(viewer.mine ?? '', (payload = viewer.subscription.render({ pollResults: { ...results, mine: mineOf(results, viewer.mine) } })));
          this.sendTo(viewer, version, payload);
        },
      );
      if (deferred) this.schedule(state, PUSH_INTERVAL_MS);
    } finally {
      state.running = false;
      if (state.stale && !state.closed) this.schedule(state, state.lastPushAt + PUSH_INTERVAL_MS - Date.now());
    }
  }

  private sendTo(viewer: Viewer, version: number, payload: RenderedEvent): void {
    viewer.sentVersion = version;
    viewer.sentMine = viewer.mine;
    viewer.lastSentAt = Date.now();
    viewer.subscription.send(payload);
  }
}
