/**
 * What the content subgraph keeps for audience Q&A between requests: each room's settings (panelRooms.ts), the
 * one-question-a-minute limit (counted in Redis when REDIS_URL is set, so N instances allow what one
 * does), the batched vote writer, and the announcement that tells every instance a room changed.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { announceQaRoom } from '../../../shared/contracts/qaEvents';
import type { Db } from '../../../shared/db/client';
import { openRateLimiters, spendLimit, type RateLimiters } from '../../../shared/rateLimits';
import type { ServiceDeps } from '../../../shared/subgraph';
import { PanelRooms } from '../panelRooms';
import { isQaRenderer, qaSettingsOf, type QaSettings } from './rules';
import { QaVoteWriter } from './votes';

/** One question a minute per account (YouTube Live's rule), across the site's rooms. */
const QUESTION_LIMIT = { keyPrefix: 'qa-question', points: 1, duration: 60 };
/** Votes per account: far beyond a viewer clicking, and stops a script hammering. */
const VOTE_LIMIT = { keyPrefix: 'qa-vote', points: 60, duration: 10 };

export class QaRuntime {
  readonly votes: QaVoteWriter;
  private readonly limits: RateLimiters;
  private readonly questionLimit: RateLimiterAbstract;
  private readonly voteLimit: RateLimiterAbstract;
  private readonly rooms: PanelRooms<QaSettings>;

  constructor(private readonly deps: Pick<ServiceDeps, 'config' | 'database' | 'bus' | 'logger'>) {
    this.votes = new QaVoteWriter(deps.database, (rooms) => rooms.forEach((room) => this.announce(room.siteId, room.panelId)));
    this.limits = openRateLimiters(deps.config, deps.logger);
    this.questionLimit = this.limits.limiter(QUESTION_LIMIT);
    this.voteLimit = this.limits.limiter(VOTE_LIMIT);
    this.rooms = new PanelRooms(deps.bus, (renderer) => (isQaRenderer(renderer) ? qaSettingsOf(renderer) : null), 'Q&A panel');
  }

  /** The room's settings, or NOT_FOUND when the site has no such panel or it is no Q&A panel. */
  room(db: Db, siteId: string, panelId: string): Promise<QaSettings> {
    return this.rooms.room(db, siteId, panelId);
  }

  /** Spends the account's question of the minute; RATE_LIMITED naming the rule when it was spent. */
  countQuestion(siteId: string, accountId: string): Promise<void> {
    return spendLimit(this.questionLimit, `${siteId}:${accountId}`, 'qa_question', (seconds) => `one question a minute per account; ask again in ${seconds} s`);
  }

  /** Spends one of the account's votes; RATE_LIMITED when none is left. */
  countVote(siteId: string, accountId: string): Promise<void> {
    return spendLimit(this.voteLimit, `${siteId}:${accountId}`, 'qa_votes', (seconds) => `too many votes from this account; try again in ${seconds} s`);
  }

  /** Gives back a question spent on a question that was then not stored (the database refused it). */
  async refundQuestion(siteId: string, accountId: string): Promise<void> {
    await this.questionLimit.reward(`${siteId}:${accountId}`, 1).catch(() => undefined);
  }

  /** Tells every instance the room changed (its viewers get it within a second). */
  announce(siteId: string, panelId: string): void {
    announceQaRoom(this.deps.bus, siteId, panelId);
  }

  async stop(): Promise<void> {
    this.rooms.stop();
    await this.limits.close();
  }
}
