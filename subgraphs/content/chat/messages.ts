/**
 * Chat messages: sending (every rule checked before anything is stored, the message durable before
 * the answer), history, a room's state for the live server, and a recording's replay. Reads never
 * return a deleted message or one past the retention, and never another site's.
 */
import type { GraphQLError } from 'graphql';
import { requireSite } from '../../../shared/auth/access';
import { CHAT_FIRST_EVENT_MESSAGES } from '../../../shared/contracts/chatEvents';
import { appError, badInput, ErrorCode, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { recordChatMessage, type ChatRefusal } from '../../../shared/metrics';
import { liveBroadcastOf, type RecordingRequest } from '../../../shared/contracts/recordings';
import type { SubgraphContext } from '../../../shared/subgraph';
import { streamSecondAt } from '../../../shared/contracts/viewerProtocol';
import { holdMessage } from './held';
import { checkChatMode, holdReasonOf, isChatAdmin } from './modes';
import { checkNotBanned } from './moderation';
import { chatPinOf } from './pins';
import { replyTarget } from './replies';
import { checkedText, filteredWordIn, hasLink } from './rules';
import { toChatMessage, type ChatMessageModel } from './model';
import type { ChatRuntime } from './runtime';
import { checkNotWarned } from './warnings';

const MAX_PAGE = 200;
const MAX_ROOM_READ = 500;
const MAX_REPLAY = 5000;

export { toChatMessage, type ChatMessageModel } from './model';

export { isChatAdmin } from './modes';

const refused = (rule: ChatRefusal, message: string) => appError(ErrorCode.BAD_USER_INPUT, message, { field: 'text', rule });

/** Why a send was refused, for the metrics: the rule, or the error's code. */
function refusalOf(error: unknown): ChatRefusal {
  const extensions = (error as GraphQLError | null)?.extensions ?? {};
  if (typeof extensions.rule === 'string') return extensions.rule as ChatRefusal;
  switch (extensions.code) {
    case ErrorCode.BAD_USER_INPUT:
      return 'text';
    case ErrorCode.NOT_FOUND:
      return 'not_found';
    case ErrorCode.UNAUTHENTICATED:
      return 'unauthenticated';
    default:
      return 'error';
  }
}

/** Sends a message as the caller's account: checks every rule, stores it (durable before it returns). */
export async function sendChatMessage(ctx: SubgraphContext, runtime: ChatRuntime, input: SendInput): Promise<ChatMessageModel> {
  try {
    const message = await send(ctx, runtime, input);
    recordChatMessage(null);
    return message;
  } catch (error) {
    recordChatMessage(refusalOf(error));
    throw error;
  }
}

type SendInput = { panelId: string; text: string; replyTo?: string | null };

async function send(ctx: SubgraphContext, runtime: ChatRuntime, input: SendInput): Promise<ChatMessageModel> {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in viewer is required to chat');
  const accountId = identity.account.id;
  const text = checkedText(input.text);
  const room = await runtime.room(db, siteId, input.panelId);
  await checkNotBanned(db, siteId, accountId);
  await checkNotWarned(db, siteId, accountId);
  const admin = isChatAdmin(identity);
  if (!admin) {
    await checkChatMode(ctx, siteId, room, accountId);
    const word = filteredWordIn(text, room.filters);
    if (word !== null) throw refused('filtered_word', `text holds a word this chat filters ("${word}")`);
    if (!room.system.allowLinks && hasLink(text)) throw refused('link', 'text holds a link, and this chat allows links from admins only');
  }
  // Held (a moderator decides) or delayed (viewers see it later): moderators' messages never wait.
  const reply = await replyTarget(db, siteId, input.panelId, input.replyTo);
  const hold = admin ? null : await holdReasonOf(ctx, siteId, room.moderation, accountId, text);
  await runtime.countSiteMessage(siteId, accountId);
  if (!admin) await runtime.countSlowMode(input.panelId, accountId, room.system.slowModeSeconds);
  const recording = await runtime.roomRecording(ctx, siteId, room);
  const now = new Date();
  const row = {
    id: newId(),
    siteId,
    panelId: input.panelId,
    accountId,
    admin,
    text,
    liveBroadcastId: recording?.liveBroadcastId ?? null,
    streamSecond: recording ? streamSecondAt(recording, now.getTime()) : null,
    replyToId: reply?.replyToId ?? null,
    replyAccountId: reply?.replyAccountId ?? null,
    replyExcerpt: reply?.replyExcerpt ?? null,
  };
  const delay = admin ? 0 : room.moderation.delaySeconds;
  if (hold !== null || delay > 0) return holdMessage(ctx, runtime, row, hold ?? 'delay', delay);
  return toChatMessage(await runtime.writer.write({ ...row, createdAt: now }));
}

/** The retention's cutoff moves by whole minutes (see `visible`). */
const CUTOFF_STEP_MS = 60_000;

/**
 * Messages still shown: not deleted, inside the retention. The cutoff is rounded up to the minute: a
 * retention of days loses nothing visible by it, and the statement stays the same for a minute, so its
 * query plan is reused (shared/db/planCache.ts) instead of compiled again for every read of a room.
 */
function visible(ctx: SubgraphContext, siteId: string, panelId: string) {
  const cutoff = new Date(Math.ceil((Date.now() - ctx.config.chatRetentionDays * 86_400_000) / CUTOFF_STEP_MS) * CUTOFF_STEP_MS);
  return { siteId, panelId, deletedAt: null, createdAt: { gte: cutoff } };
}

function pageLimit(limit: number | null | undefined, fallback: number, max: number): number {
  const value = limit ?? fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw badInput(`limit must be an integer from 1 to ${max}`, 'limit');
  return value;
}

function seqArgument(value: number | null | undefined, name: string): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 0) throw badInput(`${name} must be a non-negative integer (a message's seq)`, name);
  return value;
}

