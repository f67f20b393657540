/**
 * A Dailymotion playlist through Dailymotion's public API: `GET /playlist/{id}?fields=name,description`, then
 * `GET /playlist/{id}/videos?fields=id,title,description,thumbnail_url,duration,url&limit=100&page=N` — pages of
 * `{ page, limit, total?, has_more, list: [{ id, title, description, thumbnail_url, duration, url }] }` until
 * `has_more` is false. More videos than the import takes are refused as soon as a page shows it.
 */
import { isRecord } from '../checks';
import { fetchJson, type FetchContext } from './fetchDocument';
import { dailymotionPlaylistUrl, dailymotionVideosUrl } from './platformUrls';
import { absoluteHttpUrl, clip, MAX_IMPORT_VIDEOS, notAPlaylist, seconds, tooManyVideos, type ImportedPlaylist, type ImportedVideo } from './types';

function readVideo(video: unknown): ImportedVideo | null {
  if (!isRecord(video) || typeof video.id !== 'string' || !video.id) return null;
  return {
    player: 'dailymotion',
    id: video.id,
    title: clip(typeof video.title === 'string' ? video.title : '', 500) || video.id,
    url: absoluteHttpUrl(video.url) ?? `https://www.dailymotion.com/video/${encodeURIComponent(video.id)}`,
    description: typeof video.description === 'string' ? video.description : '',
    thumbnail: absoluteHttpUrl(video.thumbnail_url),
    durationSeconds: seconds(video.duration),
  };
}

export async function readDailymotionPlaylist(apiBase: string, playlistId: string, context: FetchContext): Promise<ImportedPlaylist> {
  const notDailymotion = () => notAPlaylist(`no Dailymotion playlist ${playlistId} in Dailymotion's API`);
  const playlist = await fetchJson(dailymotionPlaylistUrl(apiBase, playlistId), context);
  if (!isRecord(playlist) || typeof playlist.name !== 'string') throw notDailymotion();
  const videos: ImportedVideo[] = [];
  // One page more than the limit needs shows whether the playlist goes beyond it.
  for (let page = 1; page <= Math.ceil(MAX_IMPORT_VIDEOS / 100) + 1; page++) {
    const answer = await fetchJson(dailymotionVideosUrl(apiBase, playlistId, page), context);
    if (!isRecord(answer) || !Array.isArray(answer.list)) throw notDailymotion();
    if (typeof answer.total === 'number' && answer.total > MAX_IMPORT_VIDEOS) throw tooManyVideos();
    videos.push(...answer.list.flatMap((video) => readVideo(video) ?? []));
    if (videos.length > MAX_IMPORT_VIDEOS) throw tooManyVideos();
    if (answer.has_more !== true || answer.list.length === 0) break;
  }
  return { title: clip(playlist.name, 200), description: typeof playlist.description === 'string' ? playlist.description : '', videos };
}
