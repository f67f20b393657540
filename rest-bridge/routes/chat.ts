/**
 * Live chat of the chat panels (seed 001's chat and live-stream chat; the paths are ours: docs/design.md "Live
 * chat"): viewers send with their JWT and read with the site ID alone; moderators (admins of Panels)
 * delete messages and ban or time out accounts. Answered by the content subgraph.
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SIGNED_IN, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableStr, obj, str, strictBody } from './shared';

const MESSAGE = /* GraphQL */ `id seq panelId text author { accountId name admin } created streamSecond replyTo { id name excerpt }`;
const PIN = /* GraphQL */ `messageId text author { accountId name admin } pinnedAt`;
const BAN = /* GraphQL */ `accountId until reason created`;
const integer: JsonSchema = { type: 'integer' };
const seqParam = (name: string, description: string) => ({
  name,
  in: 'query' as const,
  schema: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
  description,
});

export const chatSchemas: Record<string, JsonSchema> = {
  ChatMessage: obj(
    {
      id: str,
      seq: { type: 'integer', description: 'the room’s one order: 1, 2, 3, … (a deleted message leaves a gap)' },
      panelId: str,
      text: { type: 'string', description: 'plain text: show it as text, never as HTML' },
      author: obj({ accountId: str, name: { ...nullableStr, description: 'null when the account no longer exists' }, admin: { type: 'boolean' } }),
      created: epochMs,
      streamSecond: { type: ['integer', 'null'], description: 'whole seconds into the recording of the room’s channel; null when it was not recording' },
      // Chat moderation: only in a send's or an approval's answer.
      held: { type: 'boolean', description: 'a send’s answer (202): held for a moderator; seq is 0 until approved' },
      dueAt: { type: ['number', 'null'], description: 'a send’s answer (202): a delayed message reaches viewers at this Unix ms; seq is 0 until then' },
      replyTo: {
        ...obj({
          id: str,
          name: { ...nullableStr, description: 'its author’s name' },
          excerpt: { type: 'string', description: 'its first 80 characters (… when cut), as when the reply was sent' },
        }),
        type: ['object', 'null'],
        description: 'the message this one answers; null when none',
      },
    },
    ['id', 'seq', 'panelId', 'text', 'author', 'created', 'streamSecond', 'replyTo'],
  ),
  ChatPin: obj({
    messageId: { ...nullableStr, description: 'the pinned message; null for an announcement' },
    text: str,
    author: { ...obj({ accountId: str, name: nullableStr, admin: { type: 'boolean' } }), type: ['object', 'null'], description: 'null for an announcement' },
    pinnedAt: epochMs,
  }),
  ChatUnpinned: obj({ success: { type: 'boolean', enum: [true] }, panelId: str }),
  ChatReactionReceipt: obj({ success: { type: 'boolean', enum: [true] }, emoji: str }),
  ChatHistory: obj({
    results: arrayOf(ref('ChatMessage')),
    pagination: obj({
      limit: integer,
      before: { type: ['integer', 'null'] },
      nextBefore: { type: ['integer', 'null'], description: 'give as before for older messages; null when none' },
    }),
  }),
  ChatBan: obj({
    accountId: str,
    until: { type: ['number', 'null'], description: 'Unix ms when a timeout ends; null for a ban' },
    reason: nullableStr,
    created: epochMs,
  }),
  ChatMessageDeleted: obj({ success: { type: 'boolean', enum: [true] }, id: str }),
  ChatUnbanned: obj({ success: { type: 'boolean', enum: [true] }, accountId: str }),
};

const panelId = id('panelId', 'chat panel ID');

