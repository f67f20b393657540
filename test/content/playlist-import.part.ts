/**
 * Importing a playlist from real platforms over its REST path, each format served by a real local server from
 * fixtures of the platforms' public shapes (fixtures/playlists/): a YouTube playlist read through its Atom feed,
 * a PeerTube playlist through its instance's API, a Dailymotion playlist through Dailymotion's API (the feed and
 * API bases point at the local server by configuration: YOUTUBE_FEED_URL, DAILYMOTION_API_URL), an M3U8 media
 * playlist and a media RSS feed. Refusals (HTML, unknown JSON, an HLS stream, too large, too many) store nothing.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let platform: Server;
let base: string;

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', 'playlists', name), 'utf8');
const PEERTUBE_ID = 'cC3R8rKXgTNAxMvxpMbZ7m';
/** How often /lists/renamed.m3u8 was read: each read names its one video anew. */
let renamed = 0;

/** A PeerTube playlist of `count` generated elements, answered page by page as the API does. */
function peertubeElements(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    position: index + 1,
    type: 1,
    video: { uuid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, shortUUID: `short${index}`, name: `Talk ${index + 1}`, duration: 60 + index },
  }));
}

/** A media RSS feed of `count` videos with long descriptions: close to the 5 MiB a document may have. */
function largeRssFeed(count: number): string {
  const description = 'A full match, from the kick-off to the last whistle. '.repeat(16);
  const items = Array.from(
    { length: count },
    (_, index) =>
      `<item><title>Match ${index + 1}</title><description>${description}</description><enclosure url="https://media.example/archive/${index + 1}.mp4" type="video/mp4" length="1"/></item>`,
  );
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Archive</title><description>Every match</description>${items.join('')}</channel></rss>`;
}

/** Answers what a platform would: its feed, its API's pages, documents, and failures. */
function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://local');
  const send = (type: string, body: string) => void res.writeHead(200, { 'content-type': type }).end(body);
  const json = (body: unknown) => send('application/json; charset=utf-8', typeof body === 'string' ? body : JSON.stringify(body));
  const peertube = /^\/api\/v1\/video-playlists\/([^/]+)(\/videos)?$/.exec(url.pathname);
  if (url.pathname === '/feeds/videos.xml' && url.searchParams.get('playlist_id') === 'PLstagegraph01')
    return send('application/atom+xml; charset=UTF-8', fixture('youtube-feed.xml'));
  if (peertube && (peertube[1] === PEERTUBE_ID || peertube[1] === 'long' || peertube[1] === 'huge')) {
    if (!peertube[2]) return json(peertube[1] === PEERTUBE_ID ? fixture('peertube-playlist.json') : { displayName: `The ${peertube[1]} one`, description: '' });
    const all =
      peertube[1] === PEERTUBE_ID
        ? (JSON.parse(fixture('peertube-videos.json')) as { total: number; data: unknown[] })
        : { data: peertubeElements(230), total: 230 };
    const total = peertube[1] === 'huge' ? 5001 : all.total;
    const start = Number(url.searchParams.get('start') ?? 0);
    const count = Math.min(Number(url.searchParams.get('count') ?? 15), 100);
    return json({ total, data: all.data.slice(start, start + count) });
  }
  if (url.pathname === '/dm/playlist/x6hynp') return json(fixture('dailymotion-playlist.json'));
  if (url.pathname === '/dm/playlist/x6hynp/videos') return json(fixture(`dailymotion-videos-${url.searchParams.get('page')}.json`));
  const documents: Record<string, [string, () => string]> = {
    '/lists/season.m3u8': ['application/vnd.apple.mpegurl', () => fixture('season.m3u8')],
    '/lists/stream.m3u8': ['application/vnd.apple.mpegurl', () => fixture('stream-media.m3u8')],
    '/lists/renamed.m3u8': ['audio/x-mpegurl', () => `#EXTM3U\n#EXTINF:${(renamed += 1) * 10},Final, take ${renamed}\nhttps://media.example/final.mp4\n`],
    '/lists/master.m3u8': ['application/vnd.apple.mpegurl', () => fixture('stream-master.m3u8')],
    '/club/bomb.xml': ['application/rss+xml', () => fixture('entity-bomb.xml')],
    '/club/broken.xml': ['application/rss+xml', () => fixture('media-rss.xml').replace('</channel>', '')],
    '/lists/simple.m3u': ['text/plain', () => 'one.mp4\r\nhttps://media.example/two.mp4\r\n'],
    '/club/tv.xml': ['application/rss+xml', () => fixture('media-rss.xml')],
    '/page.html': ['text/html; charset=utf-8', () => fixture('page.html')],
    '/unknown.json': ['application/json', () => fixture('unknown.json')],
    '/plain-atom.xml': ['application/atom+xml', () => fixture('plain-atom.xml')],
    '/empty': ['text/plain', () => ''],
    '/notes.txt': ['text/plain', () => 'Season highlights: see the club page'],
    '/commented': ['application/octet-stream', () => `<!-- built ${'-'.repeat(50)} -->\n<!-- by hand -->\n${fixture('page.html')}`],
    '/lists/huge.m3u8': ['application/vnd.apple.mpegurl', () => `#EXTM3U\n${'#'.repeat(5 * 1024 * 1024)}\nhttps://media.example/a.mp4\n`],
    '/club/archive.xml': ['application/rss+xml', () => largeRssFeed(5000)],
    '/lists/many.m3u8': [
      'application/vnd.apple.mpegurl',
      () => `#EXTM3U\n${Array.from({ length: 5001 }, (_, index) => `#EXTINF:10,Clip ${index}\nclips/${index}.mp4`).join('\n')}\n`,
    ],
  };
  const document = documents[url.pathname];
  if (document) return send(document[0], document[1]());
  if (url.pathname === '/broken') return void res.writeHead(500).end('oops');
  if (url.pathname === '/slow') return; // never answers
  res.writeHead(404).end();
}

