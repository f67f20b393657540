/**
 * Viewers in a Q&A room: asking (every rule checked before anything is stored, the question durable before
 * the answer), upvoting others' questions once each and taking a vote back, and reading the room in its
 * order — most votes first, then oldest first — with the reader's own held questions and votes marked.
 */
import { requireSite } from '../../../shared/auth/access';
import type { QaQuestionView } from '../../../shared/contracts/qaEvents';
import type { Db } from '../../../shared/db/client';
import type { QaQuestion } from '../../../shared/db/generated/sqlite';
import { appError, conflict, ErrorCode, notFound, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { SubgraphContext } from '../../../shared/subgraph';
import { checkedAnonymous, checkedQuestion } from './rules';
import type { QaRuntime } from './runtime';

/** The most questions a room shows (the most voted, then the oldest). */
export const MAX_ROOM_QUESTIONS = 500;
/** Statuses the room shows to everyone. */
export const SHOWN = ['open', 'answered'];

/** A question as the API answers it. */
export function toQuestionView(row: QaQuestion, votedByMe: boolean | null): QaQuestionView {
  return {
    id: row.id,
    panelId: row.panelId,
    text: row.text,
    votes: row.votes,
    status: row.status,
    highlighted: row.highlightedAt !== null,
    author: row.anonymous ? null : { accountId: row.accountId },
    created: row.createdAt.getTime(),
    votedByMe,
  };
}

/** Room order: most votes first, then the oldest, then by ID (one order on every instance). */
export const byRoomOrder = (a: QaQuestionView, b: QaQuestionView) => b.votes - a.votes || a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function signedIn(identity: SubgraphContext['identity'], what: string): string {
  if (!identity.account) throw unauthenticated(`Authorization: Bearer <JWT> of a signed-in viewer is required to ${what}`);
  return identity.account.id;
}

/** Asks a question as the caller's account: checks every rule, then stores it (durable before it returns). */
export async function askQaQuestion(ctx: SubgraphContext, runtime: QaRuntime, input: { panelId: string; text: string; anonymous?: boolean | null }) {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  const accountId = signedIn(identity, 'ask');
  const room = await runtime.room(db, siteId, input.panelId);
  const text = checkedQuestion(input.text, room);
  const anonymous = checkedAnonymous(input.anonymous, room);
  // Spent only by a question that passed every rule: a refused one costs the viewer nothing.
  await runtime.countQuestion(siteId, accountId);
  const now = new Date();
  let row: QaQuestion;
  try {
    row = await db.qaQuestion.create({
      data: {
        id: newId(),
        siteId,
        panelId: input.panelId,
        accountId,
        anonymous,
        text,
        status: room.moderated ? 'held' : 'open',
        createdAt: now,
        updatedAt: now,
      },
    });
  } catch (error) {
    await runtime.refundQuestion(siteId, accountId);
    throw error;
  }
  if (row.status === 'open') runtime.announce(siteId, input.panelId);
  return toQuestionView(row, false);
}

/** The room as the caller reads it: shown questions (and, for a signed-in viewer, its own held ones) in room order. */
export async function qaRoomQuestions(ctx: SubgraphContext, runtime: QaRuntime, panelId: string): Promise<{ results: QaQuestionView[] }> {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  await runtime.room(db, siteId, panelId);
  const accountId = identity.account?.id ?? null;
  const statuses = accountId ? { OR: [{ status: { in: SHOWN } }, { status: 'held', accountId }] } : { status: { in: SHOWN } };
  const [rows, mine] = await Promise.all([
    db.qaQuestion.findMany({ where: { siteId, panelId, ...statuses } }),
    accountId ? db.qaVote.findMany({ where: { panelId, accountId }, select: { questionId: true } }) : null,
  ]);
  const voted = mine ? new Set(mine.map((vote) => vote.questionId)) : null;
  const results = rows.map((row) => toQuestionView(row, voted ? voted.has(row.id) : null)).sort(byRoomOrder);
  return { results: results.slice(0, MAX_ROOM_QUESTIONS) };
}

const refusedVote = (rule: string, message: string) => appError(ErrorCode.BAD_USER_INPUT, message, { field: 'questionId', rule });

/** Why a vote did not go in (read only when it did not: the rare path). */
async function voteRefusal(db: Db, siteId: string, panelId: string, questionId: string, accountId: string): Promise<Error> {
  const question = await db.qaQuestion.findFirst({ where: { id: questionId, siteId }, select: { panelId: true, status: true, accountId: true } });
  if (!question) return notFound(`question ${questionId}`);
  if (question.panelId !== panelId) return refusedVote('other_room', 'questionId names a question of another Q&A room');
  if (question.status === 'held') return refusedVote('held', 'questionId names a question still held for a moderator');
  if (question.status === 'dismissed') return refusedVote('dismissed', 'questionId names a dismissed question');
  if (question.accountId === accountId) return refusedVote('own_question', 'questionId names your own question: vote for others’ questions');
  return conflict(`this account already voted for question ${questionId}; DELETE the vote to take it back`);
}

/** Upvotes another viewer's question once; answers its exact count once the vote is committed. */
export async function voteQaQuestion(ctx: SubgraphContext, runtime: QaRuntime, input: { panelId: string; questionId: string }) {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  const accountId = signedIn(identity, 'vote');
  await runtime.room(db, siteId, input.panelId);
  await runtime.countVote(siteId, accountId);
  const outcome = await runtime.votes.write({ id: newId(), siteId, panelId: input.panelId, questionId: input.questionId, accountId });
  if (!outcome.stored) throw await voteRefusal(db, siteId, input.panelId, input.questionId, accountId);
  return { id: input.questionId, votes: outcome.votes };
}

/** Takes the caller's vote back (nothing changes when it had none). */
export async function unvoteQaQuestion(ctx: SubgraphContext, runtime: QaRuntime, input: { panelId: string; questionId: string }) {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  const accountId = signedIn(identity, 'vote');
  await runtime.room(db, siteId, input.panelId);
  const question = await db.qaQuestion.findFirst({ where: { id: input.questionId, siteId, panelId: input.panelId }, select: { id: true } });
  if (!question) throw notFound(`question ${input.questionId}`);
  // The row and the count go together: the count never says what the rows do not.
  const { removed, votes } = await db.$transaction(async (tx) => {
    const { count } = await tx.qaVote.deleteMany({ where: { questionId: input.questionId, accountId } });
    const row =
      count === 0
        ? await tx.qaQuestion.findUniqueOrThrow({ where: { id: input.questionId }, select: { votes: true } })
        : await tx.qaQuestion.update({ where: { id: input.questionId }, data: { votes: { decrement: count } }, select: { votes: true } });
    return { removed: count, votes: row.votes };
  });
  if (removed > 0) runtime.announce(siteId, input.panelId);
  return { id: input.questionId, votes };
}
