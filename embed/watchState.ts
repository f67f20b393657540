/** What the watch page is doing (embed/watch.ts), readable by the page around it (and by tests) as `window.stagegraphWatch`. */
import type { ChannelStatus } from './channelStatus';
import type { ConnectionState } from './liveClient';
import type { WatchViewKind } from './watchView';
import type { LiveEdgeState } from './watchLive';
import type { PlayerState } from './watchPlayer';

/** What the page is doing, readable by the page around it (and by tests) as `window.stagegraphWatch`. */
export interface WatchState extends ConnectionState {
  view: WatchViewKind;
  /** The show's state from the last status, null before one (or on a server without `channelStatus`). */
  show: ChannelStatus['state'] | null;
  /** The last status received (what every viewer of the channel gets), null as `show`. */
  status: ChannelStatus | null;
  /** Content checks answered so far. */
  checks: number;
  player: PlayerState;
  /** Rewind while live: how far behind the edge the viewer plays and how far back it may go. */
  liveEdge: LiveEdgeState;
  /** The channel's first chat panel, null when it has none. */
  chatPanelId: string | null;
  /** The sidebar's panels as shown, in order. */
  panels: { id: string; kind: string }[];
  /** The viewer is signed in (the page holds a token). */
  signedIn: boolean;
  /** The channel shown (a channel-select panel switches it in place). */
  channelId: string;
}
