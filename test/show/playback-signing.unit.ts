/**
 * Signed playback's core (shared/playbackSigning.ts) and its setting: a token verifies for exactly the
 * stream path it was made for, under its key, until its expiry; an altered token, another stream's, an
 * expired one, one under an unknown key and anything in another shape are refused without throwing.
 * PLAYBACK_TOKEN_TTL_SECONDS outside 30–86,400 stops the start with a message naming it.
 */
import { loadConfig } from '../../shared/config';
import { newPlaybackKey, playbackToken, signPlaybackUrl, unsignedPath, verifyPlaybackToken } from '../../shared/playbackSigning';
import { TEST_SECRETS } from '../helpers/stack';

const key = newPlaybackKey();
const now = Date.UTC(2026, 11, 7, 12);
const inTenMinutes = now / 1000 + 600;

it('signs the URL’s path with a path token that relative segments keep, and verifies it for that stream only', () => {
  const signed = signPlaybackUrl('http://cdn.test:4200/hls/abc.m3u8', key, inTenMinutes);
  const url = new URL(signed);
  const taken = unsignedPath(url.pathname);
  expect(taken).toEqual({ token: expect.any(String), path: '/hls/abc.m3u8' });
  expect(verifyPlaybackToken(taken!.token, '/hls/abc.m3u8', [key], now)).toBe(true);
  // A segment the playlist names relatively carries the same token.
  const segment = new URL('abc-7.ts', signed);
  expect(unsignedPath(segment.pathname)).toEqual({ token: taken!.token, path: '/hls/abc-7.ts' });

  expect(verifyPlaybackToken(taken!.token, '/hls/other.m3u8', [key], now)).toBe(false);
  expect(verifyPlaybackToken(taken!.token, '/hls/abc.m3u8', [key], inTenMinutes * 1000 + 1)).toBe(false);
  expect(verifyPlaybackToken(taken!.token, '/hls/abc.m3u8', [newPlaybackKey()], now)).toBe(false);
  const rotated = { keyId: key.keyId, key: newPlaybackKey().key };
  expect(verifyPlaybackToken(taken!.token, '/hls/abc.m3u8', [rotated], now)).toBe(false);
});

it('refuses an altered token and tokens in any other shape', () => {
  const token = playbackToken(key, '/vod/v1/index.m3u8', inTenMinutes);
  const [expires, keyId, mac] = token.split('.');
  const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
  const later = `${Number(expires) + 3600}.${keyId}.${mac}`;
  for (const bad of [
    `${expires}.${keyId}.${flipped}`,
    later,
    '',
    'token',
    `${expires}.${keyId}`,
    `${expires}.${keyId}.${mac}.extra`,
    `-1.${keyId}.${mac}`,
    `${expires}.${keyId}.${mac}=`,
    `${'9'.repeat(40)}.${keyId}.${mac}`,
    `${expires}.${'k'.repeat(200)}.${mac}`,
    '\u0000'.repeat(50),
  ]) {
    expect(verifyPlaybackToken(bad, '/vod/v1/index.m3u8', [key], now)).toBe(false);
  }
  expect(verifyPlaybackToken(token, '/vod/v1/index.m3u8', [key], now)).toBe(true);
});

it('reads PLAYBACK_TOKEN_TTL_SECONDS once: default 600, and a value outside 30–86,400 stops the start naming it', () => {
  const configWith = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'file:unused.db', ...TEST_SECRETS, ...env });
  expect(configWith({}).playbackTokenTtlSeconds).toBe(600);
  expect(configWith({ PLAYBACK_TOKEN_TTL_SECONDS: '30' }).playbackTokenTtlSeconds).toBe(30);
  for (const bad of ['29', '86401', '0', 'ten', '60.5']) {
    expect(() => configWith({ PLAYBACK_TOKEN_TTL_SECONDS: bad })).toThrow(/PLAYBACK_TOKEN_TTL_SECONDS must be an integer between 30 and 86400/);
  }
});
