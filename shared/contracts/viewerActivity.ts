/**
 * What the gateway's live server and the content subgraph both speak about viewers taking part: the bus
 * messages of poll results, the results a viewer sees, quest progress and its live feed, and the seconds
 * an account watched (which the live server counts and the content subgraph stores). One module both
 * import, so the gateway knows these shapes without knowing the subgraph's internals.
 */
import { Topics } from '../bus';
import type { Identity } from '../auth/identity';
import { unauthenticated } from '../errors';
import type { PollResults } from './viewerProtocol';

/** Format version of the bus messages below: an instance reads this and the versions before it. */
export const POLL_RESULTS_MESSAGE_VERSION = 1;

/**
 * What goes over Topics.pollResults: `answered` after a batch of answers was stored (account, answer and
 * channel of each: what live results and quest progress need), or `changed` after an admin changed the
 * poll (closed, resolved, edited, deleted).
 */
export interface PollResultsMessage {
  v: number;
  siteId: string;
  pollId: string;
  answered?: [accountId: string, answerId: string, channelId: string | null][];
  changed?: boolean;
}

/** The live results of a poll (one shape with the browser side, shared/contracts/viewerProtocol.ts). */
export type PollResultsModel = PollResults;

export interface ActionProgressView {
  arrayId: string;
  kind: string;
  value: number;
  valueRequired: number;
  done: boolean;
}

/** What questProgress answers and pushes. */
export interface QuestProgressView {
  questId: string;
  accountId: string;
  completed: boolean;
  completedAt: number | null;
  claimId: string | null;
  /** The quest's claimedMessage once completed (what the viewer is shown for the reward); null before. */
  claimedMessage: string | null;
  actions: ActionProgressView[];
}

/** Seconds one account watched one channel during one minute. */
export interface WatchedMinute {
  siteId: string;
  accountId: string;
  channelId: string;
  /** Whole minutes since the epoch. */
  minute: number;
  /** Bit s (0–59) = second s of the minute was watched. */
  mask: bigint;
}

/** The gateway's live feed of `questProgress`: a signed-in account's own progress, of one quest or all. */
export const questProgressFeed = {
  topic: Topics.questProgress,
  authorize(identity: Identity): void {
    if (!identity.account) throw unauthenticated('questProgress needs the viewer’s JWT in connectionParams');
  },
  audienceOf(identity: Identity): string {
    return identity.account?.id ?? '';
  },
  matches(event: unknown, args: Record<string, unknown>): boolean {
    return typeof args.questId !== 'string' || (event as QuestProgressView).questId === args.questId;
  },
};
