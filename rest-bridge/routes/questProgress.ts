/**
 * REST routes of quest progress and raffles (DESIGN.md, "Viewers take part": paths the seed leaves to
 * us), answered by the content subgraph: a viewer's own progress on a quest (C + J) and the draw of a
 * raffle quest's winners (C + D, or C + J with the Quests scope and write).
 */
import { ADMIN, SIGNED_IN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { str } from './shared';

const PROGRESS = /* GraphQL */ `questId completed completedAt actions { arrayId kind value valueRequired done }`;

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
    required: ['questId', 'completed', 'completedAt', 'actions'],
    properties: {
      questId: str,
      completed: { type: 'boolean' },
      completedAt: { ...epochMs, type: ['number', 'null'] },
      actions: arrayOf(ref('QuestActionProgress')),
    },
  },
  QuestRaffleResult: {
    type: 'object',
    required: ['success', 'winners'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      winners: arrayOf({ type: 'object', required: ['accountId', 'claimId'], properties: { accountId: str, claimId: { type: 'string', description: 'the winner’s claim, now APPROVED' } } }),
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
      schema: { type: 'object', required: ['winners'], additionalProperties: false, properties: { winners: { type: 'integer', minimum: 1, maximum: 100000, description: 'how many accounts to draw' } } },
      required: true,
    },
    document: /* GraphQL */ `mutation DrawQuestRaffle($questId: ID!, $winners: Int!) { result: drawQuestRaffle(questId: $questId, winners: $winners) { success winners { accountId claimId } } }`,
    variables: { questId: 'path.id', winners: 'body.winners' },
    response: ref('QuestRaffleResult'),
  },
];
