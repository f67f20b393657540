/**
 * The channel's look on the watch page (seed 001, Page data): `artwork.header.logo` in the header,
 * `artwork.video.background` behind the page, the theme's accents (the page configuration's colours, the
 * channel's `theme.classic_theme_options` over the site's) on buttons and tabs, with text on them black or
 * white by the accent's luminance so it stays readable, and `welcome_screen`: its image over the page for
 * its `duration` (seconds) when the page opens, `mobile_image` on a narrow screen, skippable at once.
 */
import { webUrl } from './panelKinds';
import { NARROW } from './watchSidebar';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
/** A welcome screen without a duration shows this long (seconds). */
const DEFAULT_WELCOME_SECONDS = 5;
const MAX_WELCOME_SECONDS = 60;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The relative luminance of a `#rgb` / `#rrggbb` colour (WCAG). */
function luminance(hex: string): number {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((digit) => digit + digit) : [hex.slice(1, 3), hex.slice(3, 5), hex.slice(5, 7)];
  const [r, g, b] = digits.map((pair) => {
    const channel = parseInt(pair, 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The theme's accents on the page's buttons and tabs. */
export function applyAccents(colors: Record<string, unknown> | null | undefined): void {
  const root = byId<HTMLElement>('sg-watch-page');
  const primary = colors?.accentPrimary;
  if (typeof primary === 'string' && HEX.test(primary)) {
    root.style.setProperty('--sg-accent', primary);
    // Whichever of black and white reads better on it (contrast (L1 + 0.05) / (L2 + 0.05)).
    root.style.setProperty('--sg-on-accent', luminance(primary) > 0.179 ? '#111111' : '#ffffff');
  }
  const secondary = colors?.accentSecondary;
  if (typeof secondary === 'string' && HEX.test(secondary)) root.style.setProperty('--sg-accent-2', secondary);
}

/** The channel's artwork: the header's logo and the page's background. */
export function applyArtwork(data: unknown): void {
  const artwork = record(record(data).artwork);
  const channelName = record(data).name;
  const logo = webUrl(record(artwork.header).logo);
  const image = byId<HTMLImageElement>('sg-watch-logo');
  if (logo) {
    image.src = logo;
    image.alt = typeof channelName === 'string' && channelName ? channelName : 'Channel logo';
  } else {
    image.removeAttribute('src');
  }
  const background = webUrl(record(artwork.video).background);
  byId<HTMLElement>('sg-watch-page').style.backgroundImage = background ? `url("${background.replace(/["\\\n]/g, encodeURIComponent)}")` : '';
}

let welcomed = false;

/** The welcome screen, once per page open: its image for its duration, or until the viewer skips it. */
export function showWelcome(data: unknown): void {
  if (welcomed) return;
  welcomed = true;
  const welcome = record(record(data).welcome_screen);
  if (welcome.active === false) return;
  const narrow = window.matchMedia(NARROW).matches;
  const image = webUrl(narrow && welcome.mobile_image ? welcome.mobile_image : welcome.image);
  if (!image) return;
  const screen = byId<HTMLElement>('sg-watch-welcome');
  const picture = screen.querySelector('img') as HTMLImageElement;
  picture.src = image;
  screen.dataset.image = narrow && welcome.mobile_image ? 'mobile' : 'desktop';
  const given = Number(welcome.duration);
  const seconds = Number.isFinite(given) && given > 0 ? Math.min(given, MAX_WELCOME_SECONDS) : DEFAULT_WELCOME_SECONDS;
  const close = () => {
    clearTimeout(timer);
    screen.hidden = true;
  };
  const timer = window.setTimeout(close, seconds * 1000);
  (screen.querySelector('button') as HTMLButtonElement).onclick = close;
  screen.hidden = false;
}
