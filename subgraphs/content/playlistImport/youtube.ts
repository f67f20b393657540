/**
 * A YouTube playlist's public Atom feed (`/feeds/videos.xml?playlist_id=`): `<feed>` with the playlist's title,
 * and one `<entry>` per video with `yt:videoId`, `title`, `link rel="alternate"` (the watch page) and a
 * `media:group` holding `media:thumbnail` and `media:description`. The feed gives no durations, and YouTube
 * lists only a playlist's first 15 videos in it.
 */
import { absoluteHttpUrl, clip, type ImportedPlaylist, type ImportedVideo } from './types';
import { attributeOf, children, textOf, type XmlNode } from './xml';

/** Whether an Atom feed is YouTube's: its entries carry `yt:videoId` (or, empty, it names a `yt:playlistId`). */
export function isYoutubeFeed(feed: XmlNode): boolean {
  const entries = children(feed, 'entry');
  return entries.length ? entries.some((entry) => textOf(entry['yt:videoId']) !== '') : textOf(feed['yt:playlistId']) !== '';
}

function alternateLink(entry: XmlNode): string | null {
  const links = children(entry, 'link');
  const alternate = links.find((link) => textOf(link['@_rel']) === 'alternate') ?? links.find((link) => !link['@_rel']);
  return absoluteHttpUrl(alternate?.['@_href']);
}

export function readYoutubeFeed(feed: XmlNode): ImportedPlaylist {
  const videos = children(feed, 'entry').flatMap((entry): ImportedVideo[] => {
    const id = textOf(entry['yt:videoId']).trim();
    if (!id) return [];
    const group = children(entry, 'media:group')[0] ?? {};
    return [
      {
        player: 'youtube',
        id,
        title: clip(textOf(entry.title) || textOf(group['media:title']), 500) || id,
        url: alternateLink(entry) ?? `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`,
        description: textOf(group['media:description']),
        thumbnail: absoluteHttpUrl(attributeOf(group, 'media:thumbnail', 'url')),
        durationSeconds: null,
      },
    ];
  });
  return { title: clip(textOf(feed.title), 200), description: '', videos };
}
