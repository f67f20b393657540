/**
 * Playlists: ordered members (videos, …) of a site, and their import from a real video platform.
 *
 * The import (playlistImport/) reads the document at the URL by what it is: a YouTube playlist through its
 * public Atom feed, a PeerTube playlist through its instance's `/api/v1/video-playlists/{id}/videos`, a
 * Dailymotion playlist through Dailymotion's API, an M3U/M3U8 media playlist, or a media RSS feed. Each of its
 * videos becomes (or, imported again, stays) one of the site's videos, keyed by the platform and its id
 * (`youtube:dQw4w9WgXcQ`; for M3U and RSS the media URL), with `player` naming the platform, and the new
 * playlist lists them in order. Anything else is refused (422) before anything is stored.
 */
import DataLoader from 'dataloader';
import type { Db } from '../../shared/db/client';
import type { Playlist, Prisma, Video } from '../../shared/db/generated/sqlite';
import { newId } from '../../shared/ids';
import { checkOutboundUrl } from '../../shared/outbound';
import { checkListSize, checkText, checkUrl, found } from './checks';
import { searchKey } from './listing';
import { readPlaylist, type ImportContext, type ImportedVideo } from './playlistImport';
import { MAX_IMPORT_VIDEOS } from './playlistImport/types';
import type { PlaylistMemberInput } from './resolvers.generated';

export interface PlaylistMemberModel {
  id: string;
  schema: string;
}

/** A playlist holds as many members as an import may bring, so an imported one can be edited and saved back. */
const MAX_MEMBERS = MAX_IMPORT_VIDEOS;
/** Videos looked up or created in one statement (well under SQLite's bound on a statement's variables). */
const LOOKUP_BATCH = 500;

export function checkMembers(members: readonly PlaylistMemberInput[]): PlaylistMemberModel[] {
  checkListSize(members, 'members', MAX_MEMBERS);
  return members.map((member, index) => ({
    id: checkText(member.id, `members[${index}].id`, 64),
    schema: checkText(member.schema, `members[${index}].schema`, 32),
  }));
}

export function playlistMembers(playlist: Playlist): PlaylistMemberModel[] {
  return Array.isArray(playlist.members) ? (playlist.members as unknown as PlaylistMemberModel[]) : [];
}

export async function findPlaylist(db: Db, siteId: string, id: string): Promise<Playlist> {
  return found(await db.playlist.findFirst({ where: { id, siteId } }), `playlist ${id}`);
}

const loaders = new WeakMap<object, DataLoader<string, Video | null>>();

/** The videos of one request's members, read in one query however many playlists ask. */
export function videoLoader(request: object, db: Db, siteId: string): DataLoader<string, Video | null> {
  let loader = loaders.get(request);
  if (!loader) {
    loader = new DataLoader(
      async (ids: readonly string[]) => {
        const videos = await db.video.findMany({ where: { siteId, id: { in: [...ids] } } });
        const byId = new Map(videos.map((video) => [video.id, video]));
        return ids.map((id) => byId.get(id) ?? null);
      },
      // One query per LOOKUP_BATCH ids: a playlist of thousands of members would pass the database's bound on a
      // statement's variables.
      { maxBatchSize: LOOKUP_BATCH },
    );
    loaders.set(request, loader);
  }
  return loader;
}

/** The ids of the site's videos of an import's members, in order, keyed `player:id`: found, or created, in bulk. */
async function importVideos(tx: Prisma.TransactionClient, siteId: string, url: string, videos: readonly ImportedVideo[], now: Date): Promise<string[]> {
  const keyOf = (video: ImportedVideo) => `${video.player}:${video.id}`;
  const byKey = new Map(videos.map((video) => [keyOf(video), video]));
  const keys = [...byKey.keys()];
  const existing = new Map<string, Video>();
  for (let index = 0; index < keys.length; index += LOOKUP_BATCH) {
    const rows = await tx.video.findMany({ where: { siteId, externalId: { in: keys.slice(index, index + LOOKUP_BATCH) } } });
    for (const row of rows) if (row.externalId) existing.set(row.externalId, row);
  }
  const idByKey = new Map<string, string>();
  const created: Prisma.VideoCreateManyInput[] = [];
  for (const [externalId, item] of byKey) {
    const video = existing.get(externalId);
    const fields = { title: item.title, url: item.url, description: item.description, thumbnail: item.thumbnail, durationSeconds: item.durationSeconds };
    if (!video) {
      const id = newId();
      idByKey.set(externalId, id);
      created.push({
        id,
        siteId,
        ...fields,
        type: 'vod',
        player: item.player,
        uploadStatus: 'ready',
        requiredSkus: [],
        source: { platform: item.player, platformVideoId: item.id, playlistUrl: url },
        externalId,
        tags: [],
        createdAt: now,
        updatedAt: now,
      });
      continue;
    }
    idByKey.set(externalId, video.id);
    // Imported again: what the platform says now replaces what it said before; an unchanged video is not written.
    if (Object.entries(fields).some(([field, value]) => video[field as keyof typeof fields] !== value)) {
      await tx.video.update({ where: { id: video.id }, data: { ...fields, updatedAt: now } });
    }
  }
  for (let index = 0; index < created.length; index += LOOKUP_BATCH) await tx.video.createMany({ data: created.slice(index, index + LOOKUP_BATCH) });
  return videos.map((video) => idByKey.get(keyOf(video)) ?? '');
}

/** How long an import's transaction may wait for a connection and run (see importPlaylist). */
const IMPORT_TRANSACTION = { maxWait: 15_000, timeout: 90_000 };

/**
 * Imports the playlist at `url` as a new playlist of the site. The document is read whole, and checked, before
 * anything is stored: a refusal (400, 413, 422, 502) leaves no video and no playlist behind.
 */
export async function importPlaylist(db: Db, siteId: string, url: string, context: ImportContext): Promise<Playlist> {
  checkUrl(url, 'url');
  checkOutboundUrl(url, 'url', context.policy);
  const remote = await readPlaylist(url, context);
  const title = remote.title || 'Imported playlist';
  const now = new Date();
  // Up to 5,000 videos in one transaction: longer than the default 20 s a transaction may take on a loaded
  // database (PostgreSQL beside a busy machine took more), bounded by the import's own limit.
  return db.$transaction(async (tx) => {
    const ids = await importVideos(tx, siteId, url, remote.videos, now);
    const members: PlaylistMemberModel[] = ids.map((id) => ({ id, schema: 'video' }));
    return tx.playlist.create({
      data: {
        id: newId(),
        siteId,
        title,
        searchTitle: searchKey(title),
        description: remote.description,
        members: members as unknown as Prisma.InputJsonValue,
        tags: [],
        sourceUrl: url,
        createdAt: now,
        updatedAt: now,
      },
    });
  }, IMPORT_TRANSACTION);
}