const MESSAGE_SELECT = {
  ...{ id: true, seq: true, panelId: true, text: true, accountId: true, admin: true, createdAt: true, streamSecond: true },
  ...{ replyToId: true, replyAccountId: true, replyExcerpt: true },
} as const;

/** A page of history, oldest first within the page; `before` (a seq) pages back. */
export async function chatHistory(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string; limit?: number | null; before?: number | null }) {
  const siteId = requireSite(ctx.identity);
  const limit = pageLimit(args.limit, 50, MAX_PAGE);
  const before = seqArgument(args.before, 'before');
  await runtime.room(ctx.db, siteId, args.panelId);
  const rows = await ctx.db.chatMessage.findMany({
    where: { ...visible(ctx, siteId, args.panelId), ...(before !== null && { seq: { lt: before } }) },
    orderBy: { seq: 'desc' },
    take: limit + 1,
    select: MESSAGE_SELECT,
  });
  const hasMore = rows.length > limit;
  const results = rows.slice(0, limit).reverse().map(toChatMessage);
  return { results, pagination: { limit, before, nextBefore: hasMore && results.length > 0 ? results[0].seq : null } };
}

/**
 * The room as the live server reads it: its system block and the messages after `afterSeq` (oldest
 * first, at most `limit`), or its latest `limit` messages when afterSeq is null.
 */
export async function chatRoomState(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string; afterSeq?: number | null; limit?: number | null }) {
  const siteId = requireSite(ctx.identity);
  const afterSeq = seqArgument(args.afterSeq, 'afterSeq');
  const limit = pageLimit(args.limit, CHAT_FIRST_EVENT_MESSAGES, MAX_ROOM_READ);
  const room = await runtime.room(ctx.db, siteId, args.panelId);
  const where = visible(ctx, siteId, args.panelId);
  const rows =
    afterSeq === null
      ? (await ctx.db.chatMessage.findMany({ where, orderBy: { seq: 'desc' }, take: limit, select: MESSAGE_SELECT })).reverse()
      : await ctx.db.chatMessage.findMany({ where: { ...where, seq: { gt: afterSeq } }, orderBy: { seq: 'asc' }, take: limit, select: MESSAGE_SELECT });
  return { system: { ...room.system, pinned: await chatPinOf(ctx.db, siteId, args.panelId) }, messages: rows.map(toChatMessage) };
}

/** A recording's chat in stream order, between two seconds of it. */
export async function chatReplay(
  ctx: SubgraphContext,
  runtime: ChatRuntime,
  args: RecordingRequest & { panelId: string; fromSecond?: number | null; toSecond?: number | null },
) {
  const siteId = requireSite(ctx.identity);
  const from = seqArgument(args.fromSecond, 'fromSecond') ?? 0;
  const to = seqArgument(args.toSecond, 'toSecond');
  if (to !== null && to < from) throw badInput('toSecond must not be before fromSecond', 'toSecond');
  await runtime.room(ctx.db, siteId, args.panelId);
  const liveBroadcastId = await liveBroadcastOf(ctx, siteId, args);
  const rows = await ctx.db.chatMessage.findMany({
    where: { ...visible(ctx, siteId, args.panelId), liveBroadcastId, streamSecond: { gte: from, ...(to !== null && { lte: to }) } },
    orderBy: [{ streamSecond: 'asc' }, { seq: 'asc' }],
    take: MAX_REPLAY,
    select: MESSAGE_SELECT,
  });
  return rows.map(toChatMessage);
}
