/**
 * References between content items (a panel's playlist, its polls and quests; a quest action's poll; a
 * channel's sidebar panels), kept in a table on every write of the item that points, so "validate
 * references" — what would break if this poll or playlist went away — and "which channels list this
 * panel" are one index lookup instead of a scan of every renderer or page.
 */
import type { Db } from '../../shared/db/client';
import type { Prisma } from '../../shared/db/generated/sqlite';
import { isRecord } from './checks';

export type Collection = 'pages' | 'panels' | 'quests' | 'polls' | 'playlists';

export interface Target {
  collection: Collection;
  id: string;
}

const ids = (items: unknown, key: string): string[] =>
  Array.isArray(items) ? items.flatMap((item) => (isRecord(item) && typeof item[key] === 'string' && item[key] ? [item[key]] : [])) : [];

/** What a panel's renderer points at. */
export function referencesOfPanel(renderer: unknown): Target[] {
  if (!isRecord(renderer)) return [];
  const targets: Target[] = [];
  if (typeof renderer.playlist_id === 'string' && renderer.playlist_id) targets.push({ collection: 'playlists', id: renderer.playlist_id });
  for (const id of ids(renderer.questions, 'poll_id')) targets.push({ collection: 'polls', id });
  for (const id of ids(renderer.quests, 'quest_id')) targets.push({ collection: 'quests', id });
  return targets;
}

/** What a page points at: a channel's sidebar panels (renderers.sidebar.items[].id); a landing, nothing. */
export function referencesOfPage(type: string, document: unknown): Target[] {
  if (type !== 'channel' || !isRecord(document) || !isRecord(document.renderers) || !isRecord(document.renderers.sidebar)) return [];
  return ids(document.renderers.sidebar.items, 'id').map((id) => ({ collection: 'panels' as const, id }));
}

/** What a quest's actions point at: the polls of answer:polls:specific actions. */
export function referencesOfQuest(actions: unknown): Target[] {
  if (!Array.isArray(actions)) return [];
  return actions.flatMap((action) =>
    isRecord(action) && action.kind === 'answer:polls:specific' && typeof action.validationValue === 'string' && action.validationValue
      ? [{ collection: 'polls' as const, id: action.validationValue }]
      : [],
  );
}

interface Source {
  siteId: string;
  collection: Collection;
  id: string;
  name: string;
}

/** Replaces the references a source item makes (none = it points at nothing any more). */
export async function replaceReferences(tx: Prisma.TransactionClient, source: Source, targets: Target[]): Promise<void> {
  await tx.contentReference.deleteMany({ where: { sourceCollection: source.collection, sourceId: source.id } });
  const unique = [...new Map(targets.map((target) => [`${target.collection}:${target.id}`, target])).values()];
  if (unique.length === 0) return;
  await tx.contentReference.createMany({
    data: unique.map((target) => ({
      siteId: source.siteId,
      sourceCollection: source.collection,
      sourceId: source.id,
      sourceName: source.name,
      targetCollection: target.collection,
      targetId: target.id,
    })),
  });
}

/** The IDs of the site's channels whose sidebar lists the panel, oldest ID first. */
export async function channelsListing(db: Db, siteId: string, panelId: string, take: number): Promise<string[]> {
  const rows = await db.contentReference.findMany({
    where: { siteId, targetCollection: 'panels', targetId: panelId, sourceCollection: 'pages' },
    orderBy: { sourceId: 'asc' },
    take,
    select: { sourceId: true },
  });
  return rows.map((row) => row.sourceId);
}

/** The items of the site that point at a target, as { id, collection, name }. */
export async function referencesTo(db: Db, siteId: string, target: Target) {
  const rows = await db.contentReference.findMany({
    where: { siteId, targetCollection: target.collection, targetId: target.id },
    orderBy: [{ sourceCollection: 'asc' }, { sourceName: 'asc' }],
  });
  return rows.map((row) => ({ id: row.sourceId, collection: row.sourceCollection, name: row.sourceName }));
}
