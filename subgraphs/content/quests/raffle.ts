/**
 * A raffle quest's draw: its winners are drawn once (the QuestRaffle primary key) among the accounts that
 * completed it, and their claims settled in community (winners APPROVED, the rest REJECTED); a settlement
 * that does not get through is the outbox's (completion.ts).
 */
import { randomInt } from 'node:crypto';
import { requireAdmin } from '../../../shared/auth/access';
import { serviceIdentity, type Identity } from '../../../shared/auth/identity';
import { badInput, conflict } from '../../../shared/errors';
import { Scopes } from '../scopes';
import type { QuestDeps } from './deps';
import { findQuest } from './quests';

const SETTLE_RAFFLE = /* GraphQL */ `
  mutation SettleQuestRaffle($questId: ID!, $winnerClaimIds: [ID!]!) { settleQuestRaffle(questId: $questId, winnerClaimIds: $winnerClaimIds) { id } }
`;

/** A drawn winner: the account and the claim its completion was given. */
export type Winner = { accountId: string; claimId: string };

/** The raffle's outcome written in community (idempotent), then marked settled. */
export async function settleRaffle(deps: QuestDeps, siteId: string, questId: string, winners: Winner[]): Promise<void> {
  await deps.supergraph.execute(SETTLE_RAFFLE, { questId, winnerClaimIds: winners.map((winner) => winner.claimId) }, serviceIdentity(siteId));
  await deps.db.questRaffle.updateMany({ where: { questId }, data: { settledAt: new Date() } });
}

/** n of `list` drawn uniformly with a cryptographic source: the first n places of a Fisher–Yates shuffle. */
export function drawUniformly<T>(list: readonly T[], n: number): T[] {
  const pool = [...list];
  const count = Math.min(n, pool.length);
  for (let i = 0; i < count; i += 1) {
    const j = i + randomInt(pool.length - i);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, count);
}

/**
 * Draws a raffle quest's winners once (the QuestRaffle primary key), among the accounts that completed
 * it, and settles their claims (winners APPROVED, the rest REJECTED) in community; a failed settlement
 * is retried by the outbox, the draw stands.
 */
export async function drawQuestRaffle(deps: QuestDeps, identity: Identity, questId: string, winners: number): Promise<{ success: true; winners: Winner[] }> {
  const siteId = requireAdmin(identity, Scopes.quests, { write: true });
  const quest = await findQuest(deps.db, siteId, questId);
  if (!Number.isInteger(winners) || winners < 1) throw badInput('winners must be a whole number of at least 1', 'winners');
  if (quest.rewardType !== 'raffle') throw badInput(`rewardType of quest ${quest.id} is ${quest.rewardType}, not raffle: only a raffle is drawn`, 'rewardType');
  if (await deps.db.questRaffle.findUnique({ where: { questId: quest.id } })) throw conflict(`the raffle of quest ${quest.id} was drawn already`);
  const completions = await deps.db.questCompletion.findMany({
    where: { questId: quest.id },
    orderBy: [{ completedAt: 'asc' }, { accountId: 'asc' }],
    select: { accountId: true, claimId: true },
  });
  const drawn = drawUniformly(completions, winners);
  try {
    await deps.db.questRaffle.create({ data: { questId: quest.id, siteId, winners: drawn, drawnAt: new Date() } });
  } catch (error) {
    // Another draw of the same quest won the primary key first.
    if ((error as { code?: string }).code === 'P2002') throw conflict(`the raffle of quest ${quest.id} was drawn already`);
    throw error;
  }
  await settleRaffle(deps, siteId, quest.id, drawn).catch((error: Error) =>
    deps.logger.warn({ err: error.message, questId: quest.id }, 'raffle drawn; its claims are settled by the outbox'),
  );
  return { success: true, winners: drawn };
}
