/** Resolvers of audience Q&A (subgraphs/content/qa/): asking and voting (C + J), the room (C), moderation (admins of Panels). */
import type { Resolvers } from '../resolvers.generated';
import { answerQaQuestion, approveQaQuestion, dismissQaQuestion, highlightQaQuestion, qaHeldQuestions } from './moderation';
import { askQaQuestion, qaRoomQuestions, unvoteQaQuestion, voteQaQuestion } from './questions';
import type { QaRuntime } from './runtime';

export const qaResolvers = (qa: QaRuntime): Resolvers => ({
  Query: {
    qaQuestions: (_root, { panelId }, ctx) => qaRoomQuestions(ctx, qa, panelId),
    qaHeldQuestions: (_root, { panelId }, ctx) => qaHeldQuestions(ctx, qa, panelId),
  },
  Mutation: {
    askQaQuestion: (_root, args, ctx) => askQaQuestion(ctx, qa, args),
    voteQaQuestion: (_root, args, ctx) => voteQaQuestion(ctx, qa, args),
    unvoteQaQuestion: (_root, args, ctx) => unvoteQaQuestion(ctx, qa, args),
    approveQaQuestion: (_root, args, ctx) => approveQaQuestion(ctx, qa, args),
    answerQaQuestion: (_root, args, ctx) => answerQaQuestion(ctx, qa, args),
    dismissQaQuestion: (_root, args, ctx) => dismissQaQuestion(ctx, qa, args),
    highlightQaQuestion: (_root, args, ctx) => highlightQaQuestion(ctx, qa, args),
  },
});