beforeAll(async () => {
  platform = createServer(answer);
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  // A partner here runs in the test's own event loop: a timeout of seconds, so a stall of the loaded machine is
  // never taken for a partner that did not answer (which the tests show with partners that never answer).
  stack = await startTestStack({
    env: { VIDEO_PLATFORM_TIMEOUT_MS: '2000', YOUTUBE_FEED_URL: `${base}/feeds/videos.xml`, DAILYMOTION_API_URL: `${base}/dm` },
  });
  site = await createTestSite(stack, 'Imports');
});
afterAll(async () => {
  platform.closeAllConnections();
  await new Promise((resolve) => platform.close(resolve));
  await stopAll();
});

interface ImportedMember {
  id: string;
  schema: string;
  video: {
    _id: string;
    title: string;
    url: string;
    thumbnail: string | null;
    durationSeconds: number | null;
    player: string;
    description: string;
    type: string;
  };
}

const importFrom = (url: string) => rest(stack, 'POST', '/playlist/v1/external/import/videoplatform', { headers: site.admin, body: { url } });

async function imported(url: string) {
  const reply = await importFrom(url);
  expect(reply.status).toBe(200);
  return reply.body as { _id: string; title: string; description: string; members: ImportedMember[] };
}

/** The video fields an import sets, member by member. */
const fieldsOf = (members: ImportedMember[]) =>
  members.map(({ schema, video: { title, url, thumbnail, durationSeconds, player } }) => ({ schema, title, url, thumbnail, durationSeconds, player }));

const rowCounts = async () => ({ videos: await stack.database.prisma.video.count(), playlists: await stack.database.prisma.playlist.count() });

it('imports a YouTube playlist through its Atom feed, and the feed itself as YouTube whatever its URL', async () => {
  const playlist = await imported('https://www.youtube.com/playlist?list=PLstagegraph01');
  expect(playlist.title).toBe('Season highlights & replays');
  expect(fieldsOf(playlist.members)).toEqual([
    {
      schema: 'video',
      title: 'Opening goal',
      url: 'https://www.youtube.com/watch?v=aqz-KE-bpKQ',
      thumbnail: 'https://i2.ytimg.com/vi/aqz-KE-bpKQ/hqdefault.jpg',
      durationSeconds: null,
      player: 'youtube',
    },
    {
      schema: 'video',
      title: 'The save — 90th minute',
      url: 'https://www.youtube.com/watch?v=0123abcDEF_',
      thumbnail: 'https://i4.ytimg.com/vi/0123abcDEF_/hqdefault.jpg',
      durationSeconds: null,
      player: 'youtube',
    },
  ]);
  expect(playlist.members[0].video).toMatchObject({ description: 'The first goal of the season, from the north stand.', type: 'vod' });

  const fromFeed = await imported(`${base}/feeds/videos.xml?playlist_id=PLstagegraph01`);
  expect(fromFeed._id).not.toBe(playlist._id);
  expect(fromFeed.members.map((member) => member.id)).toEqual(playlist.members.map((member) => member.id));
});

