/**
 * Reactions (C + J): one of the room's emoji (renderer.reactions, default 8), rate limited per account,
 * counted in this instance's memory and published once a second with every other reaction to the room
 * (shared/chatReactions.ts). Nothing is stored: a reaction is a moment's applause, not history.
 */
import { requireSite } from '../../../shared/auth/access';
import { badInput, unauthenticated } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import type { ChatRuntime } from './runtime';

/** Counts one reaction of the signed-in viewer to the room. */
export async function sendChatReaction(ctx: SubgraphContext, runtime: ChatRuntime, args: { panelId: string; emoji: string }) {
  const { identity, db } = ctx;
  const siteId = requireSite(identity);
  if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> of a signed-in viewer is required to react');
  const room = await runtime.room(db, siteId, args.panelId);
  const emoji = typeof args.emoji === 'string' ? args.emoji.trim() : '';
  if (!room.system.reactions.includes(emoji)) throw badInput(`emoji must be one of this chat's reactions: ${room.system.reactions.join(' ')}`, 'emoji');
  await runtime.countReaction(siteId, identity.account.id);
  runtime.reactions.add(siteId, args.panelId, emoji);
  return { success: true, emoji };
}
