/**
 * A ban without end (chat moderation's `banChatAccount` with no duration) shuts the account out of the
 * site: its chats and its playback. The content check refuses it, and no listing gives it a URL, so a URL
 * it already holds stops playing when its token expires (docs/design.md "Paid video stays paid"). A timeout
 * is the chats' alone. The banned accounts of a site are one kept read (the viewer-read cache, dropped when
 * the site's content changes, as a ban is), so a go-live's checks weigh them with a set lookup each.
 */
import type { Db } from '../../shared/db/client';
import { viewerRead, type WithViewerReads } from './viewerReads';

export const BANNED_ERROR = { type: 'banned', message: 'this account is banned from this site' } as const;

/** Whether the account is banned from the site without end. */
export async function bannedFromSite(ctx: WithViewerReads & { db: Db }, siteId: string, accountId: string): Promise<boolean> {
  const banned = await viewerRead(ctx, siteId, 'banned-accounts', async () => {
    const rows = await ctx.db.chatBan.findMany({ where: { siteId, until: null }, select: { accountId: true } });
    return new Set(rows.map((row) => row.accountId));
  });
  return banned.has(accountId);
}
