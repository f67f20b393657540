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
import { badInput } from '../../shared/errors';
import { showOverlay } from './broadcasts';
import { checkChannelOfSite } from './channels';

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

/** The room's overlay: its ID names the site and the room, so no site ever reaches another's. */
const overlayIdOf = (siteId: string, panelId: string) => `qa-highlight-${siteId}-${panelId}`;
/** A room is on a handful of channels at most (the content subgraph sends at most 10). */
const MAX_CHANNELS = 10;

async function roomOverlay(ctx: SubgraphContext, siteId: string, panelId: string): Promise<Overlay> {
  const id = overlayIdOf(siteId, panelId);
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
  if (panelId.length === 0 || panelId.length > 64) throw badInput('panelId must be 1 to 64 characters', 'panelId');
  if (channelIds.length > MAX_CHANNELS) throw badInput(`channelIds may name at most ${MAX_CHANNELS} channels`, 'channelIds');
  if (question && (question.text.length === 0 || [...question.text].length > 1000))
    throw badInput('question.text must be 1 to 1000 characters', 'question.text');
  if (question?.askedBy && [...question.askedBy].length > 200) throw badInput('question.askedBy must be at most 200 characters', 'question.askedBy');
  if (question && (question.questionId.length === 0 || question.questionId.length > 64))
    throw badInput('question.questionId must be 1 to 64 characters', 'question.questionId');
  // Each a channel of the site, as every broadcast's (404 naming channelId otherwise), before anything changes.
  for (const channelId of new Set(channelIds)) await checkChannelOfSite(ctx, siteId, channelId);
  const overlayId = overlayIdOf(siteId, panelId);
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
