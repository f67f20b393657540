/**
 * The watch page's screens over the stage, one per view: the status badge, the countdown (title and time
 * left), a message (offline, starting, reconnecting, the show has ended), and the check's refusal with
 * what the viewer can do about it (a password form, a sign-in button). All text goes in as text.
 */
import { timeLeft, type WatchView } from './watchView';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** The refusal's heading by the check's error type; its message (the server's words) goes under it. */
const REFUSAL_TITLES: Record<string, string> = {
  login_required: 'Sign in to watch',
  gate_password: 'This channel needs its password',
  entitlement_required: 'A ticket is needed to watch',
  video_entitlement_required: 'A ticket is needed for this video',
  device_limit: 'Too many devices',
  banned: 'This account is banned from this site',
};

/** The badge in the stage's corner. */
function badgeOf(view: WatchView): string {
  switch (view.kind) {
    case 'live':
      return 'Live';
    case 'starting':
      return 'Starting';
    case 'reconnecting':
      return 'Reconnecting';
    case 'ended':
      return view.recording ? 'Recording' : '';
    default:
      return '';
  }
}

/** The message over the stage, or null to show the video. */
function messageOf(view: WatchView): string | null {
  switch (view.kind) {
    case 'loading':
      return 'Loading…';
    case 'unavailable':
      return view.message;
    case 'offline':
      return 'This channel is offline';
    case 'starting':
      return view.live ? null : 'The show is starting…';
    case 'reconnecting':
      return 'Reconnecting…';
    case 'ended':
      // The recording plays under the badge; without one, the message stays.
      return view.recording ? null : 'The show has ended';
    case 'live':
      return view.source ? null : 'Live — waiting for the stream…';
    default:
      return null;
  }
}

export interface ScreenContext {
  /** The viewer is signed in (a sign-in button would do nothing new). */
  token: boolean;
  /** A password was sent: the check's words say what was wrong with it (before, the form says it all). */
  passwordSent: boolean;
}

/** Shows `view` on the page's screens (the player itself is the caller's). */
export function renderView(view: WatchView, context: ScreenContext): void {
  const root = byId<HTMLElement>('sg-watch');
  root.dataset.state = view.kind;
  byId<HTMLElement>('sg-watch-status').textContent = badgeOf(view);

  const message = messageOf(view);
  const messageScreen = byId<HTMLElement>('sg-watch-message');
  messageScreen.hidden = message === null;
  (messageScreen.querySelector('h2') as HTMLElement).textContent = message ?? '';
  // "The show has ended" stays said while its recording plays: a line under the video.
  byId<HTMLElement>('sg-watch-note').textContent = view.kind === 'ended' && view.recording ? 'The show has ended — playing its recording' : '';

  const countdown = byId<HTMLElement>('sg-watch-countdown');
  countdown.hidden = view.kind !== 'countdown';
  if (view.kind === 'countdown') {
    countdown.dataset.startsAt = String(view.startsAt);
    (countdown.querySelector('[data-countdown-title]') as HTMLElement).textContent = view.title ?? 'The show starts soon';
    const left = view.startsAt - Date.now();
    (countdown.querySelector('[data-countdown-left]') as HTMLElement).textContent = left > 0 ? `Starts in ${timeLeft(left)}` : 'Starting soon';
  }

  const refusal = byId<HTMLElement>('sg-watch-refusal');
  refusal.hidden = view.kind !== 'refused';
  if (view.kind === 'refused') {
    refusal.dataset.errorType = view.error.type;
    (refusal.querySelector('h2') as HTMLElement).textContent = REFUSAL_TITLES[view.error.type] ?? 'This channel cannot be played';
    const unasked = view.error.type === 'gate_password' && !context.passwordSent;
    byId<HTMLElement>('sg-watch-refusal-message').textContent = unasked ? '' : view.error.message;
    byId<HTMLFormElement>('sg-watch-password').hidden = view.error.type !== 'gate_password';
    byId<HTMLButtonElement>('sg-watch-login').hidden = view.error.type !== 'login_required' || context.token;
  }
}
