/**
 * Who may send in a room and which messages wait before they reach it (docs/design.md "Chat that moderators
 * can run"): the renderer's `chat_mode` (open | entitled | admins), `hold_words`,
 * `hold_new_accounts_seconds` and `delay_seconds`. Accounts belong to the community subgraph, so what a
 * mode or a hold needs of one (its age, its subscriptions) is asked through the supergraph, and only when
 * the room's settings need it.
 */
import { hasAdminAccess, requireSite } from '../../../shared/auth/access';
import { serviceIdentity } from '../../../shared/auth/identity';
import type { Db } from '../../../shared/db/client';
import { appError, ErrorCode, unauthenticated } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import { readGate } from '../pages';
import { Scopes } from '../scopes';
import type { ChatModeration } from './moderationSchema';
import { filteredWordIn, type ChatSettings } from './rules';
import type { ChatRuntime } from './runtime';
import { openWarningOf } from './warnings';

/** Moderators of chat (write on Panels) are its admins: exempt from filtered words, links, slow mode, modes and holds. */
export const isChatAdmin = (identity: SubgraphContext['identity']) => hasAdminAccess(identity, Scopes.panels, { write: true });

const SENDER = /* GraphQL */ `query ChatSender($id: ID!) { account(id: $id) { id created subscriptions { status entitlement { sku } } } }`;
type Sender = { id: string; created: number; subscriptions: { status: string; entitlement: { sku: string } }[] };

/** Asked once per request: a send in a room that is both entitled and holds new accounts needs the account twice. */
const asked = new WeakMap<SubgraphContext, Map<string, Promise<Sender | null>>>();

function senderOf(ctx: SubgraphContext, siteId: string, accountId: string): Promise<Sender | null> {
  let senders = asked.get(ctx);
  if (!senders) asked.set(ctx, (senders = new Map<string, Promise<Sender | null>>()));
  let sender = senders.get(accountId);
  if (!sender) senders.set(accountId, (sender = askSender(ctx, siteId, accountId)));
  return sender;
}

async function askSender(ctx: SubgraphContext, siteId: string, accountId: string): Promise<Sender | null> {
  try {
    return (await ctx.supergraph.execute<{ account: Sender | null }>(SENDER, { id: accountId }, serviceIdentity(siteId))).account;
  } catch (error) {
    if ((error as { extensions?: { code?: unknown } }).extensions?.code === ErrorCode.NOT_FOUND) return null;
    throw error;
  }
}

/** The SKUs the room's channels' gates ask for (empty: no channel of the room is behind an entitlement gate). */
async function gateSkus(db: Db, siteId: string, channelIds: string[]): Promise<string[]> {
  if (channelIds.length === 0) return [];
  const pages = await db.page.findMany({ where: { siteId, id: { in: channelIds } }, select: { document: true } });
  return pages.flatMap((page) => readGate(page.document).requiredSkus);
}

/** Whether the room's mode lets a non-admin account send; the reason it does not, for the refusal and the page. */
export async function modeRefusal(
  ctx: SubgraphContext,
  siteId: string,
  room: ChatSettings & { moderation: ChatModeration },
  accountId: string,
): Promise<'admins' | 'entitled' | null> {
  const { mode } = room.moderation;
  if (mode === 'admins') return 'admins';
  if (mode === 'open') return null;
  const skus = await gateSkus(ctx.db, siteId, room.channelIds);
  // A room whose channels have no entitlement gate lets in every signed-in account.
  if (skus.length === 0) return null;
  const sender = await senderOf(ctx, siteId, accountId);
  const held = sender?.subscriptions.some((subscription) => subscription.status === 'active' && skus.includes(subscription.entitlement.sku)) ?? false;
  return held ? null : 'entitled';
}

export const MODE_REFUSALS = {
  admins: 'this chat is in announcements-only mode (chat_mode admins): only moderators send',
  entitled: 'this chat is subscribers only (chat_mode entitled): the channel’s subscribers send',
} as const;

/** FORBIDDEN (rule chat_mode) when the room's mode keeps the account out. */
export async function checkChatMode(
  ctx: SubgraphContext,
  siteId: string,
  room: ChatSettings & { moderation: ChatModeration },
  accountId: string,
): Promise<void> {
  const refusal = await modeRefusal(ctx, siteId, room, accountId);
  if (refusal) throw appError(ErrorCode.FORBIDDEN, MODE_REFUSALS[refusal], { rule: 'chat_mode', mode: refusal });
}

export type HoldReason = 'hold_word' | 'new_account';

/** Why a non-admin's message waits for a moderator (a hold word, a new account), or null. */
export async function holdReasonOf(
  ctx: SubgraphContext,
  siteId: string,
  moderation: ChatModeration,
  accountId: string,
  text: string,
): Promise<HoldReason | null> {
  if (filteredWordIn(text, moderation.holdFilters) !== null) return 'hold_word';
  if (moderation.holdNewAccountsSeconds > 0) {
    const sender = await senderOf(ctx, siteId, accountId);
    if (!sender || Date.now() - sender.created < moderation.holdNewAccountsSeconds * 1000) return 'new_account';
  }
  return null;
}

/** What the signed-in viewer may do in the room (the chat page shows it in place of the send box). */
export async function chatViewerState(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string }) {
  const siteId = requireSite(ctx.identity);
  if (!ctx.identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in viewer is required');
  const accountId = ctx.identity.account.id;
  const room = await runtime.room(ctx.db, siteId, args.panelId);
  const moderator = isChatAdmin(ctx.identity);
  const refusal = moderator ? null : await modeRefusal(ctx, siteId, room, accountId);
  const warning = await openWarningOf(ctx.db, siteId, accountId);
  return { mode: room.moderation.mode, moderator, canSend: refusal === null && warning === null, refusal, warning, delaySeconds: room.moderation.delaySeconds };
}
