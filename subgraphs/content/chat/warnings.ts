/**
 * Warnings (docs/design.md "Chat that moderators can run"): a moderator warns an account with a reason; until
 * the account acknowledges it (C + J), it cannot send in any of the site's chats, and the refusal names
 * the warning. Acknowledging is one conditional update of the account's open warnings.
 */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import type { Db } from '../../../shared/db/client';
import { appError, ErrorCode, notFound, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { SubgraphContext } from '../../../shared/subgraph';
import { Scopes } from '../scopes';
import { requireSiteAccount } from './moderation';
import { checkedReason } from './rules';

export interface ChatWarningModel {
  id: string;
  accountId: string;
  reason: string;
  created: number;
  acknowledged: number | null;
}

type WarningRow = { id: string; accountId: string; reason: string; createdAt: Date; acknowledgedAt: Date | null };

const toWarning = (row: WarningRow): ChatWarningModel => ({
  id: row.id,
  accountId: row.accountId,
  reason: row.reason,
  created: row.createdAt.getTime(),
  acknowledged: row.acknowledgedAt?.getTime() ?? null,
});

/** The account's oldest warning not yet acknowledged, or null. */
export async function openWarningOf(db: Db, siteId: string, accountId: string): Promise<ChatWarningModel | null> {
  const row = await db.chatWarning.findFirst({ where: { siteId, accountId, acknowledgedAt: null }, orderBy: { createdAt: 'asc' } });
  return row ? toWarning(row) : null;
}

/** FORBIDDEN (rule warned), naming the warning, while the account has one to acknowledge. */
export async function checkNotWarned(db: Db, siteId: string, accountId: string): Promise<void> {
  const warning = await openWarningOf(db, siteId, accountId);
  if (!warning) return;
  throw appError(ErrorCode.FORBIDDEN, `this account has a warning to acknowledge before it chats again: “${warning.reason}” (POST /chat/v1/warnings/ack)`, {
    rule: 'warned',
    warningId: warning.id,
  });
}

/** Warns an account of the site (moderators): it cannot chat until it acknowledges. */
export async function warnChatAccount(ctx: SubgraphContext, args: { accountId: string; reason: string }): Promise<ChatWarningModel> {
  const siteId = requireAdmin(ctx.identity, Scopes.panels, { write: true });
  const reason = checkedReason(args.reason);
  await requireSiteAccount(ctx, siteId, args.accountId);
  const row = await ctx.db.chatWarning.create({ data: { id: newId(), siteId, accountId: args.accountId, reason, createdAt: new Date() } });
  return toWarning(row);
}

function signedIn(ctx: SubgraphContext): { siteId: string; accountId: string } {
  const siteId = requireSite(ctx.identity);
  if (!ctx.identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in viewer is required');
  return { siteId, accountId: ctx.identity.account.id };
}

/** The signed-in account acknowledges its warnings; NOT_FOUND when it has none open. */
export async function acknowledgeChatWarning(ctx: SubgraphContext) {
  const { siteId, accountId } = signedIn(ctx);
  const { count } = await ctx.db.chatWarning.updateMany({ where: { siteId, accountId, acknowledgedAt: null }, data: { acknowledgedAt: new Date() } });
  if (count === 0) throw notFound('an open chat warning of this account');
  return { success: true, acknowledged: count };
}
