/**
 * Quest progress, kept by the server from what it saw each signed-in account do (rules.ts): any look at
 * an account's progress also completes the quests it has done (completion.ts). The other jobs have files
 * of their own: the raffle (raffle.ts) and the batches of poll answers (answerBatches.ts).
 */
import type { Identity } from '../../../shared/auth/identity';
import { Topics } from '../../../shared/bus';
import type { Quest } from '../../../shared/db/generated/sqlite';
import { unauthenticated } from '../../../shared/errors';
import type { QuestProgressView } from '../../../shared/contracts/viewerActivity';
import { viewerRead } from '../viewerReads';
import { completeQuest } from './completion';
import type { QuestDeps } from './deps';
import { findQuest } from './quests';
import { actionRules, allDone, chunks, ruleValues, viewOf } from './rules';

/**
 * The progress of accounts on one quest, completing it for those that did everything and have not
 * completed it yet (so any look at progress also heals a completion a crash interrupted). Answers a
 * view per account, after completion.
 */
export async function evaluateQuest(deps: QuestDeps, quest: Quest, accountIds: string[]): Promise<QuestProgressView[]> {
  const rules = actionRules(quest);
  const [values, completions] = await Promise.all([
    ruleValues(deps.db, quest, rules, accountIds),
    Promise.all(chunks(accountIds).map((part) => deps.db.questCompletion.findMany({ where: { questId: quest.id, accountId: { in: part } } }))),
  ]);
  const completed = new Map(completions.flat().map((row) => [row.accountId, row]));
  let views = accountIds.map((accountId) => viewOf(quest, rules, values, accountId, completed.get(accountId)));
  const finishing = views.filter((view) => !view.completed && allDone(view)).map((view) => view.accountId);
  if (finishing.length > 0) {
    const done = await completeQuest(deps, quest, finishing);
    for (const row of done) completed.set(row.accountId, row);
    // Another look (the answer batch, another instance) completed the others while this one counted: their rows.
    const others = finishing.filter((accountId) => !completed.has(accountId));
    const rows = await Promise.all(chunks(others).map((part) => deps.db.questCompletion.findMany({ where: { questId: quest.id, accountId: { in: part } } })));
    for (const row of rows.flat()) completed.set(row.accountId, row);
    views = accountIds.map((accountId) => viewOf(quest, rules, values, accountId, completed.get(accountId)));
  }
  return views;
}

/**
 * Tells the accounts' questProgress subscriptions (any instance) what changed, in bus messages of a few
 * hundred. Every one is held through a Redis blip (a completion matters on its own), and this
 * instance's viewers get it at once.
 */
export function publishProgress(deps: Pick<QuestDeps, 'bus'>, siteId: string, views: QuestProgressView[]): void {
  for (const part of chunks(views, 200)) {
    deps.bus.announce(Topics.questProgress, siteId, 'every', { siteId, events: part.map((event) => ({ audience: event.accountId, event })) });
  }
}

/** The signed-in account's progress on one of its site's quests (NOT_FOUND for another site's). */
export async function questProgressOf(deps: QuestDeps, identity: Identity, questId: string): Promise<QuestProgressView> {
  if (!identity.siteId) throw unauthenticated('x-service-client-id header is required');
  if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in account is required');
  const quest = await findQuest(deps.db, identity.siteId, questId);
  const started = Date.now();
  const [view] = await evaluateQuest(deps, quest, [identity.account.id]);
  // This look completed the quest (a completion a crash had interrupted): the subscriptions hear it too.
  if (view.completedAt !== null && view.completedAt >= started) publishProgress(deps, quest.siteId, [view]);
  return view;
}

/**
 * Quests of a site, kept per instance with the viewer reads (shared/viewerReads.ts): a burst of answers
 * or a watch-time batch reads them once, and any content change on any instance drops them at once.
 */
export function questsOfSite(deps: Pick<QuestDeps, 'db' | 'reads'>, siteId: string): Promise<Quest[]> {
  return viewerRead(deps, siteId, 'quests', () => deps.db.quest.findMany({ where: { siteId } }));
}
