/**
 * Quest progress, kept by the server from what it saw each signed-in account do: polls answered
 * (PollAnswer rows) and seconds watched (WatchMinute masks, counted into QuestWatchProgress by
 * watchTime.ts). A viewer cannot fake either: both are written by the server itself.
 *
 * Completion happens once per account and quest, decided by the QuestCompletion primary key (inserted
 * ON CONFLICT DO NOTHING: two instances that see the last action at once insert one row, and only the
 * winner goes on). The row, the point and the claim's ID commit together; the claim in community and
 * the quest.completed webhook follow from the row (claimRecordedAt null = still to do), retried by
 * runQuestOutbox until done, so a crash between the steps loses nothing and repeats nothing.
 */
import { randomInt } from 'node:crypto';
import { requireAdmin } from '../../../shared/auth/access';
import { serviceIdentity, type Identity } from '../../../shared/auth/identity';
import { Topics, type EventBus } from '../../../shared/bus';
import type { Config } from '../../../shared/config';
import { Prisma, type Db } from '../../../shared/db/client';
import type { Quest, QuestCompletion } from '../../../shared/db/generated/sqlite';
import { badInput, conflict, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { stringList } from '../../../shared/json';
import type { Logger } from '../../../shared/logger';
import type { ServiceDeps } from '../../../shared/subgraph';
import type { SupergraphClient } from '../../../shared/supergraph';
import { awardPoints } from '../leaderboard';
import { findQuest, questActions } from './quests';
import { Scopes } from '../resolvers/access';
import type { QuestProgressView } from '../../../shared/viewerActivity';
import type { WebhookWaker } from '../webhookDispatcher';
import { viewerRead } from '../viewerReads';
import { enqueueWebhook, WebhookEvents } from '../webhooks';

/**
 * Outside the content service (the gateway's watch time) there is no dispatcher to wake: the content
 * service's dispatcher finds the deliveries at its next look at the outbox, within 2 s.
 */
const NO_DISPATCHER_HERE: WebhookWaker = { kick: () => undefined };

/** What quest progress needs from its surroundings: the content runtime's, or a service's deps. */
export interface QuestDeps {
  db: Db;
  bus: EventBus;
  supergraph: SupergraphClient;
  logger: Logger;
  config: Config;
  webhooks: WebhookWaker;
}

/** The deps of a service (the content runtime, the live server's watch time) as QuestDeps. */
export function questDepsOf(deps: ServiceDeps, webhooks: WebhookWaker = NO_DISPATCHER_HERE): QuestDeps {
  return { db: deps.database.prisma, bus: deps.bus, supergraph: deps.supergraph, logger: deps.logger.child({ component: 'quests' }), config: deps.config, webhooks };
}

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
function chunks<T>(list: readonly T[], size = CHUNK): T[][] {
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
async function ruleValues(db: Db, quest: Quest, rules: ActionRule[], accountIds: string[]): Promise<Map<string, number>[]> {
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
          const rows = await db.questWatchProgress.findMany({ where: { questId: quest.id, actionKey: rule.key, accountId: { in: part } }, select: { accountId: true, seconds: true } });
          for (const row of rows) values.set(row.accountId, row.seconds);
        }
        // Another kind: kept and shown at 0, never done by itself.
      }
      return values;
    }),
  );
}

function viewOf(quest: Quest, rules: ActionRule[], values: Map<string, number>[], accountId: string, completion: QuestCompletion | undefined): QuestProgressView {
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
    actions,
  };
}

const allDone = (view: QuestProgressView) => view.actions.length > 0 && view.actions.every((action) => action.done);

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

// ------------------------------------------------------------------ completion

/**
 * Completes a quest for accounts, once each: the QuestCompletion rows (their claim IDs decided here)
 * and the points commit in one transaction; a row that was there already (another instance, an
 * earlier look) inserts nothing and gets nothing. Then the claims and webhooks of the new rows.
 */
async function completeQuest(deps: QuestDeps, quest: Quest, accountIds: string[]): Promise<QuestCompletion[]> {
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
    await awardPoints(tx, rows.map((row) => ({ siteId: quest.siteId, accountId: row.accountId, reason: 'quest' as const, sourceId: quest.id, points: 1, at: now })));
    return rows;
  });
  if (inserted.length === 0) return [];
  const completions = (
    await Promise.all(chunks(inserted).map((part) => deps.db.questCompletion.findMany({ where: { questId: quest.id, claimId: { in: part.map((row) => row.claimId) } } })))
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
const SETTLE_RAFFLE = /* GraphQL */ `
  mutation SettleQuestRaffle($questId: ID!, $winnerClaimIds: [ID!]!) { settleQuestRaffle(questId: $questId, winnerClaimIds: $winnerClaimIds) { id } }
`;

type Winner = { accountId: string; claimId: string };

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
    const marked = await tx.questCompletion.updateMany({ where: { questId: completion.questId, accountId: completion.accountId, claimRecordedAt: null }, data: { claimRecordedAt: new Date() } });
    if (marked.count !== 1) return 0;
    return enqueueWebhook(tx, completion.siteId, WebhookEvents.questCompleted, 'completed', {
      questId: completion.questId,
      accountId: completion.accountId,
      claimId: completion.claimId,
      rewardType: completion.rewardType,
      webhookId: completion.webhookId,
      webhookType: completion.webhookType,
      webhookValue: completion.webhookValue,
    });
  });
  if (written > 0) deps.webhooks.kick();
  // A raffle drawn while this claim was on its way settles again, so the claim gets the draw's state.
  if (!raffle) {
    const late = await deps.db.questRaffle.findUnique({ where: { questId: completion.questId } });
    if (late) await settleRaffle(deps, late.siteId, late.questId, late.winners as unknown as Winner[]);
  }
}

/** The raffle's outcome written in community (idempotent), then marked settled. */
async function settleRaffle(deps: QuestDeps, siteId: string, questId: string, winners: Winner[]): Promise<void> {
  await deps.supergraph.execute(SETTLE_RAFFLE, { questId, winnerClaimIds: winners.map((winner) => winner.claimId) }, serviceIdentity(siteId));
  await deps.db.questRaffle.updateMany({ where: { questId }, data: { settledAt: new Date() } });
}

// ------------------------------------------------------------------ reads and the raffle

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
    await deps.db.questRaffle.create({ data: { questId: quest.id, siteId, winners: drawn as unknown as Prisma.InputJsonValue, drawnAt: new Date() } });
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

// ------------------------------------------------------------------ the outbox

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

// ------------------------------------------------------------------ activity: answers

/**
 * Quests of a site, kept per instance with the viewer reads (shared/viewerReads.ts): a burst of answers
 * or a watch-time batch reads them once, and any content change on any instance drops them at once.
 */
export function questsOfSite(deps: Pick<QuestDeps, 'db' | 'bus'>, siteId: string): Promise<Quest[]> {
  return viewerRead(deps, siteId, 'quests', () => deps.db.quest.findMany({ where: { siteId } }));
}

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
  const counts = (rule: ActionRule) => ANSWER_KINDS.has(rule.kind) && (rule.from === null || rule.from <= now) && (rule.to === null || rule.to >= now - ANSWER_WINDOW_SLACK_MS);
  for (const [siteId, accounts] of sites) {
    const quests = (await questsOfSite(deps, siteId)).filter((quest) => actionRules(quest).some(counts));
    const views: QuestProgressView[] = [];
    for (const quest of quests) views.push(...(await evaluateQuest(deps, quest, [...accounts])));
    publishProgress(deps, siteId, views);
  }
}

// ------------------------------------------------------------------ the live feed

