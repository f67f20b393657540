/** Resolvers of what viewers do with polls: answering (C + J), results (C), the leaderboard (C; own entry C + J). */
import { hasAdminAccess, requireAdmin, requireSite } from '../../../shared/auth/access';
import { unauthenticated } from '../../../shared/errors';
import { leaderboardEntryOf, leaderboardPage } from '../leaderboard';
import { answerPoll, answersOfAccounts, pollResultsOf, type PollAnswerRuntime } from './answers';
import { findPoll } from './polls';
import { readPollWithCounts } from './resultsReads';
import { found } from '../checks';
import type { PollType, Resolvers } from '../resolvers.generated';
import { Scopes } from '../scopes';

/** `answers`: the runtime's answer writer, rate limit and poll summaries. */
export const pollAnswerResolvers = (answers: PollAnswerRuntime): Resolvers => ({
  Query: {
    pollResults: async (_root, { pollId }, context) => {
      const { identity, db } = context;
      const { poll, counts } = await readPollWithCounts(context, db, requireSite(identity), pollId);
      // Admins of polls see the right answer early, as they do on the poll itself; viewers only once it is revealed.
      return pollResultsOf(db, found(poll, `poll ${pollId}`), identity.account?.id ?? null, hasAdminAccess(identity, Scopes.polls, { write: false }), counts);
    },
    pollAnswersOf: async (_root, { pollId, accountIds }, { identity, db }) => {
      const poll = await findPoll(db, requireAdmin(identity, Scopes.polls, { write: false }), pollId);
      return answersOfAccounts(db, poll.id, accountIds);
    },
    leaderboard: (_root, { limit, offset }, { identity, db }) => leaderboardPage(db, requireSite(identity), limit, offset),
    myLeaderboardEntry: (_root, _args, { identity, db }) => {
      const siteId = requireSite(identity);
      if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> is required');
      return leaderboardEntryOf(db, siteId, identity.account.id);
    },
  },
  Mutation: {
    answerPoll: (_root, args, ctx) => answerPoll(ctx, answers, args),
  },
  PollResults: {
    type: (results) => results.type as PollType,
  },
  LeaderboardEntry: {
    // The gateway asks only for entries it got from this subgraph; read again, on the caller's site.
    __resolveReference: (reference, { identity, db }) => (identity.siteId ? leaderboardEntryOf(db, identity.siteId, reference.accountId) : null),
  },
});
