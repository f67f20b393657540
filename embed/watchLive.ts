/**
 * Rewind while live (docs/design.md, "The show as its peers run it"): while a live stream plays, a seek bar
 * spans what the live playlist still holds (the provider's rewind window, channelStatus's `dvrSeconds`), and a
 * "Live" button — shown only when the viewer is behind the edge — returns to it. The bar sits under the
 * video, not over it: the overlay layer covers the stage, so the video's own controls could not be reached.
 */

/** Seconds behind the player's live position before the page offers "Live" (hls.js keeps a few fragments back by itself). */
const BEHIND_SECONDS = 6;

/** The part of the player the controls need. */
export interface LiveEdgeSource {
  /** Whether a live stream plays now. */
  live(): boolean;
  /** Where a live viewer plays when at the edge (hls.js's live sync position), null when unknown. */
  edge(): number | null;
}

/** What the page's state shows of it (tests read it). */
export interface LiveEdgeState {
  /** Seconds behind the live position, 0 at the edge or when nothing live plays. */
  behindSeconds: number;
  /** Seconds the seek bar spans (what may be rewound now). */
  windowSeconds: number;
}

/** Wires the seek bar and the "Live" button to the video; returns their state, kept current. */
export function attachLiveEdge(video: HTMLVideoElement, seek: HTMLInputElement, liveButton: HTMLButtonElement, source: LiveEdgeSource): LiveEdgeState {
  const state: LiveEdgeState = { behindSeconds: 0, windowSeconds: 0 };
  const update = () => {
    const ranges = video.seekable;
    const edge = source.live() ? source.edge() : null;
    if (edge === null || ranges.length === 0) {
      Object.assign(state, { behindSeconds: 0, windowSeconds: 0 });
      seek.hidden = true;
      liveButton.hidden = true;
      return;
    }
    const start = ranges.start(0);
    state.windowSeconds = Math.max(0, Math.round(edge - start));
    state.behindSeconds = Math.max(0, Math.round(edge - video.currentTime));
    seek.min = String(Math.floor(start));
    seek.max = String(Math.ceil(edge));
    seek.value = String(Math.round(video.currentTime));
    seek.setAttribute('aria-valuetext', state.behindSeconds > 0 ? `${state.behindSeconds} seconds behind live` : 'live');
    // A window no longer than what hls.js keeps behind the edge anyway is nothing to rewind.
    seek.hidden = state.windowSeconds <= BEHIND_SECONDS;
    liveButton.hidden = state.behindSeconds <= BEHIND_SECONDS;
  };
  for (const event of ['timeupdate', 'seeked', 'progress', 'emptied', 'durationchange']) video.addEventListener(event, update);
  seek.addEventListener('input', () => {
    video.currentTime = Number(seek.value);
  });
  liveButton.addEventListener('click', () => {
    const edge = source.edge();
    if (edge !== null) video.currentTime = edge;
    void video.play().catch(() => undefined);
  });
  return state;
}
