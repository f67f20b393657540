/**
 * What the watch page shows, decided in one pure function from the two things it knows: the content
 * check's answer (may this viewer play, and what) and the channel's show status (the live push). The
 * check alone decides a refusal, and only the check's or the status's own URL is ever played; the status
 * alone tells the show's moments the check cannot (reconnecting, ended, the countdown). Without a status
 * (a server that has no `channelStatus`), the check alone decides: live, a video, or offline.
 */
import type { ChannelStatus } from './channelStatus';
import { longerLasting, sameStream } from './playbackUrls';
import type { PlayerSource } from './watchPlayer';

/** The Video of the seed as the content check answers it (the fields the page reads). */
export interface CheckVideo {
  _id: string;
  type: string | null;
  title: string | null;
  url: string | null;
}

/** `GET /pages/v2/content/id/{channelId}` (the fields the page reads). */
export interface ContentCheckAnswer {
  canIPlayResponse: {
    contentCheck: {
      access: 'full' | 'preview' | 'none';
      live: boolean;
      offset: number;
      previewTimeRemainingSeconds: number;
      video: { video: CheckVideo | null } | null;
    };
    error: { type: string; message: string } | null;
  };
}

export type WatchView =
  | { kind: 'loading' }
  | { kind: 'unavailable'; message: string }
  | { kind: 'refused'; error: { type: string; message: string } }
  /** `source` null: live, but no URL to play yet (the check is asked again). */
  | { kind: 'live'; source: PlayerSource | null }
  | { kind: 'starting'; live: PlayerSource | null }
  | { kind: 'reconnecting'; live: PlayerSource | null }
  | { kind: 'countdown'; title: string | null; startsAt: number }
  | { kind: 'ended'; recording: PlayerSource | null }
  | { kind: 'video'; source: PlayerSource }
  | { kind: 'offline' };

export type WatchViewKind = WatchView['kind'];

/**
 * The live stream to play: the status's URL (a channel without a gate, or this viewer's own in a gated
 * show's push), else the check's live video; of two signed URLs of the stream, the later (a renewal).
 */
function liveSource(check: ContentCheckAnswer, status: ChannelStatus | null): PlayerSource | null {
  const { contentCheck } = check.canIPlayResponse;
  const video = contentCheck.video?.video ?? null;
  const pushed = status?.playbackUrl ?? null;
  const checked = contentCheck.live && video?.type === 'live' ? video.url : null;
  const url = pushed && checked && sameStream(pushed, checked) ? longerLasting(pushed, checked) : (pushed ?? checked);
  return url ? { url, kind: 'live', videoId: null, offset: 0 } : null;
}

/** The video the check offers while the channel is not live: a recording, the offline or the scheduled video. */
function offeredVideo(check: ContentCheckAnswer): PlayerSource | null {
  const { contentCheck } = check.canIPlayResponse;
  const video = contentCheck.video?.video ?? null;
  if (contentCheck.live || !video?.url || video.type === 'live') return null;
  return { url: video.url, kind: 'vod', videoId: video._id, offset: Math.max(0, contentCheck.offset) };
}

/** The view for what the page knows at `now` (Unix ms). */
export function watchViewOf(check: ContentCheckAnswer | null, status: ChannelStatus | null, now: number): WatchView {
  if (!check) return { kind: 'loading' };
  const { contentCheck, error } = check.canIPlayResponse;
  // A refusal shows whatever the show is doing: the viewer gets no URL of it anyway.
  if (contentCheck.access === 'none') return { kind: 'refused', error: error ?? { type: 'refused', message: 'this channel cannot be played here' } };
  const live = liveSource(check, status);
  switch (status?.state) {
    case 'STARTING':
      return { kind: 'starting', live: status.live ? live : null };
    case 'RECONNECTING':
      return { kind: 'reconnecting', live };
    case 'ENDED':
      return { kind: 'ended', recording: offeredVideo(check) };
    default:
  }
  if (status ? status.live : contentCheck.live) return { kind: 'live', source: live };
  if (status?.countdown && status.countdown.startsAt > now) return { kind: 'countdown', title: status.countdown.title, startsAt: status.countdown.startsAt };
  const video = offeredVideo(check);
  return video ? { kind: 'video', source: video } : { kind: 'offline' };
}

/** `ms` as the time left on a countdown: `1d 02:03:04`, `02:03:04`, `03:04`. */
export function timeLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (value: number) => String(value).padStart(2, '0');
  const clock = hours > 0 || days > 0 ? `${two(hours)}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
  return days > 0 ? `${days}d ${clock}` : clock;
}
