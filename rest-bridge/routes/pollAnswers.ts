/**
 * REST routes of viewers taking part in polls (DESIGN.md "Viewers take part"): answering as the
 * signed-in viewer (C + J) and reading the results with the site ID alone (C; with J also `mine`).
 */
import { arrayOf, pathId as id, ref, SIGNED_IN, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableStr, obj, str } from './shared';

const RESULTS = /* GraphQL */ `pollId type open total answers { id text count } correctAnswerId mine { answerId correct }`;

export const pollAnswerSchemas: Record<string, JsonSchema> = {
  PollAnswerReceipt: obj({ success: { type: 'boolean', enum: [true] }, pollId: str, answerId: str }),
  PollResults: obj({
    pollId: str,
    type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] },
    open: { type: 'boolean' },
    total: { type: 'integer', description: 'answers given in all' },
    answers: arrayOf(obj({ id: str, text: str, count: { type: 'integer' } })),
    correctAnswerId: { ...nullableStr, description: 'null while a trivia poll is open and until a prediction is resolved' },
    mine: {
      oneOf: [obj({ answerId: str, correct: { type: ['boolean', 'null'], description: 'null until the right answer is revealed' } }), { type: 'null' }],
      description: 'the caller’s own answer (with a JWT); null when none',
    },
  }),
};

export const pollAnswerRoutes: RouteSpec[] = [
  {
    operationId: 'answerPoll',
    method: 'post',
    path: '/poll/v3/{id}/answer',
    summary: 'Answer a poll as the signed-in viewer: one final answer per account, stored before the answer (409 when closed or already answered)',
    tag: 'Polls',
    auth: SIGNED_IN,
    rateLimited: true,
    params: [id('id', 'poll ID')],
    body: {
      schema: {
        type: 'object',
        required: ['answerId'],
        additionalProperties: false,
        properties: {
          answerId: { type: 'string', minLength: 1, maxLength: 64, description: 'one of the poll’s answers[].id' },
          channelId: { type: 'string', minLength: 1, maxLength: 64, description: 'the channel (page) answered from' },
        },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation AnswerPoll($pollId: ID!, $answerId: ID!, $channelId: ID) { result: answerPoll(pollId: $pollId, answerId: $answerId, channelId: $channelId) { pollId answerId } }`,
    variables: { pollId: 'path.id', answerId: 'body.answerId', channelId: 'body.channelId' },
    envelope: 'success',
    subgraph: 'content',
    response: ref('PollAnswerReceipt'),
  },
  {
    operationId: 'getPollResults',
    method: 'get',
    path: '/poll/v3/{id}/results',
    summary: 'A poll’s results: counts per answer, the right answer once revealed, and (with a JWT) the caller’s own answer',
    tag: 'Polls',
    auth: SITE_ID,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `query PollResults($pollId: ID!) { result: pollResults(pollId: $pollId) { ${RESULTS} } }`,
    variables: { pollId: 'path.id' },
    subgraph: 'content',
    response: ref('PollResults'),
  },
];
