/**
 * A quest's steps as rules, and what each account has done of each: polls answered (PollAnswer rows)
 * and seconds watched (QuestWatchProgress, counted by watchTime.ts). A viewer cannot fake either: both
 * are written by the server itself.
 */
import type { Db, Prisma } from '../../../shared/db/client';
import type { Quest, QuestCompletion } from '../../../shared/db/generated/sqlite';
import { stringList } from '../../../shared/json';
import type { QuestProgressView } from '../../../shared/contracts/viewerActivity';
import { questActions } from './quests';

/** One step of a quest as progress reads it: its kind, what it needs, and where and when it counts. */
export interface ActionRule {
  /** arrayId, or #index when the step has none: the key of its stored watch seconds. */
  key: string;
  kind: string;
  required: number;
  /** Unix ms window: the quest's and the step's own, intersected (null = open). */
  from: number | null;
  to: number | null;
  /** The step's channel, else the quest's channels; null = any channel. */
  channels: string[] | null;
  /** answer:polls:specific: the poll. */
  pollId: string | null;
}

export const ANSWER_KINDS = new Set(['answer:polls:any', 'answer:polls:specific']);
export const WATCH_KIND = 'watch:any:video';

const latest = (a: number | null | undefined, b: number | null | undefined) => (a == null ? (b ?? null) : b == null ? a : Math.max(a, b));
const earliest = (a: number | null | undefined, b: number | null | undefined) => (a == null ? (b ?? null) : b == null ? a : Math.min(a, b));

/** The steps of a quest as rules. */
export function actionRules(quest: Quest): ActionRule[] {
  const questChannels = stringList(quest.channelIds);
  return questActions(quest).map((action, index) => ({
    key: action.arrayId ?? `#${index}`,
    kind: action.kind,
    // A specific poll is answered or not; the others need valueRequired (1 when absent).
    required: action.kind === 'answer:polls:specific' ? 1 : (action.valueRequired ?? 1),
    from: latest(quest.timeMinimum, action.timeMinimum),
    to: earliest(quest.timeMaximum, action.timeMaximum),
    channels: action.channelId ? [action.channelId] : questChannels.length > 0 ? questChannels : null,
    pollId: action.kind === 'answer:polls:specific' ? (action.validationValue ?? null) : null,
  }));
}

/** Accounts per IN list: Prisma allows a SQLite statement at most 999 parameters. */
const CHUNK = 500;
export function chunks<T>(list: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < list.length; start += size) out.push(list.slice(start, start + size));
  return out;
}

/** The answers a rule counts: the account's, inside the window, on the rule's channels. */
function answerWhere(quest: Quest, rule: ActionRule, accountIds: string[]): Prisma.PollAnswerWhereInput {
  return {
    siteId: quest.siteId,
    accountId: { in: accountIds },
    ...(rule.pollId ? { pollId: rule.pollId } : {}),
    ...(rule.from !== null || rule.to !== null
      ? { createdAt: { ...(rule.from !== null ? { gte: new Date(rule.from) } : {}), ...(rule.to !== null ? { lte: new Date(rule.to) } : {}) } }
      : {}),
    ...(rule.channels ? { channelId: { in: rule.channels } } : {}),
  };
}

/** Each rule's value for each account: a few statements per rule and 500 accounts, never one per account. */
export async function ruleValues(db: Db, quest: Quest, rules: ActionRule[], accountIds: string[]): Promise<Map<string, number>[]> {
  return Promise.all(
    rules.map(async (rule) => {
      const values = new Map<string, number>();
      for (const part of chunks(accountIds)) {
        if (rule.kind === 'answer:polls:any') {
          const rows = await db.pollAnswer.groupBy({ by: ['accountId'], where: answerWhere(quest, rule, part), _count: { _all: true } });
          for (const row of rows) values.set(row.accountId, row._count._all);
        } else if (rule.kind === 'answer:polls:specific') {
          if (!rule.pollId) continue;
          const rows = await db.pollAnswer.findMany({ where: answerWhere(quest, rule, part), select: { accountId: true } });
          for (const row of rows) values.set(row.accountId, 1);
        } else if (rule.kind === WATCH_KIND) {
          const rows = await db.questWatchProgress.findMany({
            where: { questId: quest.id, actionKey: rule.key, accountId: { in: part } },
            select: { accountId: true, seconds: true },
          });
          for (const row of rows) values.set(row.accountId, row.seconds);
        }
        // Another kind: kept and shown at 0, never done by itself.
      }
      return values;
    }),
  );
}

export function viewOf(
  quest: Quest,
  rules: ActionRule[],
  values: Map<string, number>[],
  accountId: string,
  completion: QuestCompletion | undefined,
): QuestProgressView {
  const actions = rules.map((rule, index) => {
    const value = values[index].get(accountId) ?? 0;
    const known = ANSWER_KINDS.has(rule.kind) || rule.kind === WATCH_KIND;
    return { arrayId: rule.key, kind: rule.kind, value, valueRequired: rule.required, done: known && value >= rule.required };
  });
  return {
    questId: quest.id,
    accountId,
    completed: Boolean(completion),
    completedAt: completion?.completedAt.getTime() ?? null,
    claimId: completion?.claimId ?? null,
    claimedMessage: completion ? quest.claimedMessage : null,
    actions,
  };
}

export const allDone = (view: QuestProgressView) => view.actions.length > 0 && view.actions.every((action) => action.done);
