/**
 * The watch page's script (`/sdk/v1/watch.js`, loaded by `/embed/v1/watch?siteId=&channelId=[&token=]`):
 * it asks the content check what this viewer may play (a device ID kept in the browser, the token as
 * Bearer), follows the channel's show on the embed's one live client (`channelStatus`, embed/channelStatus.ts),
 * and shows what embed/watchView.ts decides: the live stream with the live overlays, "reconnecting", the
 * countdown, "the show has ended" and its recording with the overlays of its timeline at their seconds,
 * or the check's refusal — never a URL it refuses. The channel's panels, look, CTAs and the viewer's
 * sign-in are embed/watchChannel.ts's; the timecode reaches the panels' frames as it reaches the overlays.
 */
import { SDK_MESSAGE_SOURCE, SdkAction, isSetTokenMessage } from '../shared/contracts/viewerProtocol';
import { subscribeChannelStatus, type ChannelStatus } from './channelStatus';
import { backoffDelay, LiveClient, reportConnection } from './liveClient';
import { attachTimecodeOverlays, type TimecodeOverlays } from './player';
import { deviceId } from './watchDevice';
import { ChannelParts, type CheckedChannel } from './watchChannel';
import { forgetTokenInAddress } from './watchSignIn';
import { renderView } from './watchScreens';
import { watchViewOf, type ContentCheckAnswer, type WatchView } from './watchView';
import type { WatchState } from './watchState';
import { playbackExpiry, sameStream } from './playbackUrls';
import { WatchPlayer, type PlayerSource } from './watchPlayer';
import { attachLiveEdge } from './watchLive';

/** A check or subscription the server refused is tried again after this long (a server of another version). */
const RETRY_UNAVAILABLE_MS = 30_000;
/** Checks asked again while live without a URL to play. */
const LIVE_URL_TRIES = 5;
/**
 * A gated show that goes live with this viewer's own signed URL in its push plays at once; the check (what
 * renews the URL, well before it expires) is then asked within this long, each viewer at a time of its own,
 * so an audience does not ask it all in the same second.
 */
const CHECK_SPREAD_MS = 10_000;

const params = new URLSearchParams(location.search);
const siteId = params.get('siteId') ?? '';
let channelId = params.get('channelId') ?? '';
let token = params.get('token') || null;
const inviteToken = params.get('inviteToken');
const loginIntent = params.get('loginIntent');
let password: string | null = null;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const video = byId<HTMLVideoElement>('player');
const overlays = byId<HTMLIFrameElement>('overlays');
const sound = byId<HTMLButtonElement>('sg-watch-sound');

const player = new WatchPlayer(video);
const liveEdge = attachLiveEdge(video, byId<HTMLInputElement>('sg-watch-seek'), byId<HTMLButtonElement>('sg-watch-live'), {
  live: () => player.current?.kind === 'live',
  edge: () => player.liveEdge(),
});
const state: WatchState = {
  view: 'loading',
  show: null,
  status: null,
  checks: 0,
  player: player.state,
  liveEdge,
  chatPanelId: null,
  panels: [],
  signedIn: false,
  channelId,
  transport: null,
  connected: false,
  connections: 0,
  drops: 0,
};
(window as unknown as { stagegraphWatch: WatchState }).stagegraphWatch = state;

let check: ContentCheckAnswer | null = null;
let status: ChannelStatus | null = null;
let unavailable: string | null = null;

// ------------------------------------------------------------------ the device and the viewer

const device = deviceId();

const viewerHeaders = (): Record<string, string> => ({ 'x-service-client-id': siteId, ...(token ? { authorization: `Bearer ${token}` } : {}) });

// ------------------------------------------------------------------ the content check

let checking: Promise<void> | null = null;
let checkAgain = false;
let checkTimer: number | undefined;
let checkFailures = 0;

/** Asks the check now (once more after the one in flight, when one is). */
function askCheck(): void {
  clearTimeout(checkTimer);
  if (checking) {
    checkAgain = true;
    return;
  }
  checking = runCheck().finally(() => {
    checking = null;
    if (checkAgain) {
      checkAgain = false;
      askCheck();
    }
  });
}

