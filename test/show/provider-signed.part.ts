/**
 * Signed playback on real parts: the reference provider registered with PROVIDER_SIGNED_PLAYBACK keeps the
 * key `register` answered; ffmpeg pushes a test pattern over RTMP (nginx with its RTMP module); the content
 * check gives the pass holder of a gated channel a signed URL, whose playlist and a segment it names play
 * (200), while without a token (the gated channel's stream plays signed only), or with one altered, another
 * stream's, expired or in another shape, both are 403. A delivered recording's signed URL plays the same way.
 */
import type { Stack } from '../../stack';
import { playbackToken, unsignedPath, type PlaybackKey } from '../../shared/playbackSigning';
import { rest } from '../helpers/http';
import { pushTestPattern, stopChild, type ReferenceProviderPorts } from '../helpers/referenceProvider';
import { gatedChannel as showChannel, startSignedShow, stopSignedShow } from '../helpers/signedShow';
import type { TestSite } from '../helpers/stack';
import { until } from '../helpers/wait';

let stack: Stack;
let site: TestSite;
let ports: ReferenceProviderPorts;
let contractId: string;
let key: PlaybackKey;
let holder: { accountId: string; token: string };

beforeAll(async () => {
  ({ stack, site, ports, contractId, key, holder } = await startSignedShow('Signed real parts', { PROVIDER_IDLE_AFTER_MS: '3000' }));
  expect(key).toEqual({ keyId: expect.any(String), key: expect.any(String) });
}, 180_000);
afterAll(stopSignedShow, 60_000);

const holderHeaders = () => ({ 'x-service-client-id': site.siteId, authorization: `Bearer ${holder.token}`, 'x-service-device-id': 'tv' });

const gatedChannel = (slug: string) => showChannel({ stack, site, contractId }, slug);

/** The video URL the holder's check gives once it offers one of `type`. */
const checkedUrl = (channelId: string, type: 'live' | 'vod') =>
  until(
    async () => (await rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: holderHeaders() })).body.canIPlayResponse.contentCheck.video.video,
    (video) => video?.type === type && typeof video.url === 'string',
    `the check offers the ${type} video`,
  ).then((video) => video.url as string);

const status = async (url: string) => (await fetch(url)).status;

/** The URL with its token replaced. */
const withToken = (url: string, token: string) => {
  const parsed = new URL(url);
  const taken = unsignedPath(parsed.pathname)!;
  const slash = taken.path.lastIndexOf('/');
  parsed.pathname = `${taken.path.slice(0, slash)}/t/${token}${taken.path.slice(slash)}`;
  return parsed.toString();
};

/** The playlist and its first segment play with the token, and neither does with a bad one. */
async function expectEnforced(signedUrl: string, otherStreamsUrl: string) {
  // nginx serves it, on its playback port; the provider's own HTTP server serves no media.
  expect(new URL(signedUrl).port).toBe(String(ports.playbackPort));
  const playlist = await fetch(signedUrl);
  expect(playlist.status).toBe(200);
  expect(playlist.headers.get('access-control-allow-origin')).toBe('*');
  const playlistText = await playlist.text();
  const segmentName = playlistText.split('\n').find((line) => line && !line.startsWith('#'));
  expect(segmentName).toBeTruthy();
  const segmentUrl = new URL(segmentName!, signedUrl).toString();
  const segment = await fetch(segmentUrl);
  expect([segment.status, segment.headers.get('content-type')]).toEqual([200, 'video/mp2t']);
  expect(Buffer.from(await segment.arrayBuffer())[0]).toBe(0x47); // MPEG-TS sync byte
  const onProviderPort = new URL(signedUrl);
  onProviderPort.port = String(ports.httpPort);
  expect(await status(onProviderPort.toString())).toBe(404);

  const token = unsignedPath(new URL(signedUrl).pathname)!.token;
  const [expires, keyId, mac] = token.split('.');
  const otherToken = unsignedPath(new URL(otherStreamsUrl).pathname)!.token;
  const playlistPath = unsignedPath(new URL(signedUrl).pathname)!.path;
  const bad = {
    altered: `${expires}.${keyId}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`,
    'later expiry': `${Number(expires) + 3600}.${keyId}.${mac}`,
    "another stream's": otherToken,
    expired: playbackToken(key, playlistPath, Math.floor(Date.now() / 1000) - 1),
    'another shape': 'not-a-token',
    'another shape, encoded': encodeURIComponent(`${expires}.${keyId}/${mac}`),
    'too long': 'x'.repeat(300),
  };
  // Without a token: the stream plays signed only (a gated channel's, at a provider that signs).
  const plain = (url: string) => `${new URL(url).origin}${unsignedPath(new URL(url).pathname)!.path}`;
  expect([await status(plain(signedUrl)), await status(plain(segmentUrl))]).toEqual([403, 403]);
  const refused = await fetch(withToken(signedUrl, bad.altered));
  expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  expect(await refused.json()).toEqual({ success: false, message: 'this playback URL is not valid for this stream now' });
  for (const [why, badToken] of Object.entries(bad)) {
    for (const url of [signedUrl, segmentUrl]) {
      const answer = await fetch(withToken(url, badToken));
      expect({ why, url: url === signedUrl ? 'playlist' : 'segment', status: answer.status }).toEqual({
        why,
        url: url === signedUrl ? 'playlist' : 'segment',
        status: 403,
      });
    }
  }
}

it('plays a gated live stream and its recording only with a valid token', async () => {
  const show = await gatedChannel('signed-show');
  const other = await gatedChannel('other-show');
  const encoder = pushTestPattern(show.stream.ingestUrl, show.stream.streamKey);
  const otherEncoder = pushTestPattern(other.stream.ingestUrl, other.stream.streamKey);
  expect((await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin })).status).toBe(200);
  const liveUrl = await checkedUrl(show.channelId, 'live');
  const otherUrl = await checkedUrl(other.channelId, 'live');
  expect(unsignedPath(new URL(liveUrl).pathname)?.path).toBe(new URL(show.stream.playbackUrl).pathname);
  await expectEnforced(liveUrl, otherUrl);

  // The show ends (the encoder leaves, the provider's idle stops the recording): its recording, signed, plays the same way.
  // A few fragments recorded first: the live playlist's last fragment moves on by three (its media sequence stays
  // while the rewind window, PROVIDER_DVR_SECONDS, is still filling).
  const sequence = async () => {
    const playlist = await (await fetch(liveUrl)).text();
    return Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1] ?? -1) + (playlist.match(/#EXTINF:/g) ?? []).length;
  };
  const first = await sequence();
  await until(sequence, (now) => now >= first + 3, 'three more fragments of the show');
  await stopChild(encoder);
  const vodUrl = await checkedUrl(show.channelId, 'vod');
  await expectEnforced(vodUrl, otherUrl);
  await stopChild(otherEncoder);
});
