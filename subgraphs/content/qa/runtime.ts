/**
 * What the content subgraph keeps for audience Q&A between requests: each room's settings (read from its
 * panel, kept half a second and dropped on every instance when the site's content changes), the
 * one-question-a-minute limit (counted in Redis when REDIS_URL is set, so N instances allow what one
 * does), the batched vote writer, and the announcement that tells every instance a room changed.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { announceQaRoom } from '../../../shared/contracts/qaEvents';
import type { Db } from '../../../shared/db/client';
import { appError, ErrorCode, notFound } from '../../../shared/errors';
import { openRateLimiters, type RateLimiters } from '../../../shared/rateLimits';
import type { ServiceDeps } from '../../../shared/subgraph';
import { onViewerReadsChanged } from '../../../shared/viewerReads';
import { channelsListing } from '../references';
import { isQaRenderer, qaSettingsOf, type QaSettings } from './rules';
import { QaVoteWriter } from './votes';

/** One question a minute per account (YouTube Live's rule), across the site's rooms. */
const QUESTION_LIMIT = { keyPrefix: 'qa-question', points: 1, duration: 60 };
/** Votes per account: far beyond a viewer clicking, and stops a script hammering. */
const VOTE_LIMIT = { keyPrefix: 'qa-vote', points: 60, duration: 10 };
const SETTINGS_TTL_MS = 500;
const SETTINGS_MAX = 10_000;
const MAX_LISTING_CHANNELS = 10;

export class QaRuntime {
  readonly votes: QaVoteWriter;
  private readonly limits: RateLimiters;
  private readonly questionLimit: RateLimiterAbstract;
  private readonly voteLimit: RateLimiterAbstract;
  private readonly settings = new Map<string, { value: QaSettings | null; expires: number }>();
  private readonly stopFollowing: () => void;

  constructor(private readonly deps: Pick<ServiceDeps, 'config' | 'database' | 'bus' | 'logger'>) {
    this.votes = new QaVoteWriter(deps.database, (rooms) => rooms.forEach((room) => this.announce(room.siteId, room.panelId)));
    this.limits = openRateLimiters(deps.config, deps.logger);
    this.questionLimit = this.limits.limiter(QUESTION_LIMIT);
    this.voteLimit = this.limits.limiter(VOTE_LIMIT);
    this.stopFollowing = onViewerReadsChanged(deps.bus, (siteId) => {
      if (siteId === null) this.settings.clear();
      else for (const key of this.settings.keys()) if (key.startsWith(`${siteId}\u0000`)) this.settings.delete(key);
    });
  }

  /** The room's settings, or NOT_FOUND when the site has no such panel or it is no Q&A panel. */
  async room(db: Db, siteId: string, panelId: string): Promise<QaSettings> {
    const key = `${siteId}\u0000${panelId}`;
    const cached = this.settings.get(key);
    let settings: QaSettings | null;
    if (cached && cached.expires > Date.now()) settings = cached.value;
    else {
      const panel = await db.panel.findFirst({ where: { id: panelId, siteId }, select: { renderer: true } });
      settings = panel && isQaRenderer(panel.renderer) ? qaSettingsOf(panel.renderer) : null;
      if (settings && settings.channelIds.length === 0) settings.channelIds = await channelsListing(db, siteId, panelId, MAX_LISTING_CHANNELS);
      if (this.settings.size >= SETTINGS_MAX) this.settings.delete(this.settings.keys().next().value as string);
      this.settings.set(key, { value: settings, expires: Date.now() + SETTINGS_TTL_MS });
    }
    if (!settings) throw notFound(`Q&A panel ${panelId}`);
    return settings;
  }

  /** Spends the account's question of the minute; RATE_LIMITED naming the rule when it was spent. */
  countQuestion(siteId: string, accountId: string): Promise<void> {
    return consume(this.questionLimit, `${siteId}:${accountId}`, 'qa_question', (seconds) => `one question a minute per account; ask again in ${seconds} s`);
  }

  /** Spends one of the account's votes; RATE_LIMITED when none is left. */
  countVote(siteId: string, accountId: string): Promise<void> {
    return consume(this.voteLimit, `${siteId}:${accountId}`, 'qa_votes', (seconds) => `too many votes from this account; try again in ${seconds} s`);
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
    this.stopFollowing();
    await this.limits.close();
  }
}

async function consume(limiter: RateLimiterAbstract, key: string, rule: string, message: (seconds: number) => string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw appError(ErrorCode.RATE_LIMITED, message(retryAfter), { retryAfter, rule });
  }
}
