/**
 * Audience Q&A of the Q&A panels (ours, beyond the seeds: docs/api.md "Questions the audience votes up"):
 * signed-in viewers ask and upvote, the site ID alone reads the room, moderators (site admins) approve,
 * answer, dismiss and highlight. Answered by the content subgraph.
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SIGNED_IN, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableStr, obj, str, strictBody } from './shared';

const QUESTION = /* GraphQL */ `id text votes status highlighted author { name } created votedByMe`;
const status: JsonSchema = { type: 'string', enum: ['held', 'open', 'answered', 'dismissed'] };

export const qaSchemas: Record<string, JsonSchema> = {
  QaQuestion: obj({
    id: str,
    text: { type: 'string', description: 'plain text: show it as text, never as HTML' },
    votes: { type: 'integer', minimum: 0, description: 'upvotes from other viewers, exact' },
    status: { ...status, description: 'held (only its asker and moderators see it), open, answered or dismissed' },
    highlighted: { type: 'boolean', description: 'the room’s highlighted question, shown over the video' },
    author: {
      ...obj({ name: { ...nullableStr, description: 'null when the account no longer exists' } }),
      type: ['object', 'null'],
      description: 'null when asked anonymously',
    },
    created: epochMs,
    votedByMe: { type: ['boolean', 'null'], description: 'whether the caller upvoted it; null without a viewer’s JWT' },
  }),
  QaAsked: obj({
    id: str,
    text: str,
    votes: { type: 'integer', enum: [0] },
    status: { ...status, description: 'open, or held (202) when the room is moderated' },
  }),
  QaQuestionList: obj({ results: arrayOf(ref('QaQuestion')) }),
  QaVoteCount: obj({ id: str, votes: { type: 'integer', minimum: 0, description: 'the question’s upvotes now' } }),
};

const panelId = id('panelId', 'Q&A panel ID');
const questionId = id('questionId', 'question ID');

/** A moderator's action on one question: POST …/questions/{questionId}/{action}. */
const moderation = (action: string, field: string, summary: string): RouteSpec => ({
  operationId: `${action}QaQuestion`,
  method: 'post',
  path: `/qa/v1/{panelId}/questions/{questionId}/${action}`,
  summary,
  tag: 'Q&A',
  auth: ADMIN,
  params: [panelId, questionId],
  document: /* GraphQL */ `mutation ${field[0].toUpperCase()}${field.slice(1)}($panelId: ID!, $questionId: ID!) { result: ${field}(panelId: $panelId, questionId: $questionId) { ${QUESTION} } }`,
  variables: { panelId: 'path.panelId', questionId: 'path.questionId' },
  response: ref('QaQuestion'),
});

const vote = (method: 'post' | 'delete', field: string, summary: string): RouteSpec => ({
  operationId: field,
  method,
  path: '/qa/v1/{panelId}/questions/{questionId}/vote',
  summary,
  tag: 'Q&A',
  auth: SIGNED_IN,
  rateLimited: method === 'post',
  params: [panelId, questionId],
  document: /* GraphQL */ `mutation ${field[0].toUpperCase()}${field.slice(1)}($panelId: ID!, $questionId: ID!) { result: ${field}(panelId: $panelId, questionId: $questionId) { id votes } }`,
  variables: { panelId: 'path.panelId', questionId: 'path.questionId' },
  response: ref('QaVoteCount'),
});

export const qaRoutes: RouteSpec[] = [
  {
    operationId: 'askQaQuestion',
    method: 'post',
    path: '/qa/v1/{panelId}/questions',
    summary: 'Ask a question as the signed-in viewer: one a minute per account, checked against the room’s rules, stored before the answer',
    tag: 'Q&A',
    auth: SIGNED_IN,
    rateLimited: true,
    params: [panelId],
    body: strictBody(['text'], {
      text: {
        type: 'string',
        maxLength: 4000,
        example: 'Will the show be on replay?',
        description: 'plain text, 1 to the room’s max_length (default 300) characters once trimmed',
      },
      anonymous: { type: 'boolean', description: 'ask without your name shown (only where the room allows it)' },
    }),
    document: /* GraphQL */ `mutation AskQaQuestion($panelId: ID!, $text: String!, $anonymous: Boolean) { result: askQaQuestion(panelId: $panelId, text: $text, anonymous: $anonymous) { id text votes status } }`,
    variables: { panelId: 'path.panelId', text: 'body.text', anonymous: 'body.anonymous' },
    status: 201,
    // A moderated room holds the question for a moderator: 202.
    acceptedWhen: ['status=held'],
    response: ref('QaAsked'),
  },
  {
    operationId: 'getQaQuestions',
    method: 'get',
    path: '/qa/v1/{panelId}/questions',
    summary: 'A Q&A room in room order (most votes, then oldest); with a viewer’s JWT also its own held questions and its votes',
    tag: 'Q&A',
    auth: SITE_ID,
    params: [panelId],
    document: /* GraphQL */ `query QaQuestions($panelId: ID!) { result: qaQuestions(panelId: $panelId) { results { ${QUESTION} } } }`,
    variables: { panelId: 'path.panelId' },
    response: ref('QaQuestionList'),
  },
  vote('post', 'voteQaQuestion', 'Upvote another viewer’s question, once per account'),
  vote('delete', 'unvoteQaQuestion', 'Take your upvote back'),
  {
    operationId: 'getQaHeldQuestions',
    method: 'get',
    path: '/qa/v1/{panelId}/held',
    summary: 'The questions of a moderated room that wait for a moderator, oldest first',
    tag: 'Q&A',
    auth: ADMIN,
    params: [panelId],
    document: /* GraphQL */ `query QaHeldQuestions($panelId: ID!) { result: qaHeldQuestions(panelId: $panelId) { results { ${QUESTION} } } }`,
    variables: { panelId: 'path.panelId' },
    response: ref('QaQuestionList'),
  },
  moderation('approve', 'approveQaQuestion', 'Let a held question into the room'),
  moderation('answer', 'answerQaQuestion', 'Mark a question answered (it stays in the room, marked)'),
  moderation('dismiss', 'dismissQaQuestion', 'Dismiss a question: it leaves the room, and the video when highlighted'),
  moderation('highlight', 'highlightQaQuestion', 'Highlight a question: shown over the video in place of the room’s previous highlight'),
];
