/**
 * Playlists: ordered members (videos, …) of a site, and their import from an external video platform.
 *
 * The import reads the platform's public playlist document: GET <url> with Accept: application/json,
 * answered with { title, description?, videos: [{ id, title, url, description?, thumbnail?,
 * durationSeconds? }] }. Each video becomes (or, imported again, stays) one of the site's videos, keyed
 * by the platform and its id, and the playlist lists them in order.
 */
import { readTextLimited } from '../../shared/outbound';
import DataLoader from 'dataloader';
import type { Db } from '../../shared/db/client';
import type { Playlist, Prisma, Video } from '../../shared/db/generated/sqlite';
import { appError, badInput, ErrorCode } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { checkOutboundUrl, outboundFetch, type OutboundPolicy } from '../../shared/outbound';
import { checkListSize, checkText, checkUrl, found, isRecord } from './checks';
import { searchKey } from './listing';
import type { PlaylistMemberInput } from './resolvers.generated';

export interface PlaylistMemberModel {
  id: string;
  schema: string;
}

const MAX_MEMBERS = 1000;
const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

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
    loader = new DataLoader(async (ids: readonly string[]) => {
      const videos = await db.video.findMany({ where: { siteId, id: { in: [...ids] } } });
      const byId = new Map(videos.map((video) => [video.id, video]));
      return ids.map((id) => byId.get(id) ?? null);
    });
    loaders.set(request, loader);
  }
  return loader;
}

interface PlatformVideo {
  id: string;
  title: string;
  url: string;
  description: string;
  thumbnail: string | null;
  durationSeconds: number | null;
}

const badGateway = (message: string) => appError(ErrorCode.BAD_GATEWAY, message);

/** The response body, read up to a size limit (a platform answering without end cannot exhaust memory). */
async function readLimited(response: Response): Promise<string> {
  const text = await readTextLimited(response, MAX_IMPORT_BYTES);
  if (text === null) throw badGateway('the video platform playlist is larger than 5 MiB');
  return text;
}

function readPlatformPlaylist(text: string): { title: string; description: string; videos: PlatformVideo[] } {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw badGateway('the video platform did not answer with a JSON playlist');
  }
  if (!isRecord(document) || typeof document.title !== 'string' || !Array.isArray(document.videos)) {
    throw badGateway('the video platform answered without a playlist title and videos');
  }
  const videos = document.videos.map((video, index): PlatformVideo => {
    if (
      !isRecord(video) ||
      typeof video.id !== 'string' ||
      typeof video.title !== 'string' ||
      typeof video.url !== 'string' ||
      !/^https?:\/\//.test(video.url)
    ) {
      throw badGateway(`the video platform's video ${index} has no id, title or http(s) url`);
    }
    return {
      id: video.id,
      title: video.title.slice(0, 500),
      url: video.url,
      description: typeof video.description === 'string' ? video.description : '',
      thumbnail: typeof video.thumbnail === 'string' ? video.thumbnail : null,
      durationSeconds: typeof video.durationSeconds === 'number' && video.durationSeconds >= 0 ? video.durationSeconds : null,
    };
  });
  if (videos.length > MAX_MEMBERS) throw badGateway(`the video platform playlist has more than ${MAX_MEMBERS} videos`);
  return {
    title: document.title.trim().slice(0, 200) || 'Imported playlist',
    description: typeof document.description === 'string' ? document.description : '',
    videos,
  };
}

/**
 * Fetches the platform's playlist: 400 for a URL it cannot use, 502 when the platform fails. Every
 * failure to reach the URL (refused, reset, timed out, not a public address) is one message, so the
 * import cannot be used to tell open ports from closed ones.
 */
async function fetchPlatformPlaylist(url: string, timeoutMs: number, policy: OutboundPolicy) {
  let response: Response;
  try {
    response = await outboundFetch(
      url,
      { headers: { accept: 'application/json', 'user-agent': 'stagegraph-import/1' }, signal: AbortSignal.timeout(timeoutMs) },
      policy,
    );
  } catch {
    throw badGateway('the video platform could not be reached at that URL');
  }
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel();
    throw badInput(`url: the video platform has no public playlist there (it answered ${response.status})`, 'url');
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw badGateway(`the video platform failed (it answered ${response.status})`);
  }
  return readPlatformPlaylist(await readLimited(response));
}

export async function importPlaylist(db: Db, siteId: string, url: string, timeoutMs: number, policy: OutboundPolicy): Promise<Playlist> {
  checkUrl(url, 'url');
  checkOutboundUrl(url, 'url', policy);
  const platform = new URL(url);
  const remote = await fetchPlatformPlaylist(url, timeoutMs, policy);
  const now = new Date();
  return db.$transaction(async (tx) => {
    const members: PlaylistMemberModel[] = [];
    for (const item of remote.videos) {
      const externalId = `${platform.host}:${item.id}`;
      const video = await tx.video.upsert({
        where: { siteId_externalId: { siteId, externalId } },
        update: {
          title: item.title,
          url: item.url,
          description: item.description,
          thumbnail: item.thumbnail,
          durationSeconds: item.durationSeconds,
          updatedAt: now,
        },
        create: {
          id: newId(),
          siteId,
          title: item.title,
          description: item.description,
          type: 'vod',
          url: item.url,
          durationSeconds: item.durationSeconds,
          player: platform.host,
          thumbnail: item.thumbnail,
          uploadStatus: 'ready',
          requiredSkus: [],
          source: { platform: platform.host, platformVideoId: item.id, playlistUrl: url },
          externalId,
          tags: [],
          createdAt: now,
          updatedAt: now,
        },
      });
      members.push({ id: video.id, schema: 'video' });
    }
    return tx.playlist.create({
      data: {
        id: newId(),
        siteId,
        title: remote.title,
        searchTitle: searchKey(remote.title),
        description: remote.description,
        members: members as unknown as Prisma.InputJsonValue,
        tags: [],
        sourceUrl: url,
        createdAt: now,
        updatedAt: now,
      },
    });
  });
}
