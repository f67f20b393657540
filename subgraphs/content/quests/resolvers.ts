/** Resolvers of quests: reads (C), writes (D or a Quests role). */
import { requireAdmin, requireReader } from '../../../shared/auth/access';
import DataLoader from 'dataloader';
import type { Identity } from '../../../shared/auth/identity';
import type { Db } from '../../../shared/db/client';
import type { Quest } from '../../../shared/db/generated/sqlite';
import { newId } from '../../../shared/ids';
import { stringList } from '../../../shared/json';
import { listQuery, searchFilter, type ListSpec } from '../listing';
import { findQuest, QUEST_PROPERTIES, questActions, questFields } from './quests';
import type { QuestDeps } from './deps';
import type { ClaimStatusModel } from '../schema.mappers';
import { questProgressOf } from './progress';
import { drawQuestRaffle } from './raffle';
import { referencesOfQuest, replaceReferences } from '../references';
import type { QuestInput, Resolvers } from '../resolvers.generated';
import { Scopes, timestamps } from '../scopes';

const QUEST_LIST: ListSpec<string> = {
  sort: { created: 'createdAt', modified: 'updatedAt', title: 'title', rewardType: 'rewardType', timeMinimum: 'timeMinimum', timeMaximum: 'timeMaximum' },
  defaultSort: 'created',
  defaultDirection: -1,
  properties: QUEST_PROPERTIES,
};

/** Creates (no id) or replaces a quest, with the polls its actions point at, in one transaction. */
async function saveQuest(db: Db, siteId: string, input: QuestInput, id: string | null): Promise<Quest> {
  const fields = await questFields(db, input, siteId);
  const now = new Date();
  return db.$transaction(async (tx) => {
    const quest = id
      ? await tx.quest.update({ where: { id }, data: { ...fields, updatedAt: now } })
      : await tx.quest.create({ data: { ...fields, id: newId(), siteId, createdAt: now, updatedAt: now } });
    await replaceReferences(tx, { siteId, collection: 'quests', id: quest.id, name: quest.title }, referencesOfQuest(quest.actions));
    return quest;
  });
}

const claimedMessageLoaders = new WeakMap<Identity, DataLoader<string, string | null>>();

/** The claimedMessage of the quests one request's claims name, read in one query. */
function claimedMessageLoader(identity: Identity, db: Db, siteId: string): DataLoader<string, string | null> {
  let loader = claimedMessageLoaders.get(identity);
  if (!loader) {
    loader = new DataLoader(async (questIds: readonly string[]) => {
      const quests = await db.quest.findMany({ where: { siteId, id: { in: [...questIds] } }, select: { id: true, claimedMessage: true } });
      const byId = new Map(quests.map((quest) => [quest.id, quest.claimedMessage]));
      return questIds.map((id) => byId.get(id) ?? null);
    });
    claimedMessageLoaders.set(identity, loader);
  }
  return loader;
}

/** `quests`: the runtime's quest progress (completions wake its webhook dispatcher). */
export const questResolvers = (quests: QuestDeps): Resolvers => ({
  Query: {
    quests: async (_root, { search, ...args }, { identity, db }) => {
      const list = listQuery(args, QUEST_LIST);
      const where = { siteId: requireReader(identity), ...list.where, ...searchFilter('searchTitle', search) };
      const [results, totalCount] = await db.$transaction([db.quest.findMany({ where, orderBy: list.orderBy, ...list.page }), db.quest.count({ where })]);
      return { pagination: list.paginate(results, totalCount), results };
    },
    quest: (_root, { id }, { identity, db }) => findQuest(db, requireReader(identity), id),
    questProgress: (_root, { questId }, ctx) => questProgressOf(quests, ctx.identity, questId),
  },
  Mutation: {
    drawQuestRaffle: (_root, { questId, winners }, ctx) => drawQuestRaffle(quests, ctx.identity, questId, winners),
    createQuest: (_root, { input }, { identity, db }) => saveQuest(db, requireAdmin(identity, Scopes.quests, { write: true }), input, null),
    replaceQuest: async (_root, { id, input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.quests, { write: true });
      const current = await findQuest(db, siteId, id);
      return saveQuest(db, siteId, input, current.id);
    },
    deleteQuest: async (_root, { id }, { identity, db }) => {
      const quest = await findQuest(db, requireAdmin(identity, Scopes.quests, { write: true }), id);
      await db.$transaction([
        db.contentReference.deleteMany({ where: { sourceCollection: 'quests', sourceId: quest.id } }),
        db.quest.delete({ where: { id: quest.id } }),
      ]);
      return quest;
    },
  },
  // A claim (community) carries its quest's claimedMessage: the reward's message is the quest's, never copied.
  ClaimStatus: {
    // The gateway sends the fields claimedMessage @requires with the key.
    __resolveReference: (reference: { id: string; questId?: unknown; status?: unknown }): ClaimStatusModel | null =>
      typeof reference.questId === 'string' && typeof reference.status === 'string'
        ? { id: reference.id, questId: reference.questId, status: reference.status }
        : null,
    claimedMessage: (claim, _args, { identity, db }) =>
      claim.status === 'REJECTED' || !identity.siteId ? null : claimedMessageLoader(identity, db, identity.siteId).load(claim.questId),
  },
  Quest: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.quest.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
    actions: (quest) => questActions(quest),
    channelIds: (quest) => stringList(quest.channelIds),
    tags: (quest) => stringList(quest.tags),
    ...timestamps,
  },
});
