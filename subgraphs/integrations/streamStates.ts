/**
 * A stream's state as admins see it, the event of a change, and the live feed that brings those events
 * to admins' `streamStateChanged` subscriptions (served by the gateway's live server from the bus).
 */
import type { SimulcastTargetStatus, StreamChange, StreamState, StreamStateEvent } from '../../shared/contracts/liveEvents';
import { Topics } from '../../shared/bus';
import type { Stream } from '../../shared/db/generated/sqlite';
import type { SubgraphContext } from '../../shared/subgraph';

export function stateOf(stream: Stream): StreamState {
  return {
    ingestEnabled: stream.ingestEnabled,
    ingestConnected: stream.ingestConnected,
    playbackLive: stream.playbackLive,
    recording: stream.recording,
    ingestChangedAt: stream.ingestChangedAt?.getTime() ?? null,
    playbackChangedAt: stream.playbackChangedAt?.getTime() ?? null,
  };
}

/**
 * Tells admins watching the site's streams; held through a Redis blip, the latest state per stream. An event
 * carrying the simulcast targets is held apart, so neither kind replaces the other while held.
 */
export function announceStreamState(
  ctx: Pick<SubgraphContext, 'bus'>,
  stream: Stream,
  change: StreamChange,
  time = Date.now(),
  simulcastTargets: SimulcastTargetStatus[] | null = null,
): void {
  const event: StreamStateEvent = {
    streamId: stream.id,
    pageId: stream.pageId,
    change,
    time,
    liveBroadcastId: stream.liveBroadcastId,
    state: stateOf(stream),
    simulcastTargets,
  };
  ctx.bus.announce(Topics.streamStates, simulcastTargets ? `${stream.id}:simulcast` : stream.id, 'latest', { siteId: stream.siteId, event });
}
