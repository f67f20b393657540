/** Quests (seed 001), and a viewer's progress and the raffle (ours); answered by the content subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SIGNED_IN } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import {
  limit,
  LIST_PAGINATION,
  listVariables,
  nullableNum,
  nullableStr,
  obj,
  offset,
  pagination,
  property,
  search,
  sortBy,
  sortDirection,
  str,
  strings,
  tags,
} from './shared';

const QUEST = /* GraphQL */ `_id: id siteId title description actions { arrayId body callToAction channelId kind timeMaximum timeMinimum validationValue valueRequired } channelIds claimedMessage rewardDescription rewardImage rewardType timeMinimum timeMaximum webhookId webhookType webhookValue tags created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const questSchemas: Record<string, JsonSchema> = {
  Quest: obj({
    _id: str,
    siteId: str,
    title: str,
    description: str,
    actions: arrayOf({
      type: 'object',
      properties: {
        arrayId: nullableStr,
        body: nullableStr,
        callToAction: nullableStr,
        channelId: nullableStr,
        kind: str,
        timeMaximum: nullableNum,
        timeMinimum: nullableNum,
        validationValue: nullableStr,
        valueRequired: nullableNum,
      },
    }),
    channelIds: arrayOf(str),
    claimedMessage: str,
    rewardDescription: str,
    rewardImage: nullableStr,
    rewardType: { type: 'string', enum: ['raffle', 'prize', 'webhook', 'prize-service-specific'] },
    timeMinimum: nullableNum,
    timeMaximum: nullableNum,
    webhookId: nullableStr,
    webhookType: nullableStr,
    webhookValue: nullableNum,
    tags,
    created: epochMs,
    modified: epochMs,
  }),
  QuestList: obj({ pagination, results: arrayOf(ref('Quest')) }),
};

const questAction: JsonSchema = {
  type: 'object',
  required: ['kind'],
  additionalProperties: false,
  properties: {
    arrayId: nullableStr,
    body: nullableStr,
    callToAction: nullableStr,
    channelId: nullableStr,
    kind: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'answer:polls:any, answer:polls:specific, watch:any:video; another kind is kept and shown, never done by itself',
    },
    timeMaximum: nullableNum,
    timeMinimum: nullableNum,
    validationValue: nullableStr,
    valueRequired: nullableNum,
  },
};
const questBody = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  required: ['title', 'description', 'rewardDescription', 'rewardType', 'siteId', 'claimedMessage'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', minLength: 1 },
    actions: { type: 'array', maxItems: 50, items: questAction },
    channelIds: strings(500),
    claimedMessage: { type: 'string', minLength: 1 },
    rewardDescription: { type: 'string', minLength: 1 },
    rewardType: { type: 'string', enum: ['raffle', 'prize', 'webhook', 'prize-service-specific'] },
    rewardInage: { type: ['string', 'null'], description: 'the reward image URL (the seed’s request field name); stored as rewardImage' },
    rewardImage: { type: ['string', 'null'], description: 'the same as rewardInage' },
    siteId: str,
    timeMaximum: nullableNum,
    timeMinimum: nullableNum,
    webhookId: nullableStr,
    webhookType: nullableStr,
    webhookValue: nullableNum,
    tags: strings(100),
    ...extra,
  },
});
const questInput = {
  title: 'body.title',
  description: 'body.description',
  actions: 'body.actions',
  channelIds: 'body.channelIds',
  claimedMessage: 'body.claimedMessage',
  rewardDescription: 'body.rewardDescription',
  rewardType: 'body.rewardType',
  rewardImage: ['body.rewardImage', 'body.rewardInage'],
  siteId: 'body.siteId',
  timeMaximum: 'body.timeMaximum',
  timeMinimum: 'body.timeMinimum',
  webhookId: 'body.webhookId',
  webhookType: 'body.webhookType',
  webhookValue: 'body.webhookValue',
  tags: 'body.tags',
} as const;

export const questRoutes: RouteSpec[] = [
  {
    operationId: 'listQuests',
    method: 'get',
    path: '/quest/v2',
    summary: 'The site’s quests, searched on title, filtered on a property, sorted and paged',
    tag: 'Quests',
    auth: ADMIN,
    params: [
      search('title'),
      sortBy(['created', 'modified', 'title', 'rewardType', 'timeMinimum', 'timeMaximum'], 'created'),
      sortDirection,
      offset,
      limit,
      property('rewardType=raffle'),
    ],
    document: /* GraphQL */ `query ListQuests($search: String, $sortBy: String, $sortDirection: Int, $offset: Int, $limit: Int, $property: String) {
      result: quests(search: $search, sortBy: $sortBy, sortDirection: $sortDirection, offset: $offset, limit: $limit, property: $property) { ${LIST_PAGINATION} results { ${QUEST} } }
    }`,
    variables: { search: 'query.search', ...listVariables, property: 'query.property' },
    response: ref('QuestList'),
  },
  {
    operationId: 'createQuest',
    method: 'post',
    path: '/quest/v2',
    summary: 'Create a quest',
    tag: 'Quests',
    auth: ADMIN,
    body: { schema: questBody(), required: true },
    document: /* GraphQL */ `mutation CreateQuest($input: QuestInput!) { result: createQuest(input: $input) { ${QUEST} } }`,
    variables: { input: questInput },
    response: ref('Quest'),
  },
  {
    operationId: 'getQuest',
    method: 'get',
    path: '/quest/v2/{id}',
    summary: 'One quest',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    document: /* GraphQL */ `query GetQuest($id: ID!) { result: quest(id: $id) { ${QUEST} } }`,
    variables: { id: 'path.id' },
    response: ref('Quest'),
  },
  {
    operationId: 'replaceQuest',
    method: 'put',
    path: '/quest/v2/{id}',
    summary: 'Replace a quest',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    body: { schema: questBody({ _id: str, created: epochMs, modified: epochMs }), required: true },
    document: /* GraphQL */ `mutation ReplaceQuest($id: ID!, $input: QuestInput!) { result: replaceQuest(id: $id, input: $input) { ${QUEST} } }`,
    variables: { id: 'path.id', input: questInput },
    response: ref('Quest'),
  },
  {
    operationId: 'deleteQuest',
    method: 'delete',
    path: '/quest/v2/{id}',
    summary: 'Delete a quest; answers the deleted quest',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    document: /* GraphQL */ `mutation DeleteQuest($id: ID!) { result: deleteQuest(id: $id) { ${QUEST} } }`,
    variables: { id: 'path.id' },
    response: ref('Quest'),
  },
];

// ------------------------------------------------------------------ a viewer's progress and the raffle (ours: docs/design.md "Viewers take part")

const PROGRESS = /* GraphQL */ `questId completed completedAt claimedMessage actions { arrayId kind value valueRequired done }`;

export const questProgressSchemas: Record<string, JsonSchema> = {
  QuestActionProgress: {
    type: 'object',
    required: ['arrayId', 'kind', 'value', 'valueRequired', 'done'],
    properties: {
      arrayId: { type: 'string', description: 'the step’s arrayId, or #index when it has none' },
      kind: { type: 'string', description: 'answer:polls:any, answer:polls:specific, watch:any:video, or another kind (shown, never done by itself)' },
      value: { type: 'number', description: 'polls answered, 1 when the named poll was answered, or seconds watched' },
      valueRequired: { type: 'number', description: 'what the step needs (1 when the quest gives none)' },
      done: { type: 'boolean' },
    },
  },
  QuestProgress: {
    type: 'object',
    required: ['questId', 'completed', 'completedAt', 'claimedMessage', 'actions'],
    properties: {
      questId: str,
      completed: { type: 'boolean' },
      completedAt: { ...epochMs, type: ['number', 'null'] },
      claimedMessage: {
        type: ['string', 'null'],
        description: 'The quest’s claimedMessage once completed (what the viewer is shown for the reward); null before',
      },
      actions: arrayOf(ref('QuestActionProgress')),
    },
  },
  QuestRaffleResult: {
    type: 'object',
    required: ['success', 'winners'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      winners: arrayOf({
        type: 'object',
        required: ['accountId', 'claimId'],
        properties: { accountId: str, claimId: { type: 'string', description: 'the winner’s claim, now APPROVED' } },
      }),
    },
  },
};

export const questProgressRoutes: RouteSpec[] = [
  {
    operationId: 'getQuestProgress',
    method: 'get',
    path: '/quest/v2/{id}/progress',
    summary: 'The signed-in viewer’s progress on a quest: polls answered and seconds watched as the server saw them',
    tag: 'Quests',
    auth: SIGNED_IN,
    params: [id('id', 'quest ID')],
    document: /* GraphQL */ `query GetQuestProgress($questId: ID!) { result: questProgress(questId: $questId) { ${PROGRESS} } }`,
    variables: { questId: 'path.id' },
    response: ref('QuestProgress'),
  },
  {
    operationId: 'drawQuestRaffle',
    method: 'post',
    path: '/quest/v2/{id}/raffle',
    summary: 'Draw a raffle quest’s winners once, uniformly among the accounts that completed it: their claims become APPROVED, the others REJECTED',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    body: {
      schema: {
        type: 'object',
        required: ['winners'],
        additionalProperties: false,
        properties: { winners: { type: 'integer', minimum: 1, maximum: 100000, description: 'how many accounts to draw' } },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation DrawQuestRaffle($questId: ID!, $winners: Int!) { result: drawQuestRaffle(questId: $questId, winners: $winners) { success winners { accountId claimId } } }`,
    variables: { questId: 'path.id', winners: 'body.winners' },
    response: ref('QuestRaffleResult'),
  },
];
