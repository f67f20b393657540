/**
 * The watch page's one contact with `channelStatus(channelId)` (docs/design.md "The show"): the subscription's
 * document, the shape it answers, and the subscription on the embed's live client. Everything else in
 * the page reads {@link ChannelStatus} from here, so a change in the contract is a change in this file.
 */
import type { ChannelStatus, ShowState } from '../shared/contracts/viewerProtocol';
import type { LiveClient } from './liveClient';

export type { ChannelStatus, ShowState } from '../shared/contracts/viewerProtocol';

const SUBSCRIPTION = /* GraphQL */ `subscription WatchChannelStatus($channelId: ID!) {
  channelStatus(channelId: $channelId) {
    channelId state live liveBroadcastId startedAt dvrSeconds streamSecond recordingVideoId playbackUrl
    countdown { title startsAt }
  }
}`;

const SHOW_STATES: readonly ShowState[] = ['OFFLINE', 'STARTING', 'LIVE', 'RECONNECTING', 'ENDED'];

/** The status in a result, when it has the contract's shape (a server of another version answers nothing usable). */
function statusOf(data: unknown): ChannelStatus | null {
  const status = (data as { channelStatus?: ChannelStatus } | null | undefined)?.channelStatus;
  if (!status || !SHOW_STATES.includes(status.state) || typeof status.live !== 'boolean') return null;
  return status;
}

export interface ChannelStatusHandlers {
  /** Each status the server sends (the first one at subscribe, then one per change). */
  onStatus(status: ChannelStatus): void;
  /** The operation itself was refused (a server without `channelStatus`, a channel of another site). */
  onUnavailable(): void;
}

/** Subscribes to the channel's status on `client`; returns what stops it. */
export function subscribeChannelStatus(client: LiveClient, channelId: string, handlers: ChannelStatusHandlers): () => void {
  return client.subscribe<unknown>(
    { query: SUBSCRIPTION, variables: { channelId } },
    {
      next: (result) => {
        const status = statusOf(result.data);
        if (status) handlers.onStatus(status);
        else if (result.errors?.length) handlers.onUnavailable();
      },
      error: () => handlers.onUnavailable(),
      complete: () => undefined,
    },
  );
}
