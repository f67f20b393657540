/**
 * The player helper (`/sdk/v1/player.js`), for a site's own page: `stagegraph.attachTimecodeOverlays(...)`
 * reads the timeline of a recording and, on each whole second of the video's `timeupdate`, posts the
 * seed's message `{source: 'service:iframe:sdk:v1', action: 'show:overlay', data: overlay}` to the
 * embed's frame for the overlays broadcast at that second. A seek (forward or back) re-triggers them at
 * the same second of the video, so every viewer sees each overlay at its own time and nothing early.
 */
import { SDK_MESSAGE_SOURCE, SdkAction, type TimelineEntry } from '../shared/contracts/viewerProtocol';

export interface TimecodeChatOptions {
  /** The player. */
  video: HTMLMediaElement;
  /** The chat embed's iframe (`/embed/v1/chat?...&mode=timecode&liveBroadcastId=…`), or its window. */
  frame: HTMLIFrameElement | Window;
}

export interface TimecodeOptions {
  /** The player: a `<video>` (or anything with `currentTime` that fires `timeupdate` and `seeking`). */
  video: HTMLMediaElement;
  /** The embed's iframe (`/embed/v1/overlays?...&mode=timecode`), or its window. */
  frame: HTMLIFrameElement | Window;
  siteId: string;
  /** The recording: its live broadcast, or the Video its VOD became. */
  liveBroadcastId?: string;
  videoId?: string;
  /** Where stagegraph answers; default: the origin this script was loaded from. */
  baseUrl?: string;
  /**
   * More frames that get the same messages, asked at each post (the watch page's panel frames: seed 001,
   * "panels use the same data to update").
   */
  also?: () => Iterable<HTMLIFrameElement | Window>;
}

export interface TimecodeOverlays {
  /** Resolves with the timeline once it is loaded. */
  ready: Promise<TimelineEntry[]>;
  /** Stops listening to the video. */
  detach(): void;
}

// The origin of this script, captured while it runs for the first time (later currentScript is null).
const scriptOrigin = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL(src).origin : location.origin;
})();

/** The largest gap between two timeupdates still read as playing on (longer = a seek). */
const PLAYING_GAP_SECONDS = 2;

export function attachTimecodeOverlays(options: TimecodeOptions): TimecodeOverlays {
  const { video, siteId } = options;
  if (!options.liveBroadcastId === !options.videoId) throw new Error('attachTimecodeOverlays needs liveBroadcastId or videoId (one of them)');
  const query = options.liveBroadcastId
    ? `liveBroadcastId=${encodeURIComponent(options.liveBroadcastId)}`
    : `videoId=${encodeURIComponent(options.videoId as string)}`;
  const bySecond = new Map<number, TimelineEntry['overlay'][]>();
  let lastSecond: number | null = null;

  const post = (second: number) => {
    const overlays = bySecond.get(second);
    if (!overlays) return;
    const frames = [options.frame, ...(options.also?.() ?? [])];
    for (const overlay of overlays) {
      for (const frame of frames) {
        const target = 'contentWindow' in frame ? frame.contentWindow : frame;
        target?.postMessage({ source: SDK_MESSAGE_SOURCE, action: SdkAction.showOverlay, data: overlay }, '*');
      }
    }
  };

  // Whole seconds, rounded down: an overlay never shows before the second it was broadcast at.
  const onTime = () => {
    const second = Math.floor(video.currentTime);
    if (second === lastSecond) return;
    const playingOn = lastSecond !== null && second > lastSecond && second - lastSecond <= PLAYING_GAP_SECONDS;
    // Playing on: every second passed since the last update; after a seek: the second landed on.
    for (let at = playingOn ? (lastSecond as number) + 1 : second; at <= second; at += 1) post(at);
    lastSecond = second;
  };
  const onSeeking = () => {
    lastSecond = null;
  };

  const ready = fetch(`${options.baseUrl ?? scriptOrigin}/overlay/v1/timeline?${query}`, { headers: { 'x-service-client-id': siteId } }).then(
    async (response) => {
      if (!response.ok) throw new Error(`timeline: ${response.status}`);
      const timeline = (await response.json()) as TimelineEntry[];
      for (const entry of timeline) bySecond.set(entry.second, [...(bySecond.get(entry.second) ?? []), entry.overlay]);
      video.addEventListener('timeupdate', onTime);
      video.addEventListener('seeking', onSeeking);
      return timeline;
    },
  );
  return {
    ready,
    detach() {
      video.removeEventListener('timeupdate', onTime);
      video.removeEventListener('seeking', onSeeking);
    },
  };
}

/**
 * Drives a chat embed in timecode mode: on each whole second of the video (and after a seek) it posts
 * `{source, action: 'chat:time', data: second}`; the embed shows the recording's messages up to it.
 */
export function attachTimecodeChat(options: TimecodeChatOptions): { detach(): void } {
  let lastSecond: number | null = null;
  const onTime = () => {
    const second = Math.floor(options.video.currentTime);
    if (second === lastSecond) return;
    lastSecond = second;
    const target = 'contentWindow' in options.frame ? options.frame.contentWindow : options.frame;
    target?.postMessage({ source: SDK_MESSAGE_SOURCE, action: SdkAction.chatTime, data: second }, '*');
  };
  const onSeeking = () => {
    lastSecond = null;
  };
  options.video.addEventListener('timeupdate', onTime);
  options.video.addEventListener('seeking', onSeeking);
  return {
    detach() {
      options.video.removeEventListener('timeupdate', onTime);
      options.video.removeEventListener('seeking', onSeeking);
    },
  };
}
