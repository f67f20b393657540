/** Where a playlist URL is read: the pure mapping of a platform's playlist URL to its public feed or API. */
import {
  dailymotionVideosUrl,
  peertubeVideosUrl,
  playlistSourceOf,
  youtubeFeedUrl,
  type PlatformBases,
} from '../../subgraphs/content/playlistImport/platformUrls';
import { clockSeconds } from '../../subgraphs/content/playlistImport/rss';

const REAL: PlatformBases = { youtubeFeedUrl: 'https://www.youtube.com/feeds/videos.xml', dailymotionApiUrl: 'https://api.dailymotion.com' };
const sourceOf = (url: string, bases = REAL) => playlistSourceOf(new URL(url), bases);

it('reads a YouTube playlist URL through its public Atom feed', () => {
  const feed = 'https://www.youtube.com/feeds/videos.xml?playlist_id=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI';
  for (const url of [
    'https://www.youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI',
    'https://youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI&si=abc',
    'https://m.youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI',
    'https://music.youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI&index=2',
  ]) {
    expect(sourceOf(url)).toEqual({ platform: 'youtube', playlistId: 'PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI', feedUrl: feed });
  }
  expect(youtubeFeedUrl('PL-x_1', 'http://127.0.0.1:9/feeds/videos.xml')).toBe('http://127.0.0.1:9/feeds/videos.xml?playlist_id=PL-x_1');
  // A watch page without a list, another host, or a list id of other characters is not a playlist URL.
  for (const url of [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtube.example/playlist?list=PL123',
    'https://www.youtube.com/playlist?list=PL%3Cx%3E',
  ]) {
    expect(sourceOf(url)).toEqual({ platform: 'document', url: new URL(url).href });
  }
});

it('reads a PeerTube playlist through its instance’s API, from the web client’s or the API’s path', () => {
  for (const path of [
    '/w/p/9c9de5e8-0a1e-484a-b099-e80766180a6d',
    '/video-playlists/9c9de5e8-0a1e-484a-b099-e80766180a6d',
    '/videos/watch/playlist/9c9de5e8-0a1e-484a-b099-e80766180a6d',
    '/api/v1/video-playlists/9c9de5e8-0a1e-484a-b099-e80766180a6d/videos',
  ]) {
    expect(sourceOf(`https://peertube.example:8443${path}`)).toEqual({
      platform: 'peertube',
      playlistId: '9c9de5e8-0a1e-484a-b099-e80766180a6d',
      origin: 'https://peertube.example:8443',
    });
  }
  expect(sourceOf('https://tube.example/w/p/2y84q2MQUMWPbiEcxNXMgC')).toMatchObject({ platform: 'peertube', playlistId: '2y84q2MQUMWPbiEcxNXMgC' });
  expect(peertubeVideosUrl('https://tube.example', '2y84q2MQUMWPbiEcxNXMgC', 100, 100)).toBe(
    'https://tube.example/api/v1/video-playlists/2y84q2MQUMWPbiEcxNXMgC/videos?start=100&count=100',
  );
});

it('reads a Dailymotion playlist through the configured API base', () => {
  expect(sourceOf('https://www.dailymotion.com/playlist/x6hynp')).toEqual({ platform: 'dailymotion', playlistId: 'x6hynp' });
  expect(sourceOf('https://dailymotion.com/playlist/x6hynp/')).toEqual({ platform: 'dailymotion', playlistId: 'x6hynp' });
  expect(dailymotionVideosUrl('http://127.0.0.1:9', 'x6hynp', 2)).toBe(
    'http://127.0.0.1:9/playlist/x6hynp/videos?fields=id,title,description,thumbnail_url,duration,url&limit=100&page=2',
  );
  expect(sourceOf('https://www.dailymotion.com/video/x8abc')).toEqual({ platform: 'document', url: 'https://www.dailymotion.com/video/x8abc' });
});

it('reads any other URL as the document it points at', () => {
  expect(sourceOf('https://cdn.example/lists/season.m3u8')).toEqual({ platform: 'document', url: 'https://cdn.example/lists/season.m3u8' });
  expect(sourceOf('https://podcast.example/feed.xml')).toEqual({ platform: 'document', url: 'https://podcast.example/feed.xml' });
});

it('reads itunes:duration as seconds, MM:SS or HH:MM:SS', () => {
  expect(clockSeconds('95')).toBe(95);
  expect(clockSeconds('01:35')).toBe(95);
  expect(clockSeconds('1:01:35')).toBe(3695);
  expect(clockSeconds('soon')).toBeNull();
  expect(clockSeconds('1:2:3:4')).toBeNull();
});
