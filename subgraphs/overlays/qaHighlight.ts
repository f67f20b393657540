/**
 * A Q&A room's highlighted question over the video (docs/api.md "Questions the audience votes up"): the
 * content subgraph, which owns the room, asks for it with `showQaHighlight` when a moderator highlights a
 * question, and again (without a question) when the highlighted one is dismissed. Each room has one overlay
 * of its own (a template whose ID names the room); its live broadcasts come down before the new one goes
 * up, so viewers see one highlight per room. Delivered as held: the highlight is stored already, so a Redis
 * blip delays it rather than losing it.
 */
import type { Overlay } from '../../shared/db/generated/sqlite';
import { clearEventOf, type OverlayBroadcastEvent } from '../../shared/contracts/liveEvents';
import { Topics } from '../../shared/bus';
import type { SubgraphContext } from '../../shared/subgraph';
import { showOverlay } from './broadcasts';

/** A highlight stays up until the next one (or the question's dismissal) takes it down: the longest duration. */
const HIGHLIGHT_SECONDS = 86_400;
const TEMPLATE = {
  html: '<div class="sg-qa-highlight" data-qa-question-id="{questionId}"><p class="sg-qa-highlight-text">{question}</p><p class="sg-qa-highlight-author">{askedBy}</p></div>',
};

export interface QaHighlight {
  questionId: string;
  text: string;
  askedBy?: string | null;
}

const overlayIdOf = (panelId: string) => `qa-highlight-${panelId}`;

async function roomOverlay(ctx: SubgraphContext, siteId: string, panelId: string): Promise<Overlay> {
  const id = overlayIdOf(panelId);
  const now = new Date();
  return ctx.db.overlay.upsert({
    where: { id },
    update: {},
    create: {
      id,
      siteId,
      name: 'Q&A highlight',
      description: `The highlighted question of Q&A panel ${panelId}`,
      type: 'template',
      contents: TEMPLATE,
      duration: HIGHLIGHT_SECONDS,
      createdAt: now,
      updatedAt: now,
    },
  });
}

/** Takes the room's live highlight down and, given a question, shows it on each of the room's channels (none: site-wide). */
export async function showQaHighlight(
  ctx: SubgraphContext,
  siteId: string,
  panelId: string,
  channelIds: readonly string[],
  question: QaHighlight | null,
): Promise<OverlayBroadcastEvent[]> {
  const overlayId = overlayIdOf(panelId);
  const now = new Date();
  const live = await ctx.db.overlayBroadcast.findMany({ where: { siteId, overlayId, clearedAt: null, expiresAt: { gt: now } } });
  if (live.length > 0) {
    await ctx.db.overlayBroadcast.updateMany({ where: { id: { in: live.map((row) => row.id) } }, data: { clearedAt: now } });
    for (const row of live) {
      const event = clearEventOf(row.event as unknown as OverlayBroadcastEvent);
      ctx.bus.announce(Topics.overlayBroadcasts, `${event.broadcastId}:clear`, 'every', { siteId, event });
    }
  }
  if (!question) return [];
  const overlay = await roomOverlay(ctx, siteId, panelId);
  const variables = { questionId: question.questionId, question: question.text, askedBy: question.askedBy ?? 'Anonymous' };
  const targets = channelIds.length > 0 ? [...new Set(channelIds)] : [null];
  return Promise.all(
    targets.map((channelId) => showOverlay(ctx, siteId, overlay, { duration: HIGHLIGHT_SECONDS, channelId, tagId: null, tags: [], variables }, 'held')),
  );
}
