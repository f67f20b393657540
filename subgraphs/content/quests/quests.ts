/**
 * Quests: actions a viewer completes (answer polls, watch video) for a reward. Reward types and action
 * kinds are the seed's; an answer:polls:specific action names its poll in validationValue, and that poll
 * must be one of the site's.
 */
import type { Db } from '../../../shared/db/client';
import type { Prisma, Quest } from '../../../shared/db/generated/sqlite';
import { badInput } from '../../../shared/errors';
import { checkListSize, checkOptionalNumber, checkOptionalText, checkOptionalUrl, checkSiteId, checkTags, checkText, found } from '../checks';
import { searchKey, type PropertyKind } from '../listing';
import type { QuestAction, QuestInput } from '../resolvers.generated';

export const REWARD_TYPES = ['raffle', 'prize', 'webhook', 'prize-service-specific'] as const;
/** The action kinds the server keeps progress of; any other kind is stored and shown, never done. */
export const ACTION_KINDS = ['answer:polls:any', 'answer:polls:specific', 'watch:any:video'] as const;

/** Fields the list's property filter may name. */
export const QUEST_PROPERTIES: Record<string, { column: string; kind: PropertyKind }> = {
  title: { column: 'title', kind: 'text' },
  description: { column: 'description', kind: 'text' },
  rewardType: { column: 'rewardType', kind: 'text' },
  rewardDescription: { column: 'rewardDescription', kind: 'text' },
  rewardImage: { column: 'rewardImage', kind: 'text' },
  claimedMessage: { column: 'claimedMessage', kind: 'text' },
  webhookId: { column: 'webhookId', kind: 'text' },
  webhookType: { column: 'webhookType', kind: 'text' },
  webhookValue: { column: 'webhookValue', kind: 'number' },
  timeMinimum: { column: 'timeMinimum', kind: 'number' },
  timeMaximum: { column: 'timeMaximum', kind: 'number' },
};

function checkActions(actions: QuestInput['actions']): QuestAction[] {
  checkListSize(actions ?? [], 'actions', 50);
  return (actions ?? []).map((action, index) => {
    const field = `actions[${index}]`;
    // The seed lists the kinds it has seen, not all there are: another kind is kept and shown with the
    // quest's progress, and never done by itself (docs/design.md, "Quest progress").
    const kind = checkText(action.kind, `${field}.kind`, 100);
    if (action.kind === 'answer:polls:specific' && !action.validationValue) {
      throw badInput(`${field}.validationValue must name the poll to answer`, `${field}.validationValue`);
    }
    const timeMinimum = checkOptionalNumber(action.timeMinimum, `${field}.timeMinimum`);
    const timeMaximum = checkOptionalNumber(action.timeMaximum, `${field}.timeMaximum`);
    if (timeMinimum !== null && timeMaximum !== null && timeMinimum > timeMaximum)
      throw badInput(`${field}.timeMinimum must not be after timeMaximum`, `${field}.timeMinimum`);
    return {
      arrayId: action.arrayId ?? null,
      body: checkOptionalText(action.body, `${field}.body`, 2000),
      callToAction: checkOptionalText(action.callToAction, `${field}.callToAction`, 500),
      channelId: action.channelId ?? null,
      kind,
      timeMaximum,
      timeMinimum,
      validationValue: action.validationValue ?? null,
      valueRequired: checkOptionalNumber(action.valueRequired, `${field}.valueRequired`, 0),
    };
  });
}

/** The columns of a quest from its input (create and replace take the same fields). */
export async function questFields(db: Db, input: QuestInput, siteId: string) {
  checkSiteId(input.siteId, siteId);
  if (!(REWARD_TYPES as readonly string[]).includes(input.rewardType)) throw badInput(`rewardType must be one of ${REWARD_TYPES.join(', ')}`, 'rewardType');
  const actions = checkActions(input.actions);
  const pollIds = [...new Set(actions.filter((action) => action.kind === 'answer:polls:specific').map((action) => action.validationValue as string))];
  if (pollIds.length) {
    const found = new Set((await db.poll.findMany({ where: { siteId, id: { in: pollIds } }, select: { id: true } })).map((poll) => poll.id));
    const index = actions.findIndex((action) => action.kind === 'answer:polls:specific' && !found.has(action.validationValue as string));
    if (index >= 0) throw badInput(`actions[${index}].validationValue names no poll of this site`, `actions[${index}].validationValue`);
  }
  const timeMinimum = checkOptionalNumber(input.timeMinimum, 'timeMinimum');
  const timeMaximum = checkOptionalNumber(input.timeMaximum, 'timeMaximum');
  if (timeMinimum !== null && timeMaximum !== null && timeMinimum > timeMaximum) throw badInput('timeMinimum must not be after timeMaximum', 'timeMinimum');
  const channelIds = checkListSize(input.channelIds ?? [], 'channelIds', 500).map((id, index) => checkText(id, `channelIds[${index}]`, 64));
  const title = checkText(input.title, 'title', 200);
  return {
    title,
    searchTitle: searchKey(title),
    description: checkText(input.description, 'description', 5000),
    actions: actions as unknown as Prisma.InputJsonValue,
    channelIds,
    claimedMessage: checkText(input.claimedMessage, 'claimedMessage', 1000),
    rewardDescription: checkText(input.rewardDescription, 'rewardDescription', 2000),
    rewardImage: checkOptionalUrl(input.rewardImage, 'rewardImage'),
    rewardType: input.rewardType,
    timeMinimum,
    timeMaximum,
    webhookId: checkOptionalText(input.webhookId, 'webhookId', 200),
    webhookType: checkOptionalText(input.webhookType, 'webhookType', 200),
    webhookValue: checkOptionalNumber(input.webhookValue, 'webhookValue'),
    tags: checkTags(input.tags),
  };
}

export async function findQuest(db: Db, siteId: string, id: string): Promise<Quest> {
  return found(await db.quest.findFirst({ where: { id, siteId } }), `quest ${id}`);
}

export function questActions(quest: Quest): QuestAction[] {
  return Array.isArray(quest.actions) ? (quest.actions as unknown as QuestAction[]) : [];
}
