/**
 * Moderators of a Q&A room (site admins: C + D, or C + J with write on Panels): the held questions of a
 * moderated room, approving, marking answered, dismissing, and highlighting one. Each change is one
 * conditional write (a question leaves `held` once), then the room is announced to every instance. The
 * highlighted question goes over the video as an overlay: the overlays subgraph owns broadcasts, so it is
 * asked (showQaHighlight) to take down the room's previous highlight and show this one on the room's channels.
 */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import { serviceIdentity } from '../../../shared/auth/identity';
import type { QaQuestion } from '../../../shared/db/generated/sqlite';
import { conflict, notFound } from '../../../shared/errors';
import type { SubgraphContext } from '../../../shared/subgraph';
import { Scopes } from '../scopes';
import { toQuestionView } from './questions';
import type { QaRuntime } from './runtime';

type Target = { panelId: string; questionId: string };

const SHOW_HIGHLIGHT = /* GraphQL */ `
  mutation QaShowHighlight($panelId: ID!, $channelIds: [ID!]!, $question: QaHighlightInput) {
    showQaHighlight(panelId: $panelId, channelIds: $channelIds, question: $question) { broadcastId }
  }
`;
const ASKER_NAME = /* GraphQL */ `query QaAskerName($id: ID!) { account(id: $id) { name } }`;

/** The moderator's site, after checking the room exists. */
async function moderating(ctx: SubgraphContext, runtime: QaRuntime, panelId: string) {
  requireSite(ctx.identity);
  const siteId = requireAdmin(ctx.identity, Scopes.panels, { write: true });
  const room = await runtime.room(ctx.db, siteId, panelId);
  return { siteId, room };
}

async function questionOf(ctx: SubgraphContext, siteId: string, target: Target): Promise<QaQuestion> {
  const row = await ctx.db.qaQuestion.findFirst({ where: { id: target.questionId, siteId, panelId: target.panelId } });
  if (!row) throw notFound(`question ${target.questionId}`);
  return row;
}

/** The held questions of a room, oldest first. */
export async function qaHeldQuestions(ctx: SubgraphContext, runtime: QaRuntime, panelId: string) {
  const { siteId } = await moderating(ctx, runtime, panelId);
  const rows = await ctx.db.qaQuestion.findMany({ where: { siteId, panelId, status: 'held' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 500 });
  return { results: rows.map((row) => toQuestionView(row, null)) };
}

/** Moves a question from one of `from` to `to` in one conditional write; CONFLICT naming its status otherwise. */
async function moveQuestion(ctx: SubgraphContext, runtime: QaRuntime, target: Target, from: string[], to: string) {
  const { siteId } = await moderating(ctx, runtime, target.panelId);
  const row = await questionOf(ctx, siteId, target);
  const changed = await ctx.db.qaQuestion.updateMany({
    where: { id: row.id, status: { in: from } },
    data: { status: to, updatedAt: new Date(), ...(to === 'dismissed' ? { highlightedAt: null } : {}) },
  });
  // Asked twice, the second changes nothing and answers the same: a retried request is safe.
  if (changed.count === 0 && row.status !== to) throw conflict(`question ${row.id} is ${row.status}; it cannot become ${to}`);
  if (changed.count > 0) runtime.announce(siteId, target.panelId);
  if (to === 'dismissed' && row.highlightedAt !== null) await showHighlight(ctx, siteId, target.panelId, null);
  return toQuestionView(await questionOf(ctx, siteId, target), null);
}

export const approveQaQuestion = (ctx: SubgraphContext, runtime: QaRuntime, target: Target) => moveQuestion(ctx, runtime, target, ['held'], 'open');
export const answerQaQuestion = (ctx: SubgraphContext, runtime: QaRuntime, target: Target) => moveQuestion(ctx, runtime, target, ['open'], 'answered');
export const dismissQaQuestion = (ctx: SubgraphContext, runtime: QaRuntime, target: Target) =>
  moveQuestion(ctx, runtime, target, ['held', 'open', 'answered'], 'dismissed');

/** Makes a question the room's one highlighted question, and shows it over the video in place of the previous one. */
export async function highlightQaQuestion(ctx: SubgraphContext, runtime: QaRuntime, target: Target) {
  const { siteId, room } = await moderating(ctx, runtime, target.panelId);
  const row = await questionOf(ctx, siteId, target);
  if (row.status !== 'open' && row.status !== 'answered')
    throw conflict(`question ${row.id} is ${row.status}; only an open or answered question can be highlighted`);
  const now = new Date();
  await ctx.db.$transaction([
    ctx.db.qaQuestion.updateMany({
      where: { siteId, panelId: target.panelId, highlightedAt: { not: null }, id: { not: row.id } },
      data: { highlightedAt: null },
    }),
    ctx.db.qaQuestion.update({ where: { id: row.id }, data: { highlightedAt: now } }),
  ]);
  runtime.announce(siteId, target.panelId);
  const askedBy = row.anonymous ? null : await askerName(ctx, siteId, row.accountId);
  await showHighlight(ctx, siteId, target.panelId, { questionId: row.id, text: row.text, askedBy }, room.channelIds);
  return toQuestionView({ ...row, highlightedAt: now }, null);
}

async function askerName(ctx: SubgraphContext, siteId: string, accountId: string): Promise<string | null> {
  try {
    const { account } = await ctx.supergraph.execute<{ account: { name: string | null } | null }>(ASKER_NAME, { id: accountId }, serviceIdentity(siteId));
    return account?.name ?? null;
  } catch {
    return null;
  }
}

/**
 * Asks the overlays subgraph to show the highlight (or, with null, only take the previous one down). The
 * highlight is stored already: a failure here is logged, and the next highlight replaces what is shown.
 */
async function showHighlight(
  ctx: SubgraphContext,
  siteId: string,
  panelId: string,
  question: { questionId: string; text: string; askedBy: string | null } | null,
  channelIds: string[] = [],
): Promise<void> {
  try {
    await ctx.supergraph.execute(SHOW_HIGHLIGHT, { panelId, channelIds, question }, serviceIdentity(siteId));
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, panelId }, 'could not show the highlighted Q&A question over the video');
  }
}
