/**
 * An M3U / M3U8 media playlist: a list of media URIs, in the extended form (`#EXTM3U`) each preceded by
 * `#EXTINF:<seconds> [attributes],<title>` (a `tvg-logo="…"` attribute is the picture IPTV lists give), with
 * `#PLAYLIST:<title>` naming the list. URIs relative to the playlist resolve against its URL. An HLS playlist
 * (`#EXT-X-TARGETDURATION`, `#EXT-X-STREAM-INF`, …) is the segments or variants of one stream, not a list of
 * videos, and is refused.
 */
import { absoluteHttpUrl, clip, notAPlaylist, seconds, unprocessable, type ImportedPlaylist, type ImportedVideo } from './types';

/** Tags only an HLS playlist has (RFC 8216): a media playlist's segments or a master playlist's variants. */
const HLS_TAGS = [
  '#EXT-X-TARGETDURATION',
  '#EXT-X-MEDIA-SEQUENCE',
  '#EXT-X-STREAM-INF',
  '#EXT-X-I-FRAME-STREAM-INF',
  '#EXT-X-PLAYLIST-TYPE',
  '#EXT-X-ENDLIST',
  '#EXT-X-MAP',
  '#EXT-X-PART-INF',
  '#EXT-X-MEDIA:',
];

/** Whether a text is an extended M3U playlist (it starts with `#EXTM3U`, after a byte-order mark or blank lines). */
export const isExtendedM3u = (text: string) =>
  text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('#EXTM3U');

/** `#EXTINF:<duration> <attributes>,<title>`: the comma after the attributes' quoted values ends them. */
function readExtinf(line: string): { duration: number | null; title: string; logo: string | null } {
  const body = line.slice('#EXTINF:'.length);
  let inQuotes = false;
  let comma = -1;
  for (let index = 0; index < body.length && comma < 0; index++) {
    if (body[index] === '"') inQuotes = !inQuotes;
    else if (body[index] === ',' && !inQuotes) comma = index;
  }
  const head = comma < 0 ? body : body.slice(0, comma);
  const duration = seconds(head.trim().split(/\s+/)[0]);
  const logo = /\btvg-logo="([^"]*)"/.exec(head)?.[1] ?? null;
  return { duration, title: comma < 0 ? '' : body.slice(comma + 1).trim(), logo };
}

/** The file name a URL ends with, as a title of last resort. */
function fileNameOf(url: string): string {
  const name = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The videos of an M3U playlist read from `playlistUrl`; 422 for an HLS stream playlist. */
export function readM3u(text: string, playlistUrl: string): ImportedPlaylist {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => line.trim());
  const hlsTag = lines.find((line) => HLS_TAGS.some((tag) => line.startsWith(tag)));
  if (hlsTag) {
    throw unprocessable(`found an HLS stream playlist (${hlsTag.split(':')[0]}): the segments or variants of one stream, not a list of videos`);
  }
  let title = '';
  let pending: ReturnType<typeof readExtinf> | null = null;
  const videos: ImportedVideo[] = [];
  for (const line of lines) {
    if (!line) continue;
    if (line.startsWith('#PLAYLIST:')) title = line.slice('#PLAYLIST:'.length);
    else if (line.startsWith('#EXTINF:')) pending = readExtinf(line);
    else if (!line.startsWith('#')) {
      const url = absoluteHttpUrl(line, playlistUrl);
      if (url) {
        videos.push({
          player: 'm3u',
          id: url,
          title: clip(pending?.title ?? '', 500) || fileNameOf(url) || url,
          url,
          description: '',
          thumbnail: absoluteHttpUrl(pending?.logo, playlistUrl),
          durationSeconds: pending?.duration ?? null,
        });
      }
      pending = null;
    }
  }
  if (!videos.length) throw notAPlaylist('an M3U playlist without a single http(s) media URI');
  return { title: clip(title, 200), description: '', videos };
}
