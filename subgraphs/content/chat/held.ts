/**
 * The held queue: messages a room keeps from its viewers until a moderator decides (a hold word, a new
 * account) or until their delay is over (`delay_seconds`), and what moderators do with them. Only
 * moderators (C + D, or C + J with write on Panels) see the queue; the author gets the message back with
 * `held` (REST 202). Approving sends the message to the room, where it takes its seq; approve, deny and
 * delete each win once (a conditional update, delay.ts), and a second decision is CONFLICT.
 */
import { requireAdmin } from '../../../shared/auth/access';
import { CHAT_MESSAGE_VERSION, type ChatHeldView, type ChatModerationEventView } from '../../../shared/contracts/chatEvents';
import { conflict, notFound } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import { Scopes } from '../scopes';
import { decideHeld, publishHeld, type HeldOutcome, type HeldRow } from './delay';
import { toChatMessage, type ChatMessageModel } from './model';
import { chatReportsOf } from './reports';
import type { ChatRuntime } from './runtime';

const MAX_QUEUE = 500;

type StoredHeld = HeldRow & { reason: string; createdAt: Date; dueAt: Date | null };

const toHeld = (row: StoredHeld): ChatHeldView => ({
  id: row.id,
  panelId: row.panelId,
  text: row.text,
  accountId: row.accountId,
  reason: row.reason,
  created: row.createdAt.getTime(),
  dueAt: row.dueAt?.getTime() ?? null,
});

const event = (kind: ChatModerationEventView['kind'], extra: Partial<ChatModerationEventView>): ChatModerationEventView => ({
  kind,
  held: [],
  reports: [],
  id: null,
  decision: null,
  ...extra,
});

/** Tells the room's moderators on every instance (chatModeration). */
export function announceModeration(runtime: ChatRuntime, siteId: string, panelId: string, moderation: ChatModerationEventView): void {
  runtime.announce({ v: CHAT_MESSAGE_VERSION, kind: 'moderation', siteId, panelId, event: moderation });
}

/**
 * Keeps a checked message out of its room: held for review (`reason` a hold), or delayed by `delaySeconds`.
 * The author gets it back with seq 0, `held` and, when delayed, `dueAt`.
 */
export async function holdMessage(ctx: SubgraphContext, runtime: ChatRuntime, row: HeldRow, reason: string, delaySeconds: number): Promise<ChatMessageModel> {
  const now = new Date();
  const dueAt = reason === 'delay' ? new Date(now.getTime() + delaySeconds * 1000) : null;
  const stored = await ctx.db.chatHeld.create({ data: { ...row, reason, dueAt, createdAt: now } });
  if (dueAt) runtime.due.at(dueAt);
  announceModeration(runtime, row.siteId, row.panelId, event('HELD', { held: [toHeld(stored)] }));
  return { ...toChatMessage({ ...stored, seq: 0 }), held: reason !== 'delay', dueAt: dueAt?.getTime() ?? null };
}

const moderator = (ctx: SubgraphContext) => requireAdmin(ctx.identity, Scopes.panels, { write: true });

/** What waits in a room for its moderators: held and delayed messages, and reports, oldest first. */
export async function chatModerationQueue(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string }) {
  const siteId = moderator(ctx);
  await runtime.room(ctx.db, siteId, args.panelId);
  const rows = await ctx.db.chatHeld.findMany({ where: { siteId, panelId: args.panelId, status: 'pending' }, orderBy: { createdAt: 'asc' }, take: MAX_QUEUE });
  return { held: rows.map(toHeld), reports: await chatReportsOf(ctx, siteId, args.panelId, MAX_QUEUE) };
}

/** The room's pending message `id`: NOT_FOUND when the room has none such, CONFLICT when it was decided already. */
async function pendingOf(ctx: SubgraphContext, runtime: ChatRuntime, siteId: string, panelId: string, id: string) {
  await runtime.room(ctx.db, siteId, panelId);
  const row = await ctx.db.chatHeld.findFirst({ where: { id, siteId, panelId } });
  if (!row) throw notFound(`held chat message ${id}`);
  if (row.status !== 'pending') throw conflict(`held chat message ${id} was already ${row.status}`);
  return row;
}

function decided(runtime: ChatRuntime, siteId: string, panelId: string, id: string, decision: HeldOutcome): void {
  announceModeration(runtime, siteId, panelId, event('DECIDED', { id, decision }));
}

/** Sends a held (or delayed) message to the room now: it takes the room's next seq. */
export async function approveChatMessage(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string; id: string }): Promise<ChatMessageModel> {
  const siteId = moderator(ctx);
  const row = await pendingOf(ctx, runtime, siteId, args.panelId, args.id);
  const stored = await publishHeld(ctx.db, runtime.writer, row, 'approved');
  if (!stored) throw conflict(`held chat message ${args.id} was already decided`);
  decided(runtime, siteId, args.panelId, args.id, 'approved');
  return toChatMessage(stored);
}

/** Drops a held (or delayed) message: it never reaches the room. */
export async function denyChatMessage(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string; id: string }) {
  const siteId = moderator(ctx);
  await pendingOf(ctx, runtime, siteId, args.panelId, args.id);
  if (!(await decideHeld(ctx.db, args.id, 'denied'))) throw conflict(`held chat message ${args.id} was already decided`);
  decided(runtime, siteId, args.panelId, args.id, 'denied');
  return { success: true, id: args.id };
}

/** A moderator's delete of a message still waiting (within its delay): true when it was one. */
export async function deleteWaiting(ctx: SubgraphContext, runtime: ChatRuntime, siteId: string, panelId: string, id: string): Promise<boolean> {
  const row = await ctx.db.chatHeld.findFirst({ where: { id, siteId, panelId, status: 'pending' }, select: { id: true } });
  if (!row || !(await decideHeld(ctx.db, id, 'deleted'))) return false;
  decided(runtime, siteId, panelId, id, 'deleted');
  return true;
}
