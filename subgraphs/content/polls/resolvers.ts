/** Resolvers of polls, predictions and trivia: one by id (C), lists (D or J), writes (D or a Polls role). */
import { hasAdminAccess, requireAdmin, requireReader, requireSite } from '../../../shared/auth/access';
import type { Prisma } from '../../../shared/db/generated/sqlite';
import { newId } from '../../../shared/ids';
import { listQuery, searchFilter, type ListSpec } from '../listing';
import { deletePollWithAnswers, savePollChange } from './outcomes';
import { findPoll, pollAnswers, pollFields, pollFilter } from './polls';
import { referencesTo } from '../references';
import type { PollType, Resolvers } from '../resolvers.generated';
import { Scopes, timestamps } from '../scopes';
import type { WebhookWaker } from '../webhookDispatcher';

const POLL_LIST: ListSpec<string> = { sort: { created: 'createdAt', name: 'name' }, defaultSort: 'created', defaultDirection: 1 };

const stored = (fields: ReturnType<typeof pollFields>) => ({ ...fields, answers: fields.answers as unknown as Prisma.InputJsonValue });

/** `webhooks`: woken after a close or a reveal wrote deliveries. */
export const pollResolvers = (webhooks: WebhookWaker): Resolvers => ({
  Query: {
    polls: (_root, { search, filter, ...args }, { identity, db }) => {
      const list = listQuery(args, POLL_LIST);
      return db.poll.findMany({
        where: { siteId: requireReader(identity), ...searchFilter('searchText', search), ...pollFilter(filter) },
        orderBy: list.orderBy,
        ...list.page,
      });
    },
    poll: (_root, { id }, { identity, db }) => findPoll(db, requireSite(identity), id),
    pollReferences: async (_root, { id }, { identity, db }) => {
      const poll = await findPoll(db, requireReader(identity), id);
      return referencesTo(db, poll.siteId, { collection: 'polls', id: poll.id });
    },
  },
  Mutation: {
    createPoll: (_root, { input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.polls, { write: true });
      const now = new Date();
      return db.poll.create({ data: { ...stored(pollFields(input, siteId)), id: newId(), siteId, createdAt: now, updatedAt: now } });
    },
    replacePoll: async (_root, { id, input }, ctx) => {
      const { identity, db } = ctx;
      const siteId = requireAdmin(identity, Scopes.polls, { write: true });
      const current = await findPoll(db, siteId, id);
      return savePollChange(ctx, webhooks, current, stored(pollFields(input, siteId)));
    },
    updatePoll: async (_root, { id, input }, ctx) => {
      const { identity, db } = ctx;
      const siteId = requireAdmin(identity, Scopes.polls, { write: true });
      const current = await findPoll(db, siteId, id);
      // The change over the stored poll, checked whole (a new type may need or forbid a right answer).
      const merged = {
        type: input.type ?? (current.type as PollType),
        name: input.name ?? current.name,
        question: input.question ?? current.question,
        answers: input.answers ?? pollAnswers(current),
        correctAnswerId: input.correctAnswerId === undefined ? current.correctAnswerId : input.correctAnswerId,
        open: input.open ?? current.open,
        siteId: input.siteId,
      };
      return savePollChange(ctx, webhooks, current, stored(pollFields(merged, siteId)));
    },
    deletePoll: async (_root, { id }, ctx) => {
      const poll = await findPoll(ctx.db, requireAdmin(ctx.identity, Scopes.polls, { write: true }), id);
      await deletePollWithAnswers(ctx, poll);
      return { id: poll.id, success: true };
    },
  },
  Poll: {
    type: (poll) => poll.type as PollType,
    answers: (poll) => pollAnswers(poll),
    // The right answer of open trivia is the admins': a viewer (site ID, or an account without a Polls role) sees null.
    correctAnswerId: (poll, _args, { identity }) => (poll.open && !hasAdminAccess(identity, Scopes.polls, { write: false }) ? null : poll.correctAnswerId),
    ...timestamps,
  },
});
