/**
 * What an admin's change of a poll sets off: closing a poll (open: false) reveals a trivia question's
 * right answer and awards its right answers a point; setting a prediction's right answer at or after
 * close resolves it and awards its right predictions; webhooks poll.closed and poll.resolved carry the
 * final results. The change is a conditional update (the poll as it was read), so of two admins closing
 * at once only one closes it, and the points, the webhooks and the change commit together: nothing is
 * awarded or reported twice, and nothing is reported that did not happen.
 */
import type { Prisma, Poll } from '../../../shared/db/generated/sqlite';
import { conflict } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import { awardPoints } from '../leaderboard';
import { pollResultsOf, publishPollResults, revealed } from './answers';
import { POLL_RESULTS_MESSAGE_VERSION } from '../../../shared/contracts/viewerActivity';
import type { pollFields } from './polls';
import type { WebhookWaker } from '../webhookDispatcher';
import { enqueueWebhook, WebhookEvents } from '../webhooks';

type PollData = Omit<ReturnType<typeof pollFields>, 'answers'> & { answers: Prisma.InputJsonValue };

/** Answers whose right answer a close or resolve reveals are read and awarded this many at a time. */
const AWARD_BATCH = 5000;

/** Awards a point to every account that chose the right answer; in batches, never one statement per account. */
async function awardRightAnswers(tx: Prisma.TransactionClient, poll: Poll, at: Date): Promise<void> {
  const reason = poll.type as 'trivia' | 'prediction';
  for (let after = ''; ;) {
    const rows = await tx.pollAnswer.findMany({
      where: { pollId: poll.id, answerId: poll.correctAnswerId as string, accountId: { gt: after } },
      orderBy: { accountId: 'asc' },
      take: AWARD_BATCH,
      select: { accountId: true },
    });
    if (rows.length === 0) return;
    await awardPoints(
      tx,
      rows.map((row) => ({ siteId: poll.siteId, accountId: row.accountId, reason, sourceId: poll.id, points: 1, at })),
    );
    after = rows[rows.length - 1].accountId;
  }
}

/**
 * Stores an admin's change of a poll and what follows from it. CONFLICT when the poll changed since it
 * was read, when a closed poll with answers would reopen, or when a revealed right answer (closed trivia,
 * resolved prediction) or the poll's type would change (its points are given).
 */
export async function savePollChange(ctx: SubgraphContext, webhooks: WebhookWaker, current: Poll, data: PollData): Promise<Poll> {
  const { db } = ctx;
  const wasRevealed = revealed(current);
  if (wasRevealed && (data.correctAnswerId !== current.correctAnswerId || data.type !== current.type)) {
    throw conflict('a revealed right answer stays as it is (its points are given)');
  }
  if (!current.open && data.open && (await db.pollAnswer.count({ where: { pollId: current.id } })) > 0) {
    throw conflict('a closed poll that has answers cannot be reopened');
  }
  const at = new Date();
  const { poll, written } = await db.$transaction(
    async (tx) => {
      const { count } = await tx.poll.updateMany({
        where: { id: current.id, siteId: current.siteId, updatedAt: current.updatedAt },
        data: { ...data, updatedAt: at },
      });
      if (count === 0) throw conflict('the poll changed meanwhile; read it again and retry');
      const poll = await tx.poll.findUniqueOrThrow({ where: { id: current.id } });
      const closed = current.open && !poll.open;
      const nowRevealed = !wasRevealed && revealed(poll);
      if (!closed && !nowRevealed) return { poll, written: 0 };
      if (nowRevealed) await awardRightAnswers(tx, poll, at);
      const final = await pollResultsOf(tx, poll, null);
      let written = 0;
      if (closed) written += await enqueueWebhook(tx, poll.siteId, WebhookEvents.pollClosed, 'closed', final);
      if (nowRevealed && poll.type === 'prediction') written += await enqueueWebhook(tx, poll.siteId, WebhookEvents.pollResolved, 'resolved', final);
      return { poll, written };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
  if (written > 0) webhooks.kick();
  publishPollResults(ctx.bus, { v: POLL_RESULTS_MESSAGE_VERSION, siteId: poll.siteId, pollId: poll.id, changed: true });
  return poll;
}

/** Deletes a poll with its answers (points given for it stay); live subscribers hear that it is gone. */
export async function deletePollWithAnswers(ctx: SubgraphContext, poll: Poll): Promise<void> {
  await ctx.db.$transaction([ctx.db.pollAnswer.deleteMany({ where: { pollId: poll.id } }), ctx.db.poll.delete({ where: { id: poll.id } })]);
  publishPollResults(ctx.bus, { v: POLL_RESULTS_MESSAGE_VERSION, siteId: poll.siteId, pollId: poll.id, changed: true });
}
