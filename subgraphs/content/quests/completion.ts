/**
 * Completion happens once per account and quest, decided by the QuestCompletion primary key (inserted
 * ON CONFLICT DO NOTHING: two instances that see the last action at once insert one row, and only the
 * winner goes on). The row, the point and the claim's ID commit together; the claim in community and
 * the quest.completed webhook follow from the row (claimRecordedAt null = still to do), retried by
 * runQuestOutbox until done, so a crash between the steps loses nothing and repeats nothing.
 */
import { serviceIdentity } from '../../../shared/auth/identity';
import { Prisma } from '../../../shared/db/client';
import type { QuestCompletion, Quest } from '../../../shared/db/generated/sqlite';
import { newId } from '../../../shared/ids';
import { awardPoints } from '../leaderboard';
import { enqueueWebhook, WebhookEvents } from '../webhooks';
import type { QuestDeps } from './deps';
import { settleRaffle, type Winner } from './raffle';
import { chunks } from './rules';

/**
 * Completes a quest for accounts, once each: the QuestCompletion rows (their claim IDs decided here)
 * and the points commit in one transaction; a row that was there already (another instance, an
 * earlier look) inserts nothing and gets nothing. Then the claims and webhooks of the new rows.
 */
export async function completeQuest(deps: QuestDeps, quest: Quest, accountIds: string[]): Promise<QuestCompletion[]> {
  const now = new Date();
  const productId = quest.webhookId ?? quest.id;
  const inserted = await deps.db.$transaction(async (tx) => {
    const rows: { accountId: string; claimId: string }[] = [];
    for (const part of chunks(accountIds)) {
      const values = Prisma.join(
        part.map(
          (accountId) =>
            Prisma.sql`(${quest.id}, ${accountId}, ${quest.siteId}, ${newId()}, ${productId}, ${quest.rewardType}, ${quest.webhookId}, ${quest.webhookType}, ${quest.webhookValue}, ${now})`,
        ),
      );
      rows.push(
        ...(await tx.$queryRaw<{ accountId: string; claimId: string }[]>(
          Prisma.sql`INSERT INTO "QuestCompletion" ("questId", "accountId", "siteId", "claimId", "productId", "rewardType", "webhookId", "webhookType", "webhookValue", "completedAt")
            VALUES ${values} ON CONFLICT DO NOTHING RETURNING "accountId", "claimId"`,
        )),
      );
    }
    await awardPoints(
      tx,
      rows.map((row) => ({ siteId: quest.siteId, accountId: row.accountId, reason: 'quest' as const, sourceId: quest.id, points: 1, at: now })),
    );
    return rows;
  });
  if (inserted.length === 0) return [];
  const completions = (
    await Promise.all(
      chunks(inserted).map((part) => deps.db.questCompletion.findMany({ where: { questId: quest.id, claimId: { in: part.map((row) => row.claimId) } } })),
    )
  ).flat();
  // The claims follow without holding up the caller (a watch-time batch may complete thousands at once):
  // their IDs are fixed already, and what does not get through is the outbox's.
  void recordClaims(deps, completions);
  return completions;
}

/** Claims recorded a few at a time; a failure is left to the outbox. */
async function recordClaims(deps: QuestDeps, completions: QuestCompletion[], concurrency = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < completions.length) {
      const completion = completions[next++];
      await recordClaim(deps, completion).catch((error: Error) =>
        deps.logger.warn({ err: error.message, questId: completion.questId }, 'quest claim not recorded yet; the outbox retries it'),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, completions.length) }, worker));
}

const RECORD_CLAIM = /* GraphQL */ `
  mutation RecordCompletedQuestClaim($input: RecordQuestClaimInput!) { recordQuestClaim(input: $input) { id } }
`;

/**
 * The claim of a completion, in community (with the claim ID decided at completion: recording it again
 * is a no-op), then — once, by a conditional update — the quest.completed webhook. A claim that comes
 * after the quest's raffle was drawn starts in the state the draw gave it.
 */
export async function recordClaim(deps: QuestDeps, completion: QuestCompletion): Promise<void> {
  const raffle = await deps.db.questRaffle.findUnique({ where: { questId: completion.questId } });
  const drawn = raffle ? (raffle.winners as unknown as Winner[]) : null;
  const status = drawn ? (drawn.some((winner) => winner.claimId === completion.claimId) ? 'APPROVED' : 'REJECTED') : 'PENDING';
  await deps.supergraph.execute(
    RECORD_CLAIM,
    { input: { id: completion.claimId, questId: completion.questId, accountId: completion.accountId, productId: completion.productId, status } },
    serviceIdentity(completion.siteId),
  );
  const written = await deps.db.$transaction(async (tx) => {
    const marked = await tx.questCompletion.updateMany({
      where: { questId: completion.questId, accountId: completion.accountId, claimRecordedAt: null },
      data: { claimRecordedAt: new Date() },
    });
    if (marked.count !== 1) return 0;
    // The reward's message, as the viewer is shown it (a quest deleted since keeps none).
    const quest = await tx.quest.findUnique({ where: { id: completion.questId }, select: { claimedMessage: true } });
    return enqueueWebhook(tx, completion.siteId, WebhookEvents.questCompleted, 'completed', {
      questId: completion.questId,
      accountId: completion.accountId,
      claimId: completion.claimId,
      rewardType: completion.rewardType,
      webhookId: completion.webhookId,
      webhookType: completion.webhookType,
      webhookValue: completion.webhookValue,
      claimedMessage: quest?.claimedMessage ?? null,
    });
  });
  if (written > 0) deps.webhooks.kick();
  // A raffle drawn while this claim was on its way settles again, so the claim gets the draw's state.
  if (!raffle) {
    const late = await deps.db.questRaffle.findUnique({ where: { questId: completion.questId } });
    if (late) await settleRaffle(deps, late.siteId, late.questId, late.winners as unknown as Winner[]);
  }
}

/** How long a completion or draw may wait for its first try before the outbox takes it over. */
const OUTBOX_GRACE_MS = 2_000;

/**
 * Finishes what a crash (or an unreachable community service) left undone: claims of completions not
 * yet recorded, with their webhooks, and raffles not yet settled. Runs every `intervalMs` on every
 * instance; each step is idempotent, so two instances doing the same one change nothing twice.
 */
export function runQuestOutbox(deps: QuestDeps, intervalMs = 5_000): { close(): Promise<void>; sweep(): Promise<void> } {
  let running: Promise<void> | null = null;
  const sweep = async () => {
    const before = new Date(Date.now() - OUTBOX_GRACE_MS);
    const completions = await deps.db.questCompletion.findMany({ where: { claimRecordedAt: null, completedAt: { lt: before } }, take: 100 });
    for (const completion of completions) await recordClaim(deps, completion);
    const raffles = await deps.db.questRaffle.findMany({ where: { settledAt: null, drawnAt: { lt: before } }, take: 20 });
    for (const raffle of raffles) await settleRaffle(deps, raffle.siteId, raffle.questId, raffle.winners as unknown as Winner[]);
  };
  const tick = () => {
    running ??= sweep()
      .catch((error: Error) => deps.logger.warn({ err: error.message }, 'quest outbox sweep failed'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    sweep,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
