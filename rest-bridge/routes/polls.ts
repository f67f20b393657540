/** Polls (seed 001), and what viewers do with them (ours: answering, live results); answered by the content subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SIGNED_IN, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { limit, listVariables, nullableStr, obj, offset, REFERENCE, search, sortBy, sortDirection, str } from './shared';

const POLL = /* GraphQL */ `_id: id siteId type name question answers { id text imageUrl } correctAnswerId open created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const pollSchemas: Record<string, JsonSchema> = {
  Poll: obj({
    _id: str,
    siteId: str,
    type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] },
    name: str,
    question: str,
    answers: arrayOf(obj({ id: str, text: str, imageUrl: nullableStr })),
    correctAnswerId: nullableStr,
    open: { type: 'boolean' },
    created: epochMs,
    modified: epochMs,
  }),
};

const pollFields: Record<string, JsonSchema> = {
  _id: str,
  type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] },
  name: { type: 'string', minLength: 1, maxLength: 200 },
  question: { type: 'string', minLength: 1, maxLength: 1000 },
  answers: {
    type: 'array',
    description: 'ours (the seed shows no answers): absent or empty = none; otherwise 2 to 50',
    maxItems: 50,
    items: { type: 'object', required: ['text'], additionalProperties: false, properties: { id: str, text: str, imageUrl: nullableStr } },
  },
  correctAnswerId: nullableStr,
  open: { type: 'boolean' },
  siteId: str,
  created: epochMs,
  modified: epochMs,
};
const pollInput = {
  type: 'body.type',
  name: 'body.name',
  question: 'body.question',
  answers: 'body.answers',
  correctAnswerId: 'body.correctAnswerId',
  open: 'body.open',
  siteId: 'body.siteId',
} as const;

export const pollRoutes: RouteSpec[] = [
  {
    operationId: 'listPolls',
    method: 'get',
    path: '/poll/v3/',
    summary: 'The site’s polls, predictions and trivia, searched, sorted and paged',
    tag: 'Polls',
    auth: ADMIN,
    params: [
      search('name or question'),
      offset,
      limit,
      sortBy(['name', 'created'], 'created'),
      { ...sortDirection, schema: { type: 'integer', enum: [1, -1], default: 1 } },
      {
        name: 'rQuery',
        in: 'query',
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { type: { enum: ['poll', 'prediction', 'trivia'] }, open: { type: 'boolean' }, name: str },
        },
        description: 'JSON of exact values, e.g. {"type": "trivia", "open": true}',
      },
    ],
    document: /* GraphQL */ `query ListPolls($search: String, $offset: Int, $limit: Int, $sortBy: PollSortField, $sortDirection: Int, $filter: JSON) {
      result: polls(search: $search, offset: $offset, limit: $limit, sortBy: $sortBy, sortDirection: $sortDirection, filter: $filter) { ${POLL} }
    }`,
    variables: { search: 'query.search', ...listVariables, filter: 'query.rQuery' },
    response: arrayOf(ref('Poll')),
  },
  {
    operationId: 'createPoll',
    method: 'post',
    path: '/poll/v3/',
    summary: 'Create a poll, prediction or trivia question',
    tag: 'Polls',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['type', 'name', 'question'], additionalProperties: false, properties: pollFields }, required: true },
    document: /* GraphQL */ `mutation CreatePoll($input: PollInput!) { result: createPoll(input: $input) { ${POLL} } }`,
    variables: { input: pollInput },
    response: ref('Poll'),
  },
  {
    operationId: 'validatePollReferences',
    method: 'get',
    path: '/poll/v3/validate-references/{id}',
    summary: 'What points at the poll (panels and quests)',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `query PollReferences($id: ID!) { result: pollReferences(id: $id) { ${REFERENCE} } }`,
    variables: { id: 'path.id' },
    response: arrayOf(ref('ContentReference')),
  },
  {
    operationId: 'getPoll',
    method: 'get',
    path: '/poll/v3/{id}',
    summary: 'One poll (the site ID alone is enough)',
    tag: 'Polls',
    auth: SITE_ID,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `query GetPoll($id: ID!) { result: poll(id: $id) { ${POLL} } }`,
    variables: { id: 'path.id' },
    response: ref('Poll'),
  },
  {
    operationId: 'replacePoll',
    method: 'put',
    path: '/poll/v3/{id}',
    summary: 'Replace a poll',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    body: { schema: { type: 'object', required: ['type', 'name', 'question'], additionalProperties: false, properties: pollFields }, required: true },
    document: /* GraphQL */ `mutation ReplacePoll($id: ID!, $input: PollInput!) { result: replacePoll(id: $id, input: $input) { ${POLL} } }`,
    variables: { id: 'path.id', input: pollInput },
    response: ref('Poll'),
  },
  {
    operationId: 'updatePoll',
    method: 'patch',
    path: '/poll/v3/{id}',
    summary: 'Update what is given of a poll’s fields (absent fields keep their value)',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: pollFields }, required: true },
    document: /* GraphQL */ `mutation UpdatePoll($id: ID!, $input: PollUpdateInput!) { result: updatePoll(id: $id, input: $input) { ${POLL} } }`,
    variables: { id: 'path.id', input: pollInput },
    response: ref('Poll'),
  },
  {
    operationId: 'deletePoll',
    method: 'delete',
    path: '/poll/v3/{id}',
    summary: 'Delete a poll',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `mutation DeletePoll($id: ID!) { result: deletePoll(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
];

// ------------------------------------------------------------------ viewers answer and read live results (ours: docs/design.md "Viewers take part")

const RESULTS = /* GraphQL */ `pollId type question open total answers { id text count } correctAnswerId mine { answerId correct }`;

export const pollAnswerSchemas: Record<string, JsonSchema> = {
  PollAnswerReceipt: obj({ success: { type: 'boolean', enum: [true] }, pollId: str, answerId: str }),
  PollResults: obj({
    pollId: str,
    type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] },
    question: { ...str, description: 'the question viewers see' },
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
