/** Signed playback URLs as the page reads them (shared/playbackSigning.ts: `…/t/<expires>.<keyId>.<mac>/<file>`). */

/** A signed URL's token segment. */
export const TOKEN_SEGMENT = /\/t\/(\d{1,12})\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\//;

/** When a signed URL stops playing (Unix ms); null for a plain URL. */
export function playbackExpiry(url: string): number | null {
  const match = TOKEN_SEGMENT.exec(url);
  return match ? Number(match[1]) * 1000 : null;
}

/** Whether two URLs play the same stream or recording (they differ at most in their tokens). */
export const sameStream = (a: string, b: string): boolean => a.replace(TOKEN_SEGMENT, '/') === b.replace(TOKEN_SEGMENT, '/');

/** Of two URLs of the same stream, the one that plays longer (a plain one outlasts any signed one). */
export function longerLasting(a: string, b: string): string {
  const [endsA, endsB] = [playbackExpiry(a) ?? Infinity, playbackExpiry(b) ?? Infinity];
  return endsB > endsA ? b : a;
}
