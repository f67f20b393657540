/**
 * A fetched document read by what it is, whatever its URL: an extended M3U (`#EXTM3U`), an XML document — a
 * YouTube Atom feed (entries with `yt:videoId`) or a media RSS feed — or a plain M3U served as one (an
 * `mpegurl` Content-Type or a `.m3u`/`.m3u8` path). Anything else is refused (422) saying what was found:
 * an HTML page, JSON of no known playlist shape, another XML document, an empty file, plain text.
 */
import type { FetchedDocument } from './fetchDocument';
import { isExtendedM3u, readM3u } from './m3u';
import { hasMediaItems, readRssChannel } from './rss';
import { notAPlaylist, type ImportedPlaylist } from './types';
import { children, parseXml } from './xml';
import { isYoutubeFeed, readYoutubeFeed } from './youtube';

const MPEGURL_TYPES = new Set(['audio/x-mpegurl', 'audio/mpegurl', 'application/x-mpegurl', 'application/vnd.apple.mpegurl']);

/** Whether a document opens as an HTML page: `<!DOCTYPE html` or `<html`, after any comments (read in one pass). */
function looksLikeHtml(text: string): boolean {
  let index = 0;
  for (;;) {
    while (index < text.length && text.charCodeAt(index) <= 32) index++;
    if (!text.startsWith('<!--', index)) break;
    const end = text.indexOf('-->', index + 4);
    if (end < 0) return false;
    index = end + 3;
  }
  const head = text.slice(index, index + 15).toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html>') || /^<html\s/.test(head);
}

async function readXml(text: string, url: string): Promise<ImportedPlaylist> {
  const { root, node } = await parseXml(text);
  if (root === 'feed') {
    if (!isYoutubeFeed(node)) throw notAPlaylist('an Atom feed whose entries are not YouTube videos (no yt:videoId)');
    return readYoutubeFeed(node);
  }
  if (root === 'rss') {
    const channel = children(node, 'channel')[0];
    if (!channel || !hasMediaItems(channel)) throw notAPlaylist('an RSS feed without videos (no media:content or enclosure in its items)');
    return readRssChannel(channel, url);
  }
  if (root.toLowerCase() === 'html') throw notAPlaylist('an HTML page');
  throw notAPlaylist(`an XML document of another kind (<${root}>)`);
}

function describeJson(text: string): string {
  try {
    JSON.parse(text);
    return 'a JSON document of no playlist format the import reads';
  } catch {
    return 'text that starts like JSON but is not JSON';
  }
}

/** The playlist a document holds; 422 saying what it is when it holds none. */
export async function readPlaylistDocument(document: FetchedDocument): Promise<ImportedPlaylist> {
  const text = document.text.replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (!start) throw notAPlaylist('an empty document');
  if (isExtendedM3u(start)) return readM3u(text, document.url);
  if (start.startsWith('<')) {
    if (looksLikeHtml(start) || document.contentType === 'text/html') throw notAPlaylist('an HTML page');
    return readXml(text, document.url);
  }
  if (start.startsWith('{') || start.startsWith('[')) throw notAPlaylist(describeJson(start));
  if (MPEGURL_TYPES.has(document.contentType) || /\.m3u8?$/i.test(new URL(document.url).pathname)) return readM3u(text, document.url);
  if (document.contentType === 'text/html') throw notAPlaylist('an HTML page');
  throw notAPlaylist(`a document of another kind (${document.contentType || 'no Content-Type'}, opening with neither #EXTM3U, < nor {)`);
}
