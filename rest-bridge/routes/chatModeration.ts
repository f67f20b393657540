/**
 * Chat moderation (docs/design.md "Chat that moderators can run"; the paths are ours): the held queue and its
 * decisions, reports and warnings, and what a signed-in viewer may do in a room. Answered by the content
 * subgraph. Moderators are admins of Panels (C + D, or C + J with write on Panels).
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SIGNED_IN } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableStr, obj, str } from './shared';

const HELD = /* GraphQL */ `id panelId text accountId reason created dueAt`;
const REPORT = /* GraphQL */ `id panelId messageId text accountId reason created`;
const WARNING = /* GraphQL */ `id accountId reason created acknowledged`;
const MESSAGE = /* GraphQL */ `id seq panelId text author { accountId name admin } created streamSecond replyTo { id name excerpt } held dueAt`;
const nullableMs: JsonSchema = { type: ['number', 'null'], description: 'Unix time in milliseconds' };
const reasonBody = (description: string, extra: Record<string, JsonSchema> = {}, required: string[] = []) => ({
  schema: {
    type: 'object',
    required: [...required, 'reason'],
    additionalProperties: false,
    properties: { ...extra, reason: { type: 'string', maxLength: 2000, description } },
  },
  required: true,
});

export const chatModerationSchemas: Record<string, JsonSchema> = {
  ChatHeldMessage: obj({
    id: str,
    panelId: str,
    text: { type: 'string', description: 'plain text: show it as text, never as HTML' },
    accountId: str,
    reason: { type: 'string', enum: ['hold_word', 'new_account', 'delay'] },
    created: epochMs,
    dueAt: { ...nullableMs, description: 'a delayed message: when it reaches the room; null for one held for review' },
  }),
  ChatReport: obj({
    id: str,
    panelId: str,
    messageId: str,
    text: { ...nullableStr, description: 'the reported message’s text; null once deleted' },
    accountId: str,
    reason: str,
    created: epochMs,
  }),
  ChatModerationQueue: obj({ success: { type: 'boolean', enum: [true] }, held: arrayOf(ref('ChatHeldMessage')), reports: arrayOf(ref('ChatReport')) }),
  ChatHeldDecision: obj({ success: { type: 'boolean', enum: [true] }, id: str }),
  ChatWarning: obj({ id: str, accountId: str, reason: str, created: epochMs, acknowledged: { ...nullableMs, description: 'null while open' } }),
  ChatWarningAcknowledgement: obj({
    success: { type: 'boolean', enum: [true] },
    acknowledged: { type: 'integer', description: 'how many open warnings were acknowledged' },
  }),
  ChatViewerState: obj({
    mode: { type: 'string', enum: ['open', 'entitled', 'admins'] },
    moderator: { type: 'boolean' },
    canSend: { type: 'boolean' },
    refusal: { type: ['string', 'null'], enum: ['entitled', 'admins', null], description: 'why the mode keeps the viewer out' },
    warning: { oneOf: [ref('ChatWarning'), { type: 'null' }] },
    delaySeconds: { type: 'integer' },
  }),
};

const panelId = id('panelId', 'chat panel ID');

