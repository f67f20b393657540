/**
 * Quest progress from poll answers: the answer path reports what it stored, and the quests that count
 * answers are looked at for those accounts in batches, so a burst of thousands of answers costs a few
 * statements per quest.
 */
import type { QuestProgressView } from '../../../shared/contracts/viewerActivity';
import type { QuestDeps } from './deps';
import { evaluateQuest, publishProgress, questsOfSite } from './progress';
import { actionRules, ANSWER_KINDS, type ActionRule } from './rules';

/** What the answer path tells quests: an answer stored, by whom and where. */
export interface AnswerActivity {
  siteId: string;
  accountId: string;
  pollId: string;
  channelId: string | null;
  answeredAt: Date | number;
}

/** Answers are looked at in batches: a burst of thousands costs a few statements per quest, not per answer. */
const ANSWER_BATCH_MS = 50;

/** The accounts per site whose answers one batch looks at, and when it has been looked at. */
interface AnswerBatch {
  sites: Map<string, Set<string>>;
  done: Promise<void>;
}

/** Gathers stored answers for ~50 ms and then evaluates the quests they may advance, one batch at a time. */
export class QuestAnswerBatcher {
  private batch: AnswerBatch | null = null;

  constructor(private readonly deps: QuestDeps) {}

  /**
   * THE hook of the answer path: call it after answers are stored (one or many). Within ~50 ms the
   * quests of their sites that count answers are evaluated for those accounts (completing the ones now
   * done) and their progress is pushed. Never throws; the promise settles when the batch was looked at.
   * A crash before that loses nothing: progress is recomputed from the stored answers at the next look.
   */
  record(answers: readonly AnswerActivity[]): Promise<void> {
    if (answers.length === 0) return Promise.resolve();
    const batch = (this.batch ??= this.open());
    for (const answer of answers) {
      let accounts = batch.sites.get(answer.siteId);
      if (!accounts) batch.sites.set(answer.siteId, (accounts = new Set()));
      accounts.add(answer.accountId);
    }
    return batch.done;
  }

  private open(): AnswerBatch {
    const sites = new Map<string, Set<string>>();
    const done = new Promise<void>((resolve) => {
      setTimeout(() => {
        this.batch = null;
        evaluateAnswerBatch(this.deps, sites)
          .catch((error: Error) => this.deps.logger.warn({ err: error.message }, 'quest progress of answers not evaluated'))
          .finally(resolve);
      }, ANSWER_BATCH_MS);
    });
    return { sites, done };
  }
}

/** Slack for answers stored a moment before they are looked at. */
const ANSWER_WINDOW_SLACK_MS = 60_000;

async function evaluateAnswerBatch(deps: QuestDeps, sites: Map<string, Set<string>>): Promise<void> {
  const now = Date.now();
  // Only quests with an answer step whose window is open now: answers just stored change no other.
  const counts = (rule: ActionRule) =>
    ANSWER_KINDS.has(rule.kind) && (rule.from === null || rule.from <= now) && (rule.to === null || rule.to >= now - ANSWER_WINDOW_SLACK_MS);
  for (const [siteId, accounts] of sites) {
    const quests = (await questsOfSite(deps, siteId)).filter((quest) => actionRules(quest).some(counts));
    const views: QuestProgressView[] = [];
    for (const quest of quests) views.push(...(await evaluateQuest(deps, quest, [...accounts])));
    publishProgress(deps, siteId, views);
  }
}