const askCheckIn = (ms: number) => {
  clearTimeout(checkTimer);
  checkTimer = window.setTimeout(askCheck, ms);
};

async function runCheck(): Promise<void> {
  const headers = { ...viewerHeaders(), 'x-service-device-id': device, ...(password ? { 'x-service-gate-password': password } : {}) };
  let response: Response;
  try {
    response = await fetch(`/pages/v2/content/id/${encodeURIComponent(channelId)}`, { headers });
  } catch {
    askCheckIn(backoffDelay(checkFailures++));
    return;
  }
  if ((response.status === 401 || response.status === 403) && token) {
    dropToken();
    return;
  }
  if (response.status >= 500 || response.status === 429) {
    askCheckIn(backoffDelay(checkFailures++));
    return;
  }
  checkFailures = 0;
  if (!response.ok) {
    unavailable = response.status === 404 ? 'This channel is not available' : 'This channel cannot be played here';
    check = null;
    render();
    return;
  }
  unavailable = null;
  check = (await response.json()) as ContentCheckAnswer;
  state.checks += 1;
  try {
    parts.onChannel((check as ContentCheckAnswer & { channel?: CheckedChannel }).channel);
  } catch (error) {
    // The channel's look is decoration: whatever fails in it, the video plays.
    console.warn('stagegraph watch: the channel’s look could not be shown', error);
  }
  const { contentCheck } = check.canIPlayResponse;
  // A free preview ends by the clock: ask again when it runs out (the check then refuses).
  if (contentCheck.access === 'preview') askCheckIn(Math.max(1, contentCheck.previewTimeRemainingSeconds) * 1000);
  // A signed URL is renewed before it expires by asking again: a third of its life early, and at least 5 s.
  const signedUrl = contentCheck.access === 'full' ? contentCheck.video?.video?.url : null;
  const expiry = signedUrl ? playbackExpiry(signedUrl) : null;
  if (expiry !== null) {
    const left = expiry - Date.now();
    askCheckIn(Math.max(1000, left - Math.max(5000, left / 3)));
  }
  render();
}

// ------------------------------------------------------------------ the overlay layer

let overlayKey = overlays.getAttribute('src') ?? '';
let overlaysReady: Promise<void> = Promise.resolve();
let timecode: TimecodeOverlays | null = null;

/**
 * Points the overlay layer at live pushes (`videoId` null) or at a recording's timeline (the player helper
 * posts each overlay at its second); resolves once the layer listens, so nothing posted is lost.
 */
function overlaysFor(videoId: string | null): Promise<void> {
  const query = new URLSearchParams({ siteId, channelId, ...(token ? { token } : {}), ...(videoId ? { mode: 'timecode' } : {}) });
  const key = `/embed/v1/overlays?${query.toString()}${videoId ? `#${videoId}` : ''}`;
  if (key === overlayKey) return overlaysReady;
  overlayKey = key;
  timecode?.detach();
  timecode = null;
  overlaysReady = new Promise<void>((resolve) => {
    overlays.addEventListener('load', () => resolve(), { once: true });
    overlays.src = key.split('#')[0];
  }).then(async () => {
    if (!videoId || overlayKey !== key) return;
    // The panels' frames get each overlay at its second too (seed 001: "panels use the same data to update").
    const attached = attachTimecodeOverlays({ video, frame: overlays, siteId, videoId, also: () => parts.sidebar.frames() });
    timecode = attached;
    // A video without a timeline (not a recording of ours) plays without timecode overlays.
    await attached.ready.catch(() => undefined);
  });
  return overlaysReady;
}

let recordingWanted: string | null = null;
/** A playlist panel's video the viewer chose, null when none. */
let chosen: PlayerSource | null = null;

