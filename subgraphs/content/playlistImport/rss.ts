/**
 * A media RSS feed: RSS 2.0 whose `<item>`s carry their video as `media:content` (Media RSS, also inside a
 * `media:group`) or an `<enclosure>`, a picture as `media:thumbnail` (or `itunes:image`), and a duration as
 * `media:content@duration` or `itunes:duration` (seconds, `MM:SS` or `HH:MM:SS`). An item without a video is
 * not a member; a feed with none is not a playlist of videos.
 */
import { absoluteHttpUrl, clip, seconds, type ImportedPlaylist, type ImportedVideo } from './types';
import { attributeOf, children, textOf, type XmlNode } from './xml';

/** `itunes:duration`: whole seconds, or `MM:SS` / `HH:MM:SS`. */
export function clockSeconds(value: string): number | null {
  const parts = value.trim().split(':');
  if (parts.length > 3 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) return null;
  return seconds(parts.reduce((total, part) => total * 60 + Number(part), 0));
}

/** The item's media entries, its own and those of its media:groups, videos first. */
function mediaContents(item: XmlNode): XmlNode[] {
  const all = [...children(item, 'media:content'), ...children(item, 'media:group').flatMap((group) => children(group, 'media:content'))];
  const isVideo = (media: XmlNode) => textOf(media['@_medium']) === 'video' || textOf(media['@_type']).startsWith('video/');
  return [...all.filter(isVideo), ...all.filter((media) => !isVideo(media))];
}

function thumbnailOf(item: XmlNode, media: XmlNode | undefined, base: string): string | null {
  const groups = children(item, 'media:group');
  const candidates = [
    media && attributeOf(media, 'media:thumbnail', 'url'),
    attributeOf(item, 'media:thumbnail', 'url'),
    ...groups.map((group) => attributeOf(group, 'media:thumbnail', 'url')),
    attributeOf(item, 'itunes:image', 'href'),
  ];
  for (const candidate of candidates) {
    const url = absoluteHttpUrl(candidate, base);
    if (url) return url;
  }
  return null;
}

function readItem(item: XmlNode, base: string): ImportedVideo | null {
  const media = mediaContents(item).find((entry) => absoluteHttpUrl(entry['@_url'], base));
  const url = absoluteHttpUrl(media?.['@_url'], base) ?? absoluteHttpUrl(attributeOf(item, 'enclosure', 'url'), base);
  if (!url) return null;
  const duration = seconds(textOf(media?.['@_duration'])) ?? clockSeconds(textOf(item['itunes:duration']));
  return {
    player: 'rss',
    id: url,
    title: clip(textOf(item.title) || textOf(item['media:title']), 500) || url,
    url,
    description: textOf(item.description) || textOf(item['media:description']),
    thumbnail: thumbnailOf(item, media, base),
    durationSeconds: duration,
  };
}

/** Whether an RSS feed's items carry videos at all. */
export function hasMediaItems(channel: XmlNode): boolean {
  return children(channel, 'item').some((item) => mediaContents(item).length > 0 || children(item, 'enclosure').length > 0);
}

/** The playlist an RSS `<channel>` describes; relative media URLs resolve against the feed's URL. */
export function readRssChannel(channel: XmlNode, feedUrl: string): ImportedPlaylist {
  const videos = children(channel, 'item').flatMap((item) => readItem(item, feedUrl) ?? []);
  return { title: clip(textOf(channel.title), 200), description: textOf(channel.description), videos };
}
