/**
 * Chat moderation (C + D, or C + J with write on Panels): deleting a message, banning or timing out an
 * account in all the site's chats (which clears its last 10 minutes of messages from every screen),
 * listing and lifting bans. Each change is announced on the bus so every instance's viewers see it.
 */
import { requireAdmin } from '../../../shared/auth/access';
import { serviceIdentity } from '../../../shared/auth/identity';
import { CHAT_CLEAR_WINDOW_MS, CHAT_MESSAGE_VERSION } from '../../../shared/contracts/chatEvents';
import type { Db } from '../../../shared/db/client';
import { appError, badInput, ErrorCode, notFound } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import { Scopes } from '../scopes';
import { deleteWaiting } from './held';
import { unpinDeletedMessage } from './pins';
import type { ChatRuntime } from './runtime';

/** The longest timeout: 14 days. */
export const MAX_TIMEOUT_SECONDS = 1_209_600;
const MAX_REASON = 500;
const MAX_BANS_LISTED = 1000;

export interface ChatBanModel {
  accountId: string;
  until: number | null;
  reason: string | null;
  created: number;
}

const toBan = (row: { accountId: string; until: Date | null; reason: string | null; createdAt: Date }): ChatBanModel => ({
  accountId: row.accountId,
  until: row.until?.getTime() ?? null,
  reason: row.reason,
  created: row.createdAt.getTime(),
});

/** FORBIDDEN, saying until when, while the account is banned or timed out on the site. */
export async function checkNotBanned(db: Db, siteId: string, accountId: string): Promise<void> {
  const ban = await db.chatBan.findUnique({ where: { siteId_accountId: { siteId, accountId } }, select: { until: true } });
  if (!ban || (ban.until !== null && ban.until.getTime() <= Date.now())) return;
  const message =
    ban.until === null ? 'this account is banned from this site’s chats' : `this account is timed out of this site’s chats until ${ban.until.toISOString()}`;
  throw appError(ErrorCode.FORBIDDEN, message, { rule: 'banned', ...(ban.until && { until: ban.until.getTime() }) });
}

const moderator = (ctx: SubgraphContext, write: boolean) => requireAdmin(ctx.identity, Scopes.panels, { write });

/** Removes a message from history and from every viewer's screen. */
export async function deleteChatMessage(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string; id: string }) {
  const siteId = moderator(ctx, true);
  await runtime.room(ctx.db, siteId, args.panelId);
  const { count } = await ctx.db.chatMessage.updateMany({
    where: { id: args.id, siteId, panelId: args.panelId, deletedAt: null },
    data: { deletedAt: new Date() },
  });
  // A message still in its delay (or held) is deleted before it reaches anyone.
  if (count === 0 && (await deleteWaiting(ctx, runtime, siteId, args.panelId, args.id))) return { success: true, id: args.id };
  if (count === 0) throw notFound(`chat message ${args.id}`);
  await unpinDeletedMessage(ctx.db, runtime, siteId, args.panelId, args.id);
  runtime.announce({ v: CHAT_MESSAGE_VERSION, kind: 'deleted', siteId, panelId: args.panelId, ids: [args.id] });
  return { success: true, id: args.id };
}

const ACCOUNT_OF_SITE = /* GraphQL */ `query ChatBanTarget($id: ID!) { account(id: $id) { id } }`;

/** NOT_FOUND unless the account is one of the site’s (the community subgraph owns accounts). */
export async function requireSiteAccount(ctx: SubgraphContext, siteId: string, accountId: string): Promise<void> {
  let account: { id: string } | null = null;
  try {
    account = (await ctx.supergraph.execute<{ account: { id: string } | null }>(ACCOUNT_OF_SITE, { id: accountId }, serviceIdentity(siteId))).account;
  } catch (error) {
    if ((error as { extensions?: { code?: unknown } }).extensions?.code !== ErrorCode.NOT_FOUND) throw error;
  }
  if (!account) throw notFound(`account ${accountId}`);
}

/** Bans (no duration) or times out an account in all the site's chats, and clears its last 10 minutes of messages. */
export async function banChatAccount(
  ctx: SubgraphContext,
  runtime: ChatRuntime,
  args: { accountId: string; durationSeconds?: number | null; reason?: string | null },
): Promise<ChatBanModel> {
  const siteId = moderator(ctx, true);
  const duration = args.durationSeconds ?? null;
  if (duration !== null && (!Number.isInteger(duration) || duration < 1 || duration > MAX_TIMEOUT_SECONDS)) {
    throw badInput(`durationSeconds must be an integer from 1 to ${MAX_TIMEOUT_SECONDS} (absent: a ban without end)`, 'durationSeconds');
  }
  const reason = args.reason?.trim() || null;
  if (reason !== null && [...reason].length > MAX_REASON) throw badInput(`reason must be at most ${MAX_REASON} characters`, 'reason');
  await requireSiteAccount(ctx, siteId, args.accountId);
  const now = Date.now();
  const until = duration === null ? null : new Date(now + duration * 1000);
  const since = now - CHAT_CLEAR_WINDOW_MS;
  const row = await ctx.db.$transaction(async (tx) => {
    const ban = await tx.chatBan.upsert({
      where: { siteId_accountId: { siteId, accountId: args.accountId } },
      create: { siteId, accountId: args.accountId, until, reason, createdAt: new Date(now) },
      update: { until, reason, createdAt: new Date(now) },
    });
    await tx.chatMessage.updateMany({
      where: { siteId, accountId: args.accountId, createdAt: { gte: new Date(since) }, deletedAt: null },
      data: { deletedAt: new Date(now) },
    });
    // Its messages still held or in their delay never reach the room either.
    await tx.chatHeld.updateMany({ where: { siteId, accountId: args.accountId, status: 'pending' }, data: { status: 'deleted', decidedAt: new Date(now) } });
    return ban;
  });
  runtime.announce({ v: CHAT_MESSAGE_VERSION, kind: 'cleared', siteId, accountId: args.accountId, since });
  return toBan(row);
}

/** The site's bans and timeouts in force, newest first. */
export async function chatBans(ctx: SubgraphContext): Promise<ChatBanModel[]> {
  const siteId = moderator(ctx, false);
  const rows = await ctx.db.chatBan.findMany({
    where: { siteId, OR: [{ until: null }, { until: { gt: new Date() } }] },
    orderBy: { createdAt: 'desc' },
    take: MAX_BANS_LISTED,
  });
  return rows.map(toBan);
}

/** Lifts an account's ban or timeout; NOT_FOUND when it has none. */
export async function unbanChatAccount(ctx: SubgraphContext, args: { accountId: string }) {
  const siteId = moderator(ctx, true);
  const { count } = await ctx.db.chatBan.deleteMany({ where: { siteId, accountId: args.accountId } });
  if (count === 0) throw notFound(`chat ban of account ${args.accountId}`);
  return { success: true, accountId: args.accountId };
}
