/**
 * A PeerTube playlist through its instance's public REST API: `GET /api/v1/video-playlists/{id}` for its
 * `displayName` and `description`, then `GET /api/v1/video-playlists/{id}/videos?start=&count=` — pages of
 * `{ total, data: [{ position, video: { uuid, shortUUID, name, duration, url?, thumbnails?: [{ fileUrl }],
 * thumbnailPath?, description? } | null }] }` (100 at most each; `video` is null for a deleted or private one,
 * which is skipped). A `total` above the import's limit is refused before the pages are read.
 */
import { isRecord } from '../checks';
import { fetchJson, type FetchContext } from './fetchDocument';
import { peertubePlaylistUrl, peertubeVideosUrl } from './platformUrls';
import { absoluteHttpUrl, clip, MAX_IMPORT_VIDEOS, notAPlaylist, seconds, tooManyVideos, type ImportedPlaylist, type ImportedVideo } from './types';

const PAGE_SIZE = 100;

function thumbnailOf(video: Record<string, unknown>, origin: string): string | null {
  const thumbnails = Array.isArray(video.thumbnails) ? video.thumbnails.filter(isRecord) : [];
  const largest = thumbnails.sort((a, b) => (Number(b.width) || 0) - (Number(a.width) || 0))[0];
  return absoluteHttpUrl(largest?.fileUrl, origin) ?? absoluteHttpUrl(video.thumbnailPath, origin) ?? absoluteHttpUrl(video.previewPath, origin);
}

function readElement(element: unknown, origin: string): ImportedVideo | null {
  const video = isRecord(element) ? element.video : null;
  if (!isRecord(video) || typeof video.uuid !== 'string' || !video.uuid) return null;
  const watchId = typeof video.shortUUID === 'string' && video.shortUUID ? video.shortUUID : video.uuid;
  const description =
    typeof video.description === 'string' ? video.description : typeof video.truncatedDescription === 'string' ? video.truncatedDescription : '';
  return {
    player: 'peertube',
    id: video.uuid,
    title: clip(typeof video.name === 'string' ? video.name : '', 500) || video.uuid,
    url: absoluteHttpUrl(video.url) ?? `${origin}/w/${encodeURIComponent(watchId)}`,
    description,
    thumbnail: thumbnailOf(video, origin),
    durationSeconds: seconds(video.duration),
  };
}

export async function readPeertubePlaylist(origin: string, playlistId: string, context: FetchContext): Promise<ImportedPlaylist> {
  const notPeertube = () => notAPlaylist(`no PeerTube playlist at ${origin}/api/v1/video-playlists/${playlistId}`);
  const playlist = await fetchJson(peertubePlaylistUrl(origin, playlistId), context);
  if (!isRecord(playlist) || typeof playlist.displayName !== 'string') throw notPeertube();
  const videos: ImportedVideo[] = [];
  for (let start = 0; ; start += PAGE_SIZE) {
    const page = await fetchJson(peertubeVideosUrl(origin, playlistId, start, PAGE_SIZE), context);
    if (!isRecord(page) || typeof page.total !== 'number' || !Array.isArray(page.data)) throw notPeertube();
    if (page.total > MAX_IMPORT_VIDEOS) throw tooManyVideos();
    videos.push(...page.data.flatMap((element) => readElement(element, origin) ?? []));
    if (page.data.length === 0 || start + PAGE_SIZE >= page.total) break;
  }
  return {
    title: clip(playlist.displayName, 200),
    description: typeof playlist.description === 'string' ? playlist.description : '',
    videos,
  };
}
