/**
 * Which platform a playlist URL names, and where that platform publishes the playlist for a program to read:
 * pure functions of the URL (and the configured API bases), with no network, so they are tested on their own.
 * A URL no platform claims is read as the document it points at (M3U, media RSS, or a feed of a known shape).
 */

/** Where the platforms' public documents are read; production uses their real hosts (shared/config.ts). */
export interface PlatformBases {
  /** YouTube's Atom feed endpoint, to which `?playlist_id=` is added. */
  youtubeFeedUrl: string;
  /** Dailymotion's API root, without a trailing slash. */
  dailymotionApiUrl: string;
}

export type PlaylistSource =
  | { platform: 'youtube'; playlistId: string; feedUrl: string }
  | { platform: 'peertube'; playlistId: string; origin: string }
  | { platform: 'dailymotion'; playlistId: string }
  | { platform: 'document'; url: string };

const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com']);
const DAILYMOTION_HOSTS = new Set(['dailymotion.com', 'www.dailymotion.com']);
/** YouTube playlist ids: letters, digits, `-` and `_` (PL…, UU…, OLAK5uy_…). */
const YOUTUBE_LIST_ID = /^[\w-]{2,64}$/;
const DAILYMOTION_ID = /^[a-z0-9]{2,32}$/i;
/** A PeerTube playlist id: a numeric id, a UUID or a short UUID. */
const PEERTUBE_ID = /^[\w-]{1,64}$/;
/** The playlist paths of PeerTube's web client and of its API. */
const PEERTUBE_PATHS = [
  /^\/w\/p\/([^/]+)\/?$/,
  /^\/video-playlists\/([^/]+)\/?$/,
  /^\/videos\/watch\/playlist\/([^/]+)\/?$/,
  /^\/api\/v1\/video-playlists\/([^/]+)(?:\/videos)?\/?$/,
];

/** The public Atom feed of a YouTube playlist. */
export function youtubeFeedUrl(playlistId: string, feedBase = 'https://www.youtube.com/feeds/videos.xml'): string {
  const url = new URL(feedBase);
  url.searchParams.set('playlist_id', playlistId);
  return url.href;
}

/** The YouTube playlist a URL names (`/playlist?list=ID`, or `/watch?v=…&list=ID`), or null. */
export function youtubePlaylistId(url: URL): string | null {
  if (!YOUTUBE_HOSTS.has(url.hostname.toLowerCase())) return null;
  if (url.pathname !== '/playlist' && url.pathname !== '/watch') return null;
  const id = url.searchParams.get('list');
  return id && YOUTUBE_LIST_ID.test(id) ? id : null;
}

/** The Dailymotion playlist a URL names (`dailymotion.com/playlist/{id}`), or null. */
export function dailymotionPlaylistId(url: URL): string | null {
  if (!DAILYMOTION_HOSTS.has(url.hostname.toLowerCase())) return null;
  const id = /^\/playlist\/([^/]+)\/?$/.exec(url.pathname)?.[1];
  return id && DAILYMOTION_ID.test(id) ? id : null;
}

/** One page of a Dailymotion playlist's videos through its public API (pages count from 1). */
export function dailymotionVideosUrl(apiBase: string, playlistId: string, page: number): string {
  return `${apiBase}/playlist/${encodeURIComponent(playlistId)}/videos?fields=id,title,description,thumbnail_url,duration,url&limit=100&page=${page}`;
}

/** A Dailymotion playlist's name and description. */
export function dailymotionPlaylistUrl(apiBase: string, playlistId: string): string {
  return `${apiBase}/playlist/${encodeURIComponent(playlistId)}?fields=name,description`;
}

/** The PeerTube playlist a URL names (`/w/p/{id}`, `/video-playlists/{id}`, or its API path), or null. */
export function peertubePlaylistId(url: URL): string | null {
  for (const path of PEERTUBE_PATHS) {
    const id = path.exec(url.pathname)?.[1];
    if (id) return PEERTUBE_ID.test(decodeURIComponent(id)) ? decodeURIComponent(id) : null;
  }
  return null;
}

/** A PeerTube playlist's description (`displayName`, `description`) on its instance. */
export function peertubePlaylistUrl(origin: string, playlistId: string): string {
  return `${origin}/api/v1/video-playlists/${encodeURIComponent(playlistId)}`;
}

/** `count` elements of a PeerTube playlist from `start` (the API gives at most 100 at a time). */
export function peertubeVideosUrl(origin: string, playlistId: string, start: number, count: number): string {
  return `${peertubePlaylistUrl(origin, playlistId)}/videos?start=${start}&count=${count}`;
}

/** Where the playlist at `url` is read. */
export function playlistSourceOf(url: URL, bases: PlatformBases): PlaylistSource {
  const youtube = youtubePlaylistId(url);
  if (youtube) return { platform: 'youtube', playlistId: youtube, feedUrl: youtubeFeedUrl(youtube, bases.youtubeFeedUrl) };
  const dailymotion = dailymotionPlaylistId(url);
  if (dailymotion) return { platform: 'dailymotion', playlistId: dailymotion };
  const peertube = peertubePlaylistId(url);
  if (peertube) return { platform: 'peertube', playlistId: peertube, origin: url.origin };
  return { platform: 'document', url: url.href };
}