it('imports a PeerTube playlist through its instance’s API, page by page, skipping elements without a video', async () => {
  const playlist = await imported(`${base}/w/p/${PEERTUBE_ID}`);
  expect(playlist).toMatchObject({ title: 'Open source talks', description: 'Talks from the spring meetup' });
  expect(fieldsOf(playlist.members)).toEqual([
    {
      schema: 'video',
      title: 'What is PeerTube?',
      url: 'https://framatube.example/videos/watch/9c9de5e8-0a1e-484a-b099-e80766180a6d',
      thumbnail: `${base}/lazy-static/thumbnails/9c9de5e8.jpg`,
      durationSeconds: 113,
      player: 'peertube',
    },
    {
      schema: 'video',
      title: 'Federation in practice',
      url: `${base}/w/8zYqB1bV2cR4dE5fG6hJ7k`,
      thumbnail: 'https://framatube.example/lazy-static/thumbnails/3fa85f64-large.jpg',
      durationSeconds: 2710,
      player: 'peertube',
    },
  ]);
  const long = await imported(`${base}/video-playlists/long`);
  expect(long.members.map((member) => member.video.title)).toEqual(Array.from({ length: 230 }, (_, index) => `Talk ${index + 1}`));
});

it('imports a Dailymotion playlist through Dailymotion’s API until has_more is false', async () => {
  const playlist = await imported('https://www.dailymotion.com/playlist/x6hynp');
  expect(playlist).toMatchObject({ title: 'Best of the league', description: 'Goals of the week, every week' });
  expect(fieldsOf(playlist.members)).toEqual(
    [
      ['x8pqr1a', 'Week 1: all the goals', 421],
      ['x8pqr2b', 'Week 2: all the goals', 388],
      ['x8pqr3c', 'Week 3: all the goals', 402],
    ].map(([id, title, durationSeconds]) => ({
      schema: 'video',
      title,
      url: `https://www.dailymotion.com/video/${id}`,
      thumbnail: `https://s1.dmcdn.net/v/${id}/x240`,
      durationSeconds,
      player: 'dailymotion',
    })),
  );
});

it('imports an M3U8 media playlist, resolving its URIs against the playlist’s URL', async () => {
  const playlist = await imported(`${base}/lists/season.m3u8`);
  expect(playlist.title).toBe('Season replays');
  expect(fieldsOf(playlist.members)).toEqual([
    {
      schema: 'video',
      title: 'Cup final, full match',
      url: `${base}/lists/replays/final.mp4`,
      thumbnail: `${base}/lists/posters/final.jpg`,
      durationSeconds: 5400,
      player: 'm3u',
    },
    { schema: 'video', title: 'Press conference', url: 'https://media.example/press/2024-05-12.mp4', thumbnail: null, durationSeconds: null, player: 'm3u' },
    { schema: 'video', title: 'Penalty shoot-out', url: `${base}/shootout.webm`, thumbnail: null, durationSeconds: 95, player: 'm3u' },
  ]);
  // A plain M3U (no #EXTM3U) is read as one when its path says so.
  const simple = await imported(`${base}/lists/simple.m3u`);
  expect(fieldsOf(simple.members).map(({ title, url }) => [title, url])).toEqual([
    ['one.mp4', `${base}/lists/one.mp4`],
    ['two.mp4', 'https://media.example/two.mp4'],
  ]);
});

it('imports a media RSS feed: media:content or enclosure, thumbnails, durations; items without a video are not members', async () => {
  const playlist = await imported(`${base}/club/tv.xml`);
  expect(playlist).toMatchObject({ title: 'Club TV', description: 'Interviews and training sessions' });
  expect(fieldsOf(playlist.members)).toEqual([
    {
      schema: 'video',
      title: 'Coach interview',
      url: 'https://media.club.example/coach.mp4',
      thumbnail: 'https://media.club.example/coach.jpg',
      durationSeconds: 612,
      player: 'rss',
    },
    {
      schema: 'video',
      title: 'Training session',
      url: `${base}/club/videos/training.mp4`,
      thumbnail: 'https://media.club.example/training.jpg',
      durationSeconds: 3723,
      player: 'rss',
    },
  ]);
  expect(playlist.members[1].video.description).toBe('Behind the scenes <b>before the derby</b>');
});

it('takes a feed of 5,000 videos, the most an import takes, and imported again writes no new video', async () => {
  expect(largeRssFeed(5000).length).toBeGreaterThan(4.5 * 1024 * 1024);
  const before = await rowCounts();
  const playlist = await imported(`${base}/club/archive.xml`);
  expect(playlist.members).toHaveLength(5000);
  expect(playlist.members[4999].video).toMatchObject({ title: 'Match 5000', url: 'https://media.example/archive/5000.mp4', player: 'rss' });
  expect((await rowCounts()).videos).toBe(before.videos + 5000);
  const again = await imported(`${base}/club/archive.xml`);
  expect(again.members.map((member) => member.id)).toEqual(playlist.members.map((member) => member.id));
  expect((await rowCounts()).videos).toBe(before.videos + 5000);
});