/** Plays a recording once its overlays listen, so the overlay of its first second is not missed. */
function playRecording(source: PlayerSource): void {
  recordingWanted = source.url;
  const ready = overlaysFor(source.videoId);
  if (player.current?.url === source.url) return;
  // The same recording under a renewed token plays on (the player takes the new token in place).
  if (player.current && sameStream(player.current.url, source.url)) return player.play(source);
  player.stop();
  void ready.then(() => {
    if (recordingWanted === source.url) player.play(source);
  });
}

// ------------------------------------------------------------------ the view

let countdownTimer: number | undefined;
const screenContext = () => ({ token: token !== null, passwordSent: password !== null });
let lastView: WatchView = { kind: 'loading' };
let liveWithoutUrl = 0;

function render(): void {
  const view: WatchView = unavailable ? { kind: 'unavailable', message: unavailable } : watchViewOf(check, status, Date.now());
  lastView = view;
  state.view = view.kind;
  clearInterval(countdownTimer);
  // A playlist's video the viewer chose plays on while the channel has nothing live (the show comes first).
  if (chosen && !['offline', 'video', 'ended'].includes(view.kind)) chosen = null;
  const recording = chosen ?? (view.kind === 'video' ? view.source : view.kind === 'ended' ? view.recording : null);
  if (recording) {
    playRecording(recording);
  } else {
    recordingWanted = null;
    void overlaysFor(null);
    const live = view.kind === 'live' ? view.source : view.kind === 'starting' || view.kind === 'reconnecting' ? view.live : null;
    if (live) player.play(live);
    // Reconnecting or starting with nothing new to play: the live player stays, and resumes by itself.
    else if (!((view.kind === 'reconnecting' || view.kind === 'starting') && player.current?.kind === 'live')) player.stop();
    // Live without a URL (a gate: the status carries none): the check has it, once its cache has the change.
    // A few tries only: a channel live by the admin's switch alone plays from elsewhere, with no URL of ours.
    if (view.kind === 'live' && !view.source && status && liveWithoutUrl < LIVE_URL_TRIES) askCheckIn(backoffDelay(liveWithoutUrl++));
    else if (view.kind !== 'live') liveWithoutUrl = 0;
  }
  renderView(view, screenContext());
  // A recording starts once its overlays listen: the button shows with the source it will sound.
  sound.hidden = !player.current && !recordingWanted;
  if (view.kind === 'countdown') {
    countdownTimer = window.setInterval(() => {
      renderView(lastView, screenContext());
      // The start has come: what plays now may have changed (a scheduled video).
      if (view.startsAt <= Date.now()) {
        clearInterval(countdownTimer);
        askCheck();
      }
    }, 1000);
  }
}

// ------------------------------------------------------------------ the show's status

let client: LiveClient | null = null;
let statusKey = '';

function onStatus(next: ChannelStatus): void {
  status = next;
  state.status = next;
  state.show = next.state;
  // What the check answers changes with these: ask it again (it is served from the instance's cache).
  const key = [next.state, next.live, next.liveBroadcastId, next.recordingVideoId, next.playbackUrl].join('|');
  if (key !== statusKey) {
    statusKey = key;
    const ownUrl = next.playbackUrl !== null && playbackExpiry(next.playbackUrl) !== null && check?.canIPlayResponse.contentCheck.access === 'full';
    if (ownUrl) askCheckIn(Math.random() * CHECK_SPREAD_MS);
    else askCheck();
  }
  render();
}

function connect(): void {
  client?.dispose();
  const next = new LiveClient({ siteId, token: () => token, deviceId: device, ...reportConnection(state), onTokenRefused: dropToken });
  client = next;
  subscribeChannelStatus(next, channelId, {
    onStatus: (value) => client === next && onStatus(value),
    onUnavailable: () => {
      if (client !== next) return;
      // No status (a server without the show's push): the check alone decides, asked again now and then.
      status = null;
      state.status = null;
      state.show = null;
      render();
      window.setTimeout(() => {
        if (client !== next) return;
        askCheck();
        connect();
      }, RETRY_UNAVAILABLE_MS);
    },
  });
}

// ------------------------------------------------------------------ the channel around the video and the viewer

