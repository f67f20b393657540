/**
 * Reading a playlist from a real video platform: the URL says where (platformUrls.ts), the platform's public
 * document or API says what (youtube.ts, peertube.ts, dailymotion.ts; m3u.ts and rss.ts for documents read by
 * their content). Nothing here stores anything: the caller stores what this returns, or nothing when it throws.
 */
import { readDailymotionPlaylist } from './dailymotion';
import { readPlaylistDocument } from './documents';
import { fetchDocument, type FetchContext } from './fetchDocument';
import { readPeertubePlaylist } from './peertube';
import { playlistSourceOf, type PlatformBases } from './platformUrls';
import { MAX_IMPORT_VIDEOS, tooManyVideos, type ImportedPlaylist } from './types';

export type { ImportedPlaylist, ImportedVideo, ImportPlayer } from './types';
export type { PlatformBases } from './platformUrls';

/** How an import reaches platforms: the outbound policy, a timeout per call, and where the platforms' APIs are. */
export interface ImportContext extends FetchContext {
  bases: PlatformBases;
}

const DOCUMENT_ACCEPT = 'application/atom+xml, application/rss+xml, application/xml;q=0.9, audio/x-mpegurl, application/vnd.apple.mpegurl, */*;q=0.5';

async function readSource(url: URL, context: ImportContext): Promise<ImportedPlaylist> {
  const source = playlistSourceOf(url, context.bases);
  switch (source.platform) {
    case 'youtube':
      return readPlaylistDocument(await fetchDocument(source.feedUrl, DOCUMENT_ACCEPT, context));
    case 'peertube':
      return readPeertubePlaylist(source.origin, source.playlistId, context);
    case 'dailymotion':
      return readDailymotionPlaylist(context.bases.dailymotionApiUrl, source.playlistId, context);
    case 'document':
      return readPlaylistDocument(await fetchDocument(source.url, DOCUMENT_ACCEPT, context));
  }
}

/**
 * The playlist at `url` (already checked as an outbound URL): its title and its videos in order. 400 when the
 * platform has nothing public there, 413 for a document over 5 MiB, 422 for one that is not a playlist of
 * videos or lists more than 5,000, 502 when the platform fails or does not answer in time.
 */
export async function readPlaylist(url: string, context: ImportContext): Promise<ImportedPlaylist> {
  const playlist = await readSource(new URL(url), context);
  if (playlist.videos.length > MAX_IMPORT_VIDEOS) throw tooManyVideos();
  return playlist;
}
