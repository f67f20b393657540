/**
 * A stream's state as admins see it, the event of a change, and the live feed that brings those events
 * to admins' `streamStateChanged` subscriptions (served by the gateway's live server from the bus).
 */
import type { StreamChange, StreamState, StreamStateEvent } from '../../shared/liveEvents';
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

/** Tells admins watching the site's streams; a bus failure is logged, the change itself stands. */
export async function announceStreamState(ctx: SubgraphContext, stream: Stream, change: StreamChange, time = Date.now()): Promise<void> {
  const event: StreamStateEvent = { streamId: stream.id, pageId: stream.pageId, change, time, liveBroadcastId: stream.liveBroadcastId, state: stateOf(stream) };
  try {
    await ctx.bus.publish(Topics.streamStates, { siteId: stream.siteId, event });
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, streamId: stream.id }, 'could not announce a stream state change');
  }
}