export const chatModerationRoutes: RouteSpec[] = [
  {
    operationId: 'getChatModerationQueue',
    method: 'get',
    path: '/chat/v1/{panelId}/held',
    summary: 'What waits in a chat room for its moderators: held and delayed messages, and viewers’ reports, oldest first',
    tag: 'Chat',
    auth: ADMIN,
    params: [panelId],
    document: /* GraphQL */ `query ChatModerationQueue($panelId: ID!) { result: chatModerationQueue(panelId: $panelId) { held { ${HELD} } reports { ${REPORT} } } }`,
    variables: { panelId: 'path.panelId' },
    envelope: 'success',
    response: ref('ChatModerationQueue'),
  },
  {
    operationId: 'approveChatMessage',
    method: 'post',
    path: '/chat/v1/{panelId}/held/{id}/approve',
    summary: 'Send a held (or delayed) message to its room now: it takes the room’s next seq (once: a second decision is 409)',
    tag: 'Chat',
    auth: ADMIN,
    params: [panelId, id('id', 'held message ID')],
    document: /* GraphQL */ `mutation ApproveChatMessage($panelId: ID!, $id: ID!) { result: approveChatMessage(panelId: $panelId, id: $id) { ${MESSAGE} } }`,
    variables: { panelId: 'path.panelId', id: 'path.id' },
    response: ref('ChatMessage'),
  },
  {
    operationId: 'denyChatMessage',
    method: 'post',
    path: '/chat/v1/{panelId}/held/{id}/deny',
    summary: 'Drop a held (or delayed) message: it never reaches the room (once: a second decision is 409)',
    tag: 'Chat',
    auth: ADMIN,
    params: [panelId, id('id', 'held message ID')],
    document: /* GraphQL */ `mutation DenyChatMessage($panelId: ID!, $id: ID!) { result: denyChatMessage(panelId: $panelId, id: $id) { id } }`,
    variables: { panelId: 'path.panelId', id: 'path.id' },
    envelope: 'success',
    response: ref('ChatHeldDecision'),
  },
  {
    operationId: 'reportChatMessage',
    method: 'post',
    path: '/chat/v1/{panelId}/messages/{id}/report',
    summary: 'Report a chat message to the room’s moderators as the signed-in viewer, once per account and message (a second is 409)',
    tag: 'Chat',
    auth: SIGNED_IN,
    params: [panelId, id('id', 'message ID')],
    body: reasonBody('why, 1 to 500 characters once trimmed'),
    document: /* GraphQL */ `mutation ReportChatMessage($panelId: ID!, $id: ID!, $reason: String!) { result: reportChatMessage(panelId: $panelId, id: $id, reason: $reason) { ${REPORT} } }`,
    variables: { panelId: 'path.panelId', id: 'path.id', reason: 'body.reason' },
    status: 201,
    response: ref('ChatReport'),
  },
  {
    operationId: 'warnChatAccount',
    method: 'post',
    path: '/chat/v1/warnings',
    summary: 'Warn an account: it cannot send in the site’s chats until it acknowledges the warning',
    tag: 'Chat',
    auth: ADMIN,
    body: reasonBody('why, as the account sees it: 1 to 500 characters once trimmed', { accountId: { type: 'string', minLength: 1, maxLength: 64 } }, [
      'accountId',
    ]),
    document: /* GraphQL */ `mutation WarnChatAccount($accountId: ID!, $reason: String!) { result: warnChatAccount(accountId: $accountId, reason: $reason) { ${WARNING} } }`,
    variables: { accountId: 'body.accountId', reason: 'body.reason' },
    status: 201,
    response: ref('ChatWarning'),
  },
  {
    operationId: 'acknowledgeChatWarning',
    method: 'post',
    path: '/chat/v1/warnings/ack',
    summary: 'Acknowledge the signed-in account’s open chat warnings: it may send again',
    tag: 'Chat',
    auth: SIGNED_IN,
    document: /* GraphQL */ `mutation AcknowledgeChatWarning { result: acknowledgeChatWarning { acknowledged } }`,
    envelope: 'success',
    notFoundWhen: 'the account has no open warning',
    response: ref('ChatWarningAcknowledgement'),
  },
  {
    operationId: 'getChatViewerState',
    method: 'get',
    path: '/chat/v1/{panelId}/me',
    summary: 'What the signed-in viewer may do in a chat room: its mode, whether it may send, an open warning',
    tag: 'Chat',
    auth: SIGNED_IN,
    params: [panelId],
    document: /* GraphQL */ `query ChatViewerState($panelId: ID!) { result: chatViewerState(panelId: $panelId) { mode moderator canSend refusal warning { ${WARNING} } delaySeconds } }`,
    variables: { panelId: 'path.panelId' },
    response: ref('ChatViewerState'),
  },
];
