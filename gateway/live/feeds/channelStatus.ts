/**
 * The `channelStatus` subscription: a channel's show for every viewer of it on this instance, on every
 * transport (graphql-ws, SSE, multipart HTTP through the live server's streams).
 *
 * Per channel with subscribers here, the instance keeps the status as the site ID alone reads it (the
 * content subgraph computes it; it never holds more than any viewer of the site may see). The
 * integrations subgraph announces a changed show on the bus (Topics.channelStatus) after it has dropped
 * the content caches; the instance then reads the status once and, when it changed, renders it once per
 * distinct document and writes it to each viewer. A channel that is not one of the site's is refused
 * at subscribe with NOT_FOUND.
 *
 * A gated channel's live status carries no URL (the site ID alone may not play it). A viewer whose
 * connection names its account and device gets its own URL in the push when the content check, answered
 * from what the instance keeps (the viewer opened the page: its check ran and its entitlements and device
 * are kept), lets it play the live show in full: signed, as the check gives it. So a go-live reaches an
 * entitled audience in one push, without thousands of checks asked at the same instant. Anyone else — a
 * refused viewer, one the instance keeps nothing of — gets the status without a URL, and asks the check.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Identity } from '../../../shared/auth/identity';
import type { QuickAnswers } from '../../../shared/quickAnswers';
import { Topics, type EventBus } from '../../../shared/bus';
import type { ChannelStatus, ChannelStatusMessage } from '../../../shared/contracts/channelStatus';
import { ErrorCode } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { Logger } from '../../../shared/logger';
import { recordShowDelivery } from '../../../shared/showMetrics';
import { PassSlices } from '../passSlices';
import type { LiveStream, LiveStreamSubscription } from '../streams';
import type { RenderedEvent } from '../viewerChannel';

const LOAD_STATUS = /* GraphQL */ `
  query LiveChannelStatus($channelId: ID!) {
    channelStatus(channelId: $channelId) { channelId state live liveBroadcastId startedAt dvrSeconds streamSecond recordingVideoId playbackUrl countdown { title startsAt } }
  }
`;
export const CHANNEL_STATUS_OPERATIONS = [LOAD_STATUS];

type Execute = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

/** Where the feed reads a channel's status; throws a GraphQLError (NOT_FOUND) for a channel that is not the site's. */
export type ChannelStatusSource = (siteId: string, channelId: string) => Promise<ChannelStatus>;

/** Reads through the gateway as the site ID alone reads it, so a push never carries more than a viewer may see. */
export function channelStatusSource(execute: Execute): ChannelStatusSource {
  return async (siteId, channelId) => {
    const viewer: Identity = { siteId, developerKey: false, account: null, requestId: newId() };
    const result = await execute({ query: LOAD_STATUS, variables: { channelId } }, viewer);
    const [error] = result.errors ?? [];
    if (error) throw new GraphQLError(error.message, { extensions: { code: error.extensions?.code } });
    return (result.data as { channelStatus: ChannelStatus }).channelStatus;
  };
}

/**
 * The viewer's own URL of a channel's live show, or null: what the content check gives this viewer (its
 * account, its device) when it lets it play the live video in full.
 */
export type ViewerPlayback = (identity: Identity, channelId: string, deviceId: string) => Promise<string | null>;

type CheckFields = { canIPlayResponse?: { contentCheck?: { access?: unknown; live?: unknown; video?: { video?: { type?: unknown; url?: unknown } | null } } } };

/**
 * The viewer's URL from the content check's quick answer (shared/quickAnswers.ts): only its kept happy
 * case, never a database read; null whenever that answer is not a full, live one with a URL.
 */
export function viewerPlaybackOf(answers: QuickAnswers): ViewerPlayback {
  return async (identity, channelId, deviceId) => {
    const answer = answers.contentCheck && (await answers.contentCheck({ pageId: channelId, slug: null, deviceId, password: null }, identity));
    const check = (answer as CheckFields | null)?.canIPlayResponse?.contentCheck;
    const video = check?.video?.video;
    return check?.access === 'full' && check.live === true && video?.type === 'live' && typeof video.url === 'string' ? video.url : null;
  };
}

interface ChannelState {
  key: string;
  siteId: string;
  channelId: string;
  status: ChannelStatus | null;
  /** What a change is compared on: the status without the seconds that advance on their own. */
  signature: string;
  /** Bumped whenever the status changed. */
  version: number;
  loaded: Promise<void>;
  /** Each viewer with the version it last got (-1: nothing yet), so no one gets the same status twice. */
  viewers: Map<LiveStreamSubscription, number>;
  /** A change was announced since the last read; the earliest acceptance time among them. */
  pendingSince: number | null;
  running: boolean;
  closed: boolean;
}

// dvrSeconds grows by itself too, up to the window: a viewer derives it from startedAt between pushes.
const signatureOf = (status: ChannelStatus) => JSON.stringify({ ...status, streamSecond: null, dvrSeconds: null });

