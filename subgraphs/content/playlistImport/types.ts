/** What every reader of a platform's playlist gives, the import's limits, and the errors that refuse a document. */
import { appError, ErrorCode } from '../../../shared/errors';

/** The platform a video is played from: `Video.player`, and the first part of its key (`player:id`). */
export type ImportPlayer = 'youtube' | 'peertube' | 'dailymotion' | 'm3u' | 'rss';

/** One member of an imported playlist, as its platform describes it. */
export interface ImportedVideo {
  player: ImportPlayer;
  /** The platform's own id of the video (for M3U and RSS, its media URL): with `player`, the video's key. */
  id: string;
  title: string;
  url: string;
  description: string;
  thumbnail: string | null;
  durationSeconds: number | null;
}

export interface ImportedPlaylist {
  title: string;
  description: string;
  videos: ImportedVideo[];
}

/** Largest document (or API page) read from a platform: 413 above. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
/** Most videos one import takes: 422 above, before anything is stored. */
export const MAX_IMPORT_VIDEOS = 5000;

/** The document is not a playlist this import reads: 422 saying what it is. */
export const notAPlaylist = (found: string) => appError(ErrorCode.UNPROCESSABLE_CONTENT, `found ${found}, not a playlist of videos`);

/** The document is a playlist, but one the import refuses (too many members, an HLS stream). */
export const unprocessable = (message: string) => appError(ErrorCode.UNPROCESSABLE_CONTENT, message);

export const tooManyVideos = () => unprocessable(`the playlist has more than ${MAX_IMPORT_VIDEOS} videos, which is more than an import takes`);

export const tooLarge = () => appError(ErrorCode.PAYLOAD_TOO_LARGE, `the playlist document is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB`);

export const badGateway = (message: string) => appError(ErrorCode.BAD_GATEWAY, message);

/** A text cut to `max` characters, trimmed. */
export const clip = (value: string, max: number) => value.trim().slice(0, max);

/** A duration in whole seconds from a number or numeric text; null for anything else (negative, NaN, "-1"). */
export function seconds(value: unknown): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) && number >= 0 && number < 1e9 ? Math.round(number) : null;
}

/** `value` as an absolute http(s) URL (resolved against `base` when relative), or null. */
export function absoluteHttpUrl(value: unknown, base?: string): string | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
