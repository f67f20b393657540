/**
 * Reports (docs/design.md "Chat that moderators can run"): a signed-in viewer reports a message of a room
 * with a reason, once per account and message — the unique key decides, so a second report is CONFLICT
 * and stores nothing — and the report lands in the room's moderation queue (held.ts, chatModeration).
 */
import { requireSite } from '../../../shared/auth/access';
import { CHAT_MESSAGE_VERSION, type ChatReportView } from '../../../shared/contracts/chatEvents';
import { conflict, notFound, unauthenticated } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { SubgraphContext } from '../../../shared/subgraph';
import type { ChatRuntime } from './runtime';
import { checkedReason } from './rules';

type ReportRow = { id: string; panelId: string; messageId: string; accountId: string; reason: string; createdAt: Date };

const toReport = (row: ReportRow, text: string | null): ChatReportView => ({
  id: row.id,
  panelId: row.panelId,
  messageId: row.messageId,
  text,
  accountId: row.accountId,
  reason: row.reason,
  created: row.createdAt.getTime(),
});

/** A room's latest reports (at most `limit`), oldest first, with the reported messages' texts (null once deleted). */
export async function chatReportsOf(ctx: SubgraphContext, siteId: string, panelId: string, limit: number): Promise<ChatReportView[]> {
  const rows = (await ctx.db.chatReport.findMany({ where: { siteId, panelId }, orderBy: { createdAt: 'desc' }, take: limit })).reverse();
  const ids = [...new Set(rows.map((row) => row.messageId))];
  const messages = await ctx.db.chatMessage.findMany({ where: { id: { in: ids }, deletedAt: null }, select: { id: true, text: true } });
  const texts = new Map(messages.map((message) => [message.id, message.text]));
  return rows.map((row) => toReport(row, texts.get(row.messageId) ?? null));
}

const isUniqueViolation = (error: unknown) => (error as { code?: unknown })?.code === 'P2002';

/** Reports a message of the room as the signed-in account (C + J). */
export async function reportChatMessage(
  ctx: SubgraphContext,
  runtime: ChatRuntime,
  args: { panelId: string; id: string; reason: string },
): Promise<ChatReportView> {
  const siteId = requireSite(ctx.identity);
  if (!ctx.identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in viewer is required to report');
  const accountId = ctx.identity.account.id;
  const reason = checkedReason(args.reason);
  await runtime.room(ctx.db, siteId, args.panelId);
  const message = await ctx.db.chatMessage.findFirst({ where: { id: args.id, siteId, panelId: args.panelId, deletedAt: null }, select: { text: true } });
  if (!message) throw notFound(`chat message ${args.id}`);
  let row: ReportRow;
  try {
    row = await ctx.db.chatReport.create({
      data: { id: newId(), siteId, panelId: args.panelId, messageId: args.id, accountId, reason, createdAt: new Date() },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`this account already reported chat message ${args.id}`);
    throw error;
  }
  const report = toReport(row, message.text);
  const event = { kind: 'REPORTED' as const, held: [], reports: [report], id: null, decision: null };
  runtime.announce({ v: CHAT_MESSAGE_VERSION, kind: 'moderation', siteId, panelId: args.panelId, event });
  return report;
}
