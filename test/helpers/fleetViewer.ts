/**
 * A live viewer of the fleet tests, whatever its transport (graphql-ws or graphql-sse): the broadcasts it
 * has had since it last (re)connected, and the gap from its stream ending to the live overlay being back.
 * The transport's client marks the viewer down and reconnected from its own hooks; the
 * `overlayBroadcasts` subscription's sink (`followOverlay`) does the rest of the bookkeeping.
 */
import { pause } from './wait';

/** A viewer through the balancer, with the time it went without the live overlay. */
export interface FleetViewer<C> {
  client: C;
  /** Broadcast IDs received since the stream last (re)connected. */
  sinceConnect: Set<string>;
  /** When the stream ended and the live overlay has not been back since; null while it is there. */
  downSince: number | null;
  longestGapMs: number;
  reconnects: number;
}

/** A viewer before its client is made (the client's hooks need the viewer to write into). */
export function newFleetViewer<C>(): FleetViewer<C> {
  return { client: null as unknown as C, sinceConnect: new Set(), downSince: null, longestGapMs: 0, reconnects: 0 };
}

/** Waits before a viewer's next attempt: jittered exponential backoff, as the embed does, so an audience dropped at once does not come back at once. */
export const retryBackoff = (retries: number) => pause(Math.min(4000, 250 * 2 ** retries) * (0.5 + Math.random() / 2));

/**
 * The sink of the viewer's `overlayBroadcasts` subscription: each SHOW is recorded, and the live
 * overlay's arrival closes the viewer's gap (its length kept when it is the longest yet).
 */
export function followOverlay<C>(viewer: FleetViewer<C>, live: () => string) {
  return {
    next: (result: { data?: { overlayBroadcasts?: { kind: string; broadcastId: string } } | null }) => {
      const event = result.data?.overlayBroadcasts;
      if (!event || event.kind !== 'SHOW') return;
      viewer.sinceConnect.add(event.broadcastId);
      if (event.broadcastId === live() && viewer.downSince !== null) {
        viewer.longestGapMs = Math.max(viewer.longestGapMs, Date.now() - viewer.downSince);
        viewer.downSince = null;
      }
    },
    error: () => undefined,
    complete: () => undefined,
  };
}

/** The longest gap any viewer had and how many viewers reconnected. */
export function viewerGaps(viewers: readonly FleetViewer<unknown>[]): { longestGapMs: number; reconnected: number } {
  return {
    longestGapMs: Math.max(...viewers.map((viewer) => viewer.longestGapMs)),
    reconnected: viewers.filter((viewer) => viewer.reconnects > 0).length,
  };
}