export const chatRoutes: RouteSpec[] = [
  {
    operationId: 'sendChatMessage',
    method: 'post',
    path: '/chat/v1/{panelId}/messages',
    summary: 'Send a chat message as the signed-in viewer: plain text, checked against the room’s rules, stored before the answer',
    tag: 'Chat',
    auth: SIGNED_IN,
    rateLimited: true,
    params: [panelId],
    body: strictBody(['text'], {
      text: { type: 'string', maxLength: 4000, description: 'plain text, 1 to 500 characters once trimmed, no control characters' },
      replyTo: { type: 'string', minLength: 1, maxLength: 64, description: 'the ID of the message of this chat this one answers' },
    }),
    document: /* GraphQL */ `mutation SendChatMessage($panelId: ID!, $text: String!, $replyTo: ID) { result: sendChatMessage(panelId: $panelId, text: $text, replyTo: $replyTo) { ${MESSAGE} held dueAt } }`,
    variables: { panelId: 'path.panelId', text: 'body.text', replyTo: 'body.replyTo' },
    status: 201,
    // Held for a moderator or delayed (chat moderation): 202, and the message has seq 0 until it reaches the room.
    acceptedWhen: ['held', 'dueAt'],
    response: ref('ChatMessage'),
  },
  {
    operationId: 'getChatMessages',
    method: 'get',
    path: '/chat/v1/{panelId}/messages',
    summary: 'A page of a chat room’s history, oldest first within the page (the site ID alone is enough)',
    tag: 'Chat',
    auth: SITE_ID,
    params: [
      panelId,
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, description: 'at most this many messages' },
      seqParam('before', 'only messages before this seq (paging back)'),
    ],
    document: /* GraphQL */ `query ChatMessages($panelId: ID!, $limit: Int, $before: Int) { result: chatMessages(panelId: $panelId, limit: $limit, before: $before) { results { ${MESSAGE} } pagination { limit before nextBefore } } }`,
    variables: { panelId: 'path.panelId', limit: 'query.limit', before: 'query.before' },
    response: ref('ChatHistory'),
  },
  {
    operationId: 'getChatReplay',
    method: 'get',
    path: '/chat/v1/{panelId}/replay',
    summary: 'The chat of a recording in stream order (live-stream chat), for playing a recorded show back with its chat',
    tag: 'Chat',
    auth: SITE_ID,
    anyOrigin: true,
    params: [
      panelId,
      { name: 'liveBroadcastId', in: 'query', schema: { type: 'string', maxLength: 64 }, description: 'the recording’s live broadcast (or give videoId)' },
      { name: 'videoId', in: 'query', schema: { type: 'string', maxLength: 64 }, description: 'the Video the recording became' },
      seqParam('fromSecond', 'from this second of the recording (default 0)'),
      seqParam('toSecond', 'up to this second (default: the end)'),
    ],
    document: /* GraphQL */ `query ChatReplay($panelId: ID!, $liveBroadcastId: ID, $videoId: ID, $fromSecond: Int, $toSecond: Int) {
      result: chatReplay(panelId: $panelId, liveBroadcastId: $liveBroadcastId, videoId: $videoId, fromSecond: $fromSecond, toSecond: $toSecond) { ${MESSAGE} } }`,
    variables: {
      panelId: 'path.panelId',
      liveBroadcastId: 'query.liveBroadcastId',
      videoId: 'query.videoId',
      fromSecond: 'query.fromSecond',
      toSecond: 'query.toSecond',
    },
    response: arrayOf(ref('ChatMessage')),
  },
  {
    operationId: 'deleteChatMessage',
    method: 'delete',
    path: '/chat/v1/{panelId}/messages/{id}',
    summary: 'Delete a chat message: it leaves history and every viewer’s screen',
    tag: 'Chat',
    auth: ADMIN,
    params: [panelId, id('id', 'message ID')],
    document: /* GraphQL */ `mutation DeleteChatMessage($panelId: ID!, $id: ID!) { result: deleteChatMessage(panelId: $panelId, id: $id) { id } }`,
    variables: { panelId: 'path.panelId', id: 'path.id' },
    envelope: 'success',
    response: ref('ChatMessageDeleted'),
  },
  {
    operationId: 'pinChatMessage',
    method: 'post',
    path: '/chat/v1/{panelId}/pin',
    summary: 'Pin one of the room’s messages, or an announcement, in place of its pin (one per room); viewers get a PINNED event',
    tag: 'Chat',
    auth: ADMIN,
    params: [panelId],
    body: strictBody([], {
      messageId: { type: 'string', minLength: 1, maxLength: 64, description: 'a message of this chat (or give text)' },
      text: { type: 'string', maxLength: 4000, description: 'an announcement: plain text, 1 to 500 characters once trimmed' },
    }),
    document: /* GraphQL */ `mutation PinChatMessage($panelId: ID!, $messageId: ID, $text: String) { result: pinChatMessage(panelId: $panelId, messageId: $messageId, text: $text) { ${PIN} } }`,
    variables: { panelId: 'path.panelId', messageId: 'body.messageId', text: 'body.text' },
    response: ref('ChatPin'),
  },
  {
    operationId: 'unpinChatMessage',
    method: 'delete',
    path: '/chat/v1/{panelId}/pin',
    summary: 'Remove the room’s pin; viewers get an UNPINNED event',
    tag: 'Chat',
    auth: ADMIN,
    params: [panelId],
    document: /* GraphQL */ `mutation UnpinChatMessage($panelId: ID!) { result: unpinChatMessage(panelId: $panelId) { panelId } }`,
    variables: { panelId: 'path.panelId' },
    envelope: 'success',
    response: ref('ChatUnpinned'),
  },
  {
    operationId: 'sendChatReaction',
    method: 'post',
    path: '/chat/v1/{panelId}/reactions',
    summary: 'React to the room with one of its emoji: counted, never stored, sent to viewers as counts at most once a second',
    tag: 'Chat',
    auth: SIGNED_IN,
    rateLimited: true,
    params: [panelId],
    body: strictBody(['emoji'], { emoji: { type: 'string', maxLength: 64, description: 'one of the room’s reactions (system.reactions)' } }),
    document: /* GraphQL */ `mutation SendChatReaction($panelId: ID!, $emoji: String!) { result: sendChatReaction(panelId: $panelId, emoji: $emoji) { emoji } }`,
    variables: { panelId: 'path.panelId', emoji: 'body.emoji' },
    envelope: 'success',
    response: ref('ChatReactionReceipt'),
  },
  {
    operationId: 'banChatAccount',
    method: 'post',
    path: '/chat/v1/bans',
    summary:
      'Ban (no duration: from the chats and from playback) or time out (the chats only) an account in all the site’s chats; its messages of the last 10 minutes leave every screen',
    tag: 'Chat',
    auth: ADMIN,
    body: strictBody(['accountId'], {
      accountId: { type: 'string', minLength: 1, maxLength: 64 },
      durationSeconds: { type: 'integer', minimum: 1, maximum: 1_209_600, description: 'a timeout; absent: a ban without end' },
      reason: { type: 'string', maxLength: 500 },
    }),
    document: /* GraphQL */ `mutation BanChatAccount($accountId: ID!, $durationSeconds: Int, $reason: String) { result: banChatAccount(accountId: $accountId, durationSeconds: $durationSeconds, reason: $reason) { ${BAN} } }`,
    variables: { accountId: 'body.accountId', durationSeconds: 'body.durationSeconds', reason: 'body.reason' },
    status: 201,
    response: ref('ChatBan'),
  },
  {
    operationId: 'listChatBans',
    method: 'get',
    path: '/chat/v1/bans',
    summary: 'The site’s chat bans and timeouts in force, newest first',
    tag: 'Chat',
    auth: ADMIN,
    document: /* GraphQL */ `query ChatBans { result: chatBans { ${BAN} } }`,
    envelope: 'results',
    response: obj({ success: { type: 'boolean', enum: [true] }, results: arrayOf(ref('ChatBan')) }),
  },
  {
    operationId: 'unbanChatAccount',
    method: 'delete',
    path: '/chat/v1/bans/{accountId}',
    summary: 'Lift an account’s chat ban or timeout',
    tag: 'Chat',
    auth: ADMIN,
    params: [id('accountId', 'account ID')],
    document: /* GraphQL */ `mutation UnbanChatAccount($accountId: ID!) { result: unbanChatAccount(accountId: $accountId) { accountId } }`,
    variables: { accountId: 'path.accountId' },
    envelope: 'success',
    response: ref('ChatUnbanned'),
  },
];
