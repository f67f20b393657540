/**
 * The watch page's `<video>`: plays an HLS URL (a live stream or a recording) with hls.js over Media
 * Source Extensions, or natively where the browser has no MSE but plays HLS itself (iOS Safari). hls.js
 * comes first where both exist: it behaves the same in every browser, and a browser's own HLS (Chromium's
 * is recent) reports less. A URL that fails (a live manifest gone during an outage, the CDN down) is loaded
 * again with backoff while it is still the one to play, so the player resumes by itself.
 */
import Hls, { ErrorTypes, Events, type ErrorData } from 'hls.js';
import { backoffDelay } from './liveClient';
import { sameStream, TOKEN_SEGMENT } from './playbackUrls';

/** What the player plays. */
export interface PlayerSource {
  url: string;
  kind: 'live' | 'vod';
  /** The Video it is (a recording's ID for the timeline), null for a live stream. */
  videoId: string | null;
  /** Seconds into a recording to start at (a scheduled video that started earlier). */
  offset: number;
}

/** How the page plays, readable by tests through the page's state. */
export interface PlayerState {
  engine: 'hls.js' | 'native' | null;
  /** Times a source was loaded again after failing. */
  reloads: number;
  /** Times a signed URL was renewed in place (the same stream under a new token), without reloading. */
  renewals: number;
  /** The renditions hls.js found in the master playlist (height 0: not stated), top last as hls.js orders them. */
  levels: { height: number; bitrate: number }[];
  /** The rendition playing now (an index into `levels`; hls.js switches by itself), -1 before one plays. */
  level: number;
}

export class WatchPlayer {
  readonly state: PlayerState = { engine: null, reloads: 0, renewals: 0, levels: [], level: -1 };
  private hls: Hls | null = null;
  private source: PlayerSource | null = null;
  private failures = 0;
  private retryTimer: number | undefined;

  constructor(private readonly video: HTMLVideoElement) {
    // hls.js reports its own errors; the element's are the native player's.
    video.addEventListener('error', () => this.state.engine === 'native' && this.failed());
    // Playing again resets the backoff: the next outage starts from a short wait.
    video.addEventListener('playing', () => {
      this.failures = 0;
    });
  }

  /** What plays now, or null. */
  get current(): PlayerSource | null {
    return this.source;
  }

  /** Where a live viewer plays at the edge: hls.js's live sync position, or the end of what the browser may seek. */
  liveEdge(): number | null {
    if (this.source?.kind !== 'live') return null;
    const sync = this.hls?.liveSyncPosition;
    if (typeof sync === 'number') return sync;
    const ranges = this.video.seekable;
    return ranges.length > 0 ? ranges.end(ranges.length - 1) : null;
  }

  /** Plays `source`; the same URL again keeps playing what is loaded (a live stream resumes, it does not restart). */
  play(source: PlayerSource): void {
    if (this.source?.url === source.url) return;
    // A renewed signed URL of what plays: hls.js's next requests carry the new token (xhrSetup), no reload, no stall.
    if (this.source && this.state.engine === 'hls.js' && sameStream(this.source.url, source.url)) {
      this.source = source;
      this.state.renewals += 1;
      return;
    }
    this.stop();
    this.source = source;
    this.video.dataset.source = source.kind;
    this.load();
  }

  /** Stops and empties the player. */
  stop(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.source = null;
    this.failures = 0;
    this.detach();
    delete this.video.dataset.source;
    Object.assign(this.state, { engine: null, levels: [], level: -1 });
  }

  private detach(): void {
    this.hls?.destroy();
    this.hls = null;
    if (this.video.hasAttribute('src')) {
      this.video.removeAttribute('src');
      this.video.load();
    }
  }

  private load(): void {
    const source = this.source;
    if (!source) return;
    const start = () => void this.video.play().catch(() => undefined);
    if (Hls.isSupported()) {
      this.state.engine = 'hls.js';
      const hls = new Hls({
        startPosition: source.offset > 0 ? source.offset : -1,
        // Every playlist and segment request carries the newest token of what plays (renewed by the check).
        xhrSetup: (xhr, url) => {
          const token = this.source ? TOKEN_SEGMENT.exec(this.source.url)?.[0] : undefined;
          if (token && TOKEN_SEGMENT.test(url)) xhr.open('GET', url.replace(TOKEN_SEGMENT, token), true);
        },
      });
      this.hls = hls;
      hls.on(Events.MANIFEST_PARSED, (_event, data) => {
        this.state.levels = data.levels.map((level) => ({ height: level.height, bitrate: level.bitrate }));
        start();
      });
      hls.on(Events.LEVEL_SWITCHED, (_event, data) => (this.state.level = data.level));
      hls.on(Events.ERROR, (_event, data: ErrorData) => {
        if (!data.fatal || this.hls !== hls) return;
        // A decoding hiccup is recovered in place; anything else loads the source again.
        if (data.type === ErrorTypes.MEDIA_ERROR && this.failures === 0) {
          this.failures += 1;
          hls.recoverMediaError();
        } else {
          this.failed();
        }
      });
      hls.loadSource(source.url);
      hls.attachMedia(this.video);
    } else if (this.video.canPlayType('application/vnd.apple.mpegurl')) {
      this.state.engine = 'native';
      if (source.offset > 0) this.video.addEventListener('loadedmetadata', () => (this.video.currentTime = source.offset), { once: true });
      this.video.src = source.url;
      start();
    }
  }

  private failed(): void {
    if (!this.source || this.retryTimer !== undefined) return;
    this.detach();
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = undefined;
      this.state.reloads += 1;
      this.load();
    }, backoffDelay(this.failures++));
  }
}
