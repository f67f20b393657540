/**
 * The overlay embed (`/sdk/v1/embed.js`, loaded by `/embed/v1/overlays?siteId=&channelId=`): a page
 * made to sit in an iframe over a site's player. It subscribes to `overlayBroadcasts(channelId)` over
 * graphql-ws on its own origin (Server-Sent Events when the socket cannot open: embed/liveClient.ts) and
 * shows each live overlay until CLEAR or its expiry; after a dropped connection it reconnects with
 * backoff, and the server sends the broadcasts still live again. The
 * player helper (`/sdk/v1/player.js`) sends the seed's `show:overlay` message on each viewer's own
 * timecode; in `mode=timecode` live pushes are held back, so nothing is shown ahead of the viewer's time.
 */
import { LiveClient, reportConnection, type ConnectionState } from './liveClient';
import {
  isSetTokenMessage,
  isShowOverlayMessage,
  overlayOf,
  OVERLAY_DOM_EVENT,
  SDK_MESSAGE_SOURCE,
  type BroadcastOverlay,
  type OverlayShown,
} from '../shared/contracts/viewerProtocol';
import { PollView, pollIdOf } from './polls';
import { renderOverlay, type CtaRequest } from './render';

const SUBSCRIPTION = /* GraphQL */ `subscription EmbedOverlays($channelId: ID) {
  overlayBroadcasts(channelId: $channelId) { kind broadcastId channelId remainingSeconds streamSecond overlay { id name type contents cta { type data } duration } }
}`;

interface BroadcastEvent {
  kind: 'SHOW' | 'CLEAR';
  broadcastId: string;
  channelId: string | null;
  remainingSeconds: number;
  streamSecond: number | null;
  overlay: BroadcastOverlay;
}

/** What the embed is doing, readable by the page (and by tests) as `window.stagegraphEmbed`. */
export interface EmbedState extends ConnectionState {
  mode: 'live' | 'timecode';
  /** broadcastIds of every live event received, in order (shown or held back). */
  received: string[];
  /** The seconds each live overlay was shown for, by broadcastId: the time it had left when it arrived. */
  shownFor: Record<string, number>;
}

/** Wait before subscribing again after the operation itself failed (not the connection, which retries on its own). */
const RESUBSCRIBE_MS = 15_000;

const params = new URLSearchParams(location.search);
const siteId = params.get('siteId') ?? '';
const channelId = params.get('channelId') || null;
const mode: EmbedState['mode'] = params.get('mode') === 'timecode' ? 'timecode' : 'live';
let token = params.get('token') || null;

const state: EmbedState = { mode, transport: null, connected: false, connections: 0, drops: 0, received: [], shownFor: {} };
(window as unknown as { stagegraphEmbed: EmbedState }).stagegraphEmbed = state;

const layer = document.getElementById('sg-overlays') ?? document.body;
const shown = new Map<string, { element: HTMLElement; timer: number; origin: OverlayShown['origin']; poll: PollView | null }>();

function hide(broadcastId: string): void {
  const entry = shown.get(broadcastId);
  if (!entry) return;
  clearTimeout(entry.timer);
  entry.poll?.close();
  entry.element.remove();
  shown.delete(broadcastId);
}

/** Asks the page around the embed to act on a CTA (log in, open a panel, share). */
function onCta(request: CtaRequest): void {
  const shared = request.type === 'social_share' && typeof navigator.share === 'function';
  if (shared) navigator.share({ url: document.referrer || location.href }).catch(() => undefined);
  // Nothing secret: the CTA is part of the broadcast every viewer received. `shared` tells the page around
  // the layer that the share sheet opened here (the watch page copies the link instead when it did not).
  window.parent.postMessage({ source: SDK_MESSAGE_SOURCE, action: 'cta', data: { ...request, shared } }, '*');
}

function show(overlay: BroadcastOverlay, broadcastId: string, origin: OverlayShown['origin'], seconds: number): void {
  hide(broadcastId);
  const element = renderOverlay(overlay, broadcastId, origin, onCta);
  const pollId = pollIdOf(overlay);
  const poll = pollId ? new PollView(pollId, channelId) : null;
  if (poll) {
    element.appendChild(poll.element);
    if (client) poll.connect(client, token !== null);
  }
  layer.appendChild(element);
  const timer = window.setTimeout(() => hide(broadcastId), Math.max(0, seconds) * 1000);
  shown.set(broadcastId, { element, timer, origin, poll });
  const detail: OverlayShown = { overlay, origin, broadcastId };
  window.dispatchEvent(new CustomEvent(OVERLAY_DOM_EVENT, { detail }));
}

function onBroadcast(event: BroadcastEvent): void {
  state.received.push(event.broadcastId);
  if (event.kind === 'CLEAR') {
    hide(event.broadcastId);
    return;
  }
  // Timecode mode: the player shows this at the viewer's own second; showing it now would spoil.
  if (mode === 'timecode') return;
  if (event.remainingSeconds > 0) {
    state.shownFor[event.broadcastId] = event.remainingSeconds;
    show(event.overlay, event.broadcastId, 'live', event.remainingSeconds);
  }
}

/** Live overlays shown before a reconnect: the server sends the ones still live again right after it. */
function dropLiveOverlays(): void {
  for (const [broadcastId, entry] of shown) if (entry.origin === 'live') hide(broadcastId);
}

let client: LiveClient | null = null;

function subscribe(): void {
  client?.dispose();
  const next = new LiveClient({
    siteId,
    token: () => token,
    ...reportConnection(state),
    // A token the server refuses (expired, another site's): carry on as an anonymous viewer.
    onTokenRefused: () => {
      token = null;
      // Polls shown meanwhile read the results only (the server sends them again once reconnected).
      for (const entry of shown.values()) entry.poll?.connect(next, false);
    },
  });
  client = next;
  next.subscribe<BroadcastEvent>(
    { query: SUBSCRIPTION, variables: { channelId } },
    {
      next: (result) => {
        const event = (result.data as { overlayBroadcasts?: BroadcastEvent } | null | undefined)?.overlayBroadcasts;
        if (event) onBroadcast(event);
      },
      // The operation itself failed (not the connection, which retries on its own): try again later.
      error: () => {
        if (client === next) setTimeout(() => client === next && subscribe(), RESUBSCRIBE_MS);
      },
      complete: () => undefined,
    },
    // Back after a drop: the server sends what is still live at once.
    dropLiveOverlays,
  );
  // Polls of overlays still shown (timecode ones survive a new token) follow to the new connection.
  for (const entry of shown.values()) entry.poll?.connect(next, token !== null);
}

window.addEventListener('message', (message: MessageEvent) => {
  // Any origin: the player helper runs on the site's own page (seed 001); the shape is what is checked.
  const overlay = isShowOverlayMessage(message.data) ? overlayOf(message.data.data) : null;
  if (overlay) {
    show(overlay, `timecode:${overlay.id}`, 'timecode', overlay.duration);
  } else if (isSetTokenMessage(message.data) && message.data.data !== token) {
    token = message.data.data;
    dropLiveOverlays();
    subscribe();
  }
});

if (siteId) subscribe();
