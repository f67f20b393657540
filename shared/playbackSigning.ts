/**
 * Signed playback (docs/design.md "Paid video stays paid", after Mux's signed playback IDs and Cloudflare Stream's
 * signed URLs): a playback URL carries a token bound to one stream or recording and to an expiry. The
 * token is a path segment (`…/t/<token>/<file>`), not a query parameter, so the segments a playlist names
 * relatively carry it too. It signs the playback URL's own path, so a provider verifies it for any file
 * of that stream by naming the stream's playlist path. One HMAC-SHA256 per signature: no database, no
 * network.
 *
 * Token: `<expires>.<keyId>.<mac>` — expires in Unix seconds, keyId the contract's key ID, mac the
 * base64url HMAC-SHA256 under the key of `<path>\n<expires>`. Anything in another shape is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The scheme a contract's `playbackSigning.scheme` names. */
export const PLAYBACK_SIGNING_SCHEME = 'path-hmac-sha256';

/** One signing key of a contract. */
export interface PlaybackKey {
  keyId: string;
  /** base64url of 32 random bytes. */
  key: string;
}

/** A new key: shown once to the provider in the contract's answer. */
export function newPlaybackKey(): PlaybackKey {
  return { keyId: randomBytes(6).toString('base64url'), key: randomBytes(32).toString('base64url') };
}

const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{43})$/;
const SIGNED_PATH = /^(.*)\/t\/([^/]{1,128})\/([^/]+)$/;

const macOf = (key: string, path: string, expires: number) => createHmac('sha256', key).update(`${path}\n${expires}`).digest('base64url');

/** The token for the playback path `path` until `expires` (Unix seconds). */
export function playbackToken(signing: PlaybackKey, path: string, expires: number): string {
  return `${expires}.${signing.keyId}.${macOf(signing.key, path, expires)}`;
}

/** `url` with a token for its path until `expires` (Unix seconds), as the path segment before its file. */
export function signPlaybackUrl(url: string, signing: PlaybackKey, expires: number): string {
  const parsed = new URL(url);
  const path = parsed.pathname;
  const slash = path.lastIndexOf('/');
  parsed.pathname = `${path.slice(0, slash)}/t/${playbackToken(signing, path, expires)}${path.slice(slash)}`;
  return parsed.toString();
}

/** A signed path taken apart: the token and the path without it (`/hls/t/T/a.ts` → `/hls/a.ts`); null when unsigned. */
export function unsignedPath(path: string): { token: string; path: string } | null {
  const match = SIGNED_PATH.exec(path);
  return match ? { token: match[2], path: `${match[1]}/${match[3]}` } : null;
}

/**
 * Whether `token` lets its bearer play the stream whose playback path is `path` at `now` (Unix ms): in
 * the scheme's shape, signed by one of `keys` for exactly that path, and not expired. Never throws.
 */
export function verifyPlaybackToken(token: string, path: string, keys: readonly PlaybackKey[], now: number): boolean {
  const match = TOKEN.exec(token);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 < now) return false;
  const signing = keys.find((key) => key.keyId === match[2]);
  if (!signing) return false;
  const expected = Buffer.from(macOf(signing.key, path, expires));
  const given = Buffer.from(match[3]);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