export class ChannelStatusFeed implements LiveStream {
  private readonly channels = new Map<string, ChannelState>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly load: ChannelStatusSource,
    bus: EventBus,
    private readonly logger: Logger,
    /** Each viewer's own URL of a gated live show (see the header); none: every viewer gets the status as the site ID reads it. */
    private readonly viewerPlayback: ViewerPlayback | null = null,
  ) {
    this.unsubscribe = bus.subscribe(Topics.channelStatus, (message) => this.onMessage(message as ChannelStatusMessage));
  }

  close(): void {
    this.unsubscribe();
    for (const state of this.channels.values()) state.closed = true;
    this.channels.clear();
  }

  subscribe(subscription: LiveStreamSubscription): () => void {
    const siteId = subscription.identity.siteId as string;
    const state = this.stateOf(siteId, String(subscription.args.channelId));
    state.viewers.set(subscription, -1);
    void state.loaded.then(async () => {
      const { status, version } = state;
      if (!status || state.viewers.get(subscription) !== -1) return;
      state.viewers.set(subscription, version);
      const own = this.mayOwnUrl(subscription, status) ? await this.statusFor(subscription, state, status) : status;
      // Gone meanwhile, or a newer status went to it.
      if (state.viewers.get(subscription) === version) subscription.send(subscription.render({ channelStatus: own }));
    });
    return () => {
      state.viewers.delete(subscription);
      if (state.viewers.size === 0) this.drop(state);
    };
  }

  /** Channels with subscribers on this instance (for tests and the bench). */
  get size(): number {
    return this.channels.size;
  }

  private stateOf(siteId: string, channelId: string): ChannelState {
    const key = `${siteId}\u0000${channelId}`;
    const existing = this.channels.get(key);
    if (existing) return existing;
    const state: ChannelState = {
      key,
      siteId,
      channelId,
      status: null,
      signature: '',
      version: 0,
      loaded: Promise.resolve(),
      viewers: new Map(),
      pendingSince: null,
      running: false,
      closed: false,
    };
    state.loaded = this.load(siteId, channelId).then(
      (status) => {
        state.status = status;
        state.signature = signatureOf(status);
      },
      (error: unknown) => this.failAll(state, error),
    );
    this.channels.set(key, state);
    return state;
  }

  private drop(state: ChannelState): void {
    state.closed = true;
    if (this.channels.get(state.key) === state) this.channels.delete(state.key);
  }

  /** The channel cannot be read (not the site's, or deleted): every subscriber gets the error, and the state goes. */
  private failAll(state: ChannelState, error: unknown): void {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : new GraphQLError('the channel status is unavailable, try again shortly', { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } });
    if (!(error instanceof GraphQLError)) this.logger.warn({ err: (error as Error).message, channelId: state.channelId }, 'could not read a channel status');
    this.drop(state);
    for (const viewer of [...state.viewers.keys()]) viewer.fail([graphqlError]);
    state.viewers.clear();
  }

  private onMessage(message: ChannelStatusMessage): void {
    if (!message || typeof message !== 'object' || typeof message.channelId !== 'string') return;
    const state = this.channels.get(`${message.siteId}\u0000${message.channelId}`);
    if (!state || state.closed) return;
    const acceptedAt = typeof message.acceptedAt === 'number' ? message.acceptedAt : Date.now();
    state.pendingSince = Math.min(state.pendingSince ?? acceptedAt, acceptedAt);
    void this.push(state);
  }

  /** Reads the status after an announced change and writes it to every viewer when it changed; changes announced meanwhile are read next. */
  private async push(state: ChannelState): Promise<void> {
    if (state.running) return;
    state.running = true;
    try {
      await state.loaded;
      while (state.pendingSince !== null && !state.closed) {
        const acceptedAt = state.pendingSince;
        state.pendingSince = null;
        let status: ChannelStatus;
        try {
          status = await this.load(state.siteId, state.channelId);
        } catch (error) {
          if (error instanceof GraphQLError && error.extensions.code === ErrorCode.NOT_FOUND) this.failAll(state, error);
          else this.logger.warn({ err: (error as Error).message, channelId: state.channelId }, 'could not read a changed channel status');
          return;
        }
        const signature = signatureOf(status);
        if (signature === state.signature || state.closed) continue;
        state.status = status;
        state.signature = signature;
        state.version += 1;
        await this.send(state, status, state.version);
        recordShowDelivery(acceptedAt);
      }
    } finally {
      state.running = false;
    }
  }

  /** Whether the viewer may get its own URL in `status`: a live show without one, to a signed-in viewer that named its device. */
  private mayOwnUrl(viewer: LiveStreamSubscription, status: ChannelStatus): boolean {
    return this.viewerPlayback !== null && status.live && status.playbackUrl === null && viewer.identity.account !== null && viewer.deviceId !== null;
  }

  /**
   * The status as this viewer gets it: with its own URL of a gated live show when it may play it (see the
   * header), else as the site ID reads it. Its own URL is signed per second, so viewers share it.
   */
  private async statusFor(viewer: LiveStreamSubscription, state: ChannelState, status: ChannelStatus): Promise<ChannelStatus> {
    let url: string | null = null;
    try {
      url = await this.viewerPlayback!(viewer.identity, state.channelId, viewer.deviceId!);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message, channelId: state.channelId }, 'could not weigh a viewer’s own playback URL');
    }
    return url === null ? status : { ...status, playbackUrl: url };
  }

  /** One rendering per distinct document and URL (a handful per channel), whatever the number of viewers. */
  private async send(state: ChannelState, status: ChannelStatus, version: number): Promise<void> {
    const rendered = new Map<string, RenderedEvent>();
    const viewers = [...state.viewers.keys()];
    const slices = new PassSlices();
    for (let index = 0; index < viewers.length; index += 1) {
      if (slices.spent()) await slices.yield();
      const viewer = viewers[index];
      // Gone, or its first event (sent meanwhile) already is this status.
      const sent = state.viewers.get(viewer);
      if (sent === undefined || sent >= version) continue;
      state.viewers.set(viewer, version);
      const own = this.mayOwnUrl(viewer, status) ? await this.statusFor(viewer, state, status) : status;
      if (own !== status && state.viewers.get(viewer) !== version) continue;
      const key = own === status ? viewer.documentKey : `${viewer.documentKey}\n${own.playbackUrl}`;
      let payload = rendered.get(key);
      if (!payload) rendered.set(key, (payload = viewer.render({ channelStatus: own })));
      viewer.send(payload);
    }
  }
}