it('keeps one video per platform video however often it is imported', async () => {
  const urls = [
    'https://www.youtube.com/playlist?list=PLstagegraph01',
    `${base}/w/p/${PEERTUBE_ID}`,
    'https://www.dailymotion.com/playlist/x6hynp',
    `${base}/lists/season.m3u8`,
    `${base}/club/tv.xml`,
  ];
  const first = await Promise.all(urls.map(imported));
  const before = await rowCounts();
  for (const [index, url] of urls.entries()) {
    const again = await imported(url);
    expect(again._id).not.toBe(first[index]._id);
    expect(again.members.map((member) => member.id)).toEqual(first[index].members.map((member) => member.id));
  }
  const after = await rowCounts();
  expect(after).toEqual({ videos: before.videos, playlists: before.playlists + urls.length });
  // What the platform says now replaces what it said: the same video, its new title and duration.
  const earlier = await imported(`${base}/lists/renamed.m3u8`);
  const second = await imported(`${base}/lists/renamed.m3u8`);
  expect(second.members[0].id).toBe(earlier.members[0].id);
  expect(fieldsOf(second.members)[0]).toMatchObject({ title: `Final, take ${renamed}`, durationSeconds: renamed * 10 });
  expect(fieldsOf(earlier.members)[0].title).not.toBe(fieldsOf(second.members)[0].title);
});

it('refuses what is not a playlist of videos with 422 saying what it found, storing nothing', async () => {
  const before = await rowCounts();
  const refusals: [string, RegExp][] = [
    [`${base}/page.html`, /^found an HTML page, not a playlist/],
    [`${base}/unknown.json`, /^found a JSON document of no playlist format/],
    [`${base}/empty`, /^found an empty document/],
    [`${base}/notes.txt`, /^found a document of another kind \(text\/plain, opening with neither #EXTM3U, < nor \{\)/],
    [`${base}/commented`, /^found an HTML page, not a playlist/],
    [`${base}/plain-atom.xml`, /^found an Atom feed whose entries are not YouTube videos/],
    [`${base}/lists/stream.m3u8`, /^found an HLS stream playlist \(#EXT-X-TARGETDURATION\)/],
    [`${base}/lists/master.m3u8`, /^found an HLS stream playlist \(#EXT-X-STREAM-INF\)/],
    [`${base}/club/bomb.xml`, /^found an XML document that declares its own entities/],
    [`${base}/club/broken.xml`, /^found a document that starts like XML but is not well-formed/],
    [`${base}/lists/many.m3u8`, /more than 5000 videos/],
    [`${base}/video-playlists/huge`, /more than 5000 videos/],
  ];
  for (const [url, message] of refusals) {
    const reply = await importFrom(url);
    expect({ url, status: reply.status, success: reply.body.success }).toEqual({ url, status: 422, success: false });
    expect(reply.body.message).toMatch(message);
  }
  expect(await rowCounts()).toEqual(before);
});

it('refuses a document over 5 MiB with 413, storing nothing', async () => {
  const before = await rowCounts();
  const reply = await importFrom(`${base}/lists/huge.m3u8`);
  expect(reply.status).toBe(413);
  expect(reply.body).toMatchObject({ success: false, message: 'the playlist document is larger than 5 MiB' });
  expect(await rowCounts()).toEqual(before);
});

it('answers 400 for a URL it cannot use, 502 when the platform fails or does not answer in time', async () => {
  for (const url of ['ftp://videos.example/list', 'not a url', `${base}/missing.m3u8`, 'https://www.youtube.com/playlist?list=PLnotthere']) {
    const reply = await importFrom(url);
    expect({ url, status: reply.status }).toEqual({ url, status: 400 });
    expect(reply.body.message).toMatch(/url/);
  }
  for (const path of ['broken', 'slow']) {
    const reply = await importFrom(`${base}/${path}`);
    expect(reply.status).toBe(502);
    expect(reply.body.success).toBe(false);
  }
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const closedPort = await importFrom(`http://127.0.0.1:${port}/list.m3u8`);
  expect(closedPort.status).toBe(502);
  // A closed port and a silent one read alike: the import cannot be used to map open ports.
  const silent = await importFrom(`${base}/slow`);
  expect(closedPort.body.message).toBe('the video platform could not be reached at that URL');
  expect(silent.body.message).toBe(closedPort.body.message);
});