/** Shows another channel of the site in place (a channel-select panel): its show, overlays and panels. */
function switchChannel(next: string): void {
  if (next === channelId || !/^[\w-]{1,128}$/.test(next)) return;
  channelId = next;
  state.channelId = next;
  const url = new URL(location.href);
  url.searchParams.set('channelId', next);
  history.pushState(null, '', url);
  check = null;
  chosen = null;
  status = null;
  statusKey = '';
  unavailable = null;
  player.stop();
  render();
  askCheck();
  connect();
  void loadChannel();
}

async function loadChannel(): Promise<void> {
  await parts.load();
  state.chatPanelId = parts.sidebar.chatPanelId;
  state.panels = parts.sidebar.shown;
  parts.sidebar.refresh();
}

/** Plays a video of a playlist panel when the check lets this viewer play the channel. */
function playVideo(videoId: string): void {
  if (check?.canIPlayResponse.contentCheck.access !== 'full') {
    parts.toast('This video cannot be played here');
    return;
  }
  void parts.videoUrl(videoId).then((url) => {
    if (!url) return parts.toast('This video cannot be played here');
    chosen = { url, kind: 'vod', videoId, offset: 0 };
    render();
  });
}

const parts = new ChannelParts({
  siteId,
  channelId: () => channelId,
  token: () => token,
  setToken: (next) => setToken(next),
  client: () => client,
  switchChannel,
  playVideo,
});

/** A new viewer token (or none): everything the viewer sees is asked again as them, in every frame of ours. */
function setToken(next: string | null): void {
  if (next === token) return;
  token = next;
  state.signedIn = token !== null;
  if (!token) forgetTokenInAddress();
  parts.signIn.showSignedIn(token !== null);
  askCheck();
  connect();
  parts.sidebar.refresh();
}

/** The server refused the token (expired, another site's): the viewer carries on anonymous (the live client drops it by itself). */
function dropToken(): void {
  token = null;
  state.signedIn = false;
  parts.signIn.forget();
  parts.signIn.showSignedIn(false);
  forgetTokenInAddress();
  askCheck();
  parts.sidebar.refresh();
}

window.addEventListener('message', (message: MessageEvent) => {
  if (parts.onMessage(message, overlays.contentWindow)) return;
  // The site's page around a framed watch page hands over its viewer's token, as it does to the embed.
  if (message.source === window.parent && message.source !== window && isSetTokenMessage(message.data) && message.data.data !== token)
    setToken(message.data.data);
});

byId<HTMLFormElement>('sg-watch-password').addEventListener('submit', (event) => {
  event.preventDefault();
  password = (event.currentTarget as HTMLFormElement).querySelector('input')?.value ?? null;
  askCheck();
});
byId<HTMLButtonElement>('sg-watch-login').addEventListener('click', () => {
  // The site's page around a framed watch page may sign its viewer in itself; this page offers its own sign-in too.
  window.parent.postMessage({ source: SDK_MESSAGE_SOURCE, action: SdkAction.login }, '*');
  parts.signIn.open('Sign in to watch this channel');
});
window.addEventListener('popstate', () => switchChannel(new URLSearchParams(location.search).get('channelId') ?? channelId));
sound.addEventListener('click', () => {
  video.muted = !video.muted;
  sound.textContent = video.muted ? 'Sound on' : 'Sound off';
});

/** The viewer at page open: the page's `token`, else the session kept from an earlier visit; then a login intent's, or a magic link's invite. */
async function start(): Promise<void> {
  token ??= parts.signIn.restore()?.jwt ?? null;
  state.signedIn = token !== null;
  parts.signIn.showSignedIn(token !== null);
  const before = token;
  if (loginIntent) await parts.openLoginIntent(loginIntent);
  if (inviteToken) await parts.openInvite(inviteToken);
  // Signed in by the intent or the invite: setToken has asked everything as the viewer already.
  if (token !== before) return;
  askCheck();
  connect();
}

if (siteId && channelId) {
  void start();
  void loadChannel();
}
