/** Polls (seed 001); answered by the content subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { REFERENCE, limit, listVariables, nullableStr, obj, offset, search, sortBy, sortDirection, str } from './shared';

const POLL = /* GraphQL */ `_id: id siteId type name question answers { id text imageUrl } correctAnswerId open created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const pollSchemas: Record<string, JsonSchema> = {
  Poll: obj({
    _id: str, siteId: str, type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] }, name: str, question: str,
    answers: arrayOf(obj({ id: str, text: str, imageUrl: nullableStr })), correctAnswerId: nullableStr, open: { type: 'boolean' }, created: epochMs, modified: epochMs,
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
  type: 'body.type', name: 'body.name', question: 'body.question', answers: 'body.answers',
  correctAnswerId: 'body.correctAnswerId', open: 'body.open', siteId: 'body.siteId',
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
        schema: { type: 'object', additionalProperties: false, properties: { type: { enum: ['poll', 'prediction', 'trivia'] }, open: { type: 'boolean' }, name: str } },
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
    summary: 'Change some of a poll’s fields',
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
