/**
 * The watch page (`/embed/v1/watch`) as its browser tests open and read it: a new tab in which each overlay
 * element the overlay layer adds is stamped with its origin and the video's time then
 * (`window.__overlaysSeen`), every message the page receives is kept (`window.posted`), and every URL it
 * asks for is listed; what the page shows (its view, the show's state, the player's source and time); and
 * the testbed of such a test file (the stack, Chromium, the CDN stand-in and a fake provider).
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser } from './browser';
import { startHlsCdn, type HlsCdn } from './cdn';
import { createTestSite, startTestStack, stopAll, type TestSite } from './stack';
import { startFakeStreamProvider, type FakeStreamProvider } from './streamProvider';
import { until } from './wait';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;
declare const location: any;
declare const MutationObserver: any;

export interface WatchOptions {
  token?: string;
  /** The page's path (the demo serves the same page). */
  path?: string;
  /** Removes WebSocket from the page (it then follows the show over SSE). */
  withoutWebSocket?: boolean;
  /** Runs on the new tab before it loads the page (to record its traffic from the first request). */
  before?: (page: Page) => Promise<unknown>;
}

export interface OverlaySeen {
  id: string;
  origin: 'live' | 'timecode';
  /** The video's time when the overlay appeared. */
  at: number;
}

/** Opens the watch page of `channelId` in a new tab of `browser`; `pages` keeps it for closing. */
export async function openWatchPage(
  browser: Browser,
  pages: Page[],
  url: { base: string; siteId: string; channelId: string },
  options: WatchOptions = {},
): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  pages.push(page);
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await options.before?.(page);
  if (options.withoutWebSocket) await page.evaluateOnNewDocument(() => delete window.WebSocket);
  await page.evaluateOnNewDocument(() => {
    window.posted = [];
    window.addEventListener('message', (event: any) => window.posted.push(event.data));
    if (location.pathname !== '/embed/v1/overlays') return;
    new MutationObserver((records: any[]) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (!node.dataset?.overlayId) continue;
          const top = window.top;
          (top.__overlaysSeen ??= []).push({ id: node.dataset.overlayId, origin: node.dataset.origin, at: top.document.getElementById('player').currentTime });
        }
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const query = new URLSearchParams({ siteId: url.siteId, channelId: url.channelId, ...(options.token ? { token: options.token } : {}) });
  await page.goto(`${url.base}${options.path ?? '/embed/v1/watch'}?${query.toString()}`);
  await page.bringToFront();
  return { page, requested };
}

/** The page's view (`#sg-watch[data-state]`) and the show's state it last received. */
export const watchState = (page: Page): Promise<{ view: string; show: string | null }> =>
  page.evaluate(() => ({ view: document.getElementById('sg-watch').dataset.state, show: window.stagegraphWatch?.show ?? null }));

/** Waits for the page to show `view` (and the show to be in `show`, when given). */
export const untilView = (page: Page, view: string, show?: string) =>
  until(
    () => watchState(page),
    (state) => state.view === view && (show === undefined || state.show === show),
    `the watch page showing ${view}${show ? ` (show ${show})` : ''}`,
    60_000,
  );

export const videoTime = (page: Page): Promise<number> => page.evaluate(() => document.getElementById('player').currentTime);
/** What the player plays: `live`, `vod`, or null. */
export const sourceOf = (page: Page): Promise<string | null> => page.$eval('#player', (node: any) => node.dataset.source ?? null);
/** The message over the stage, or null when none shows. */
export const messageOf = (page: Page): Promise<string | null> => page.$eval('#sg-watch-message', (node: any) => (node.hidden ? null : node.textContent));
/** The overlay layer's mode (`timecode`, or null for live pushes). */
export const overlayModeOf = (page: Page): Promise<string | null> => page.$eval('#overlays', (node: any) => new URL(node.src).searchParams.get('mode'));

/** The overlays shown so far by the player at their second of a recording. */
export const timecodeOverlays = (page: Page): Promise<OverlaySeen[]> =>
  page.evaluate(() => (window.__overlaysSeen ?? []).filter((entry: OverlaySeen) => entry.origin === 'timecode'));

/** Waits until the video plays on: its time moves on by more than a second from what it is now (or from `from`). */
export async function untilAdvancing(page: Page, from?: number): Promise<void> {
  const start = from ?? (await videoTime(page));
  const moved = await until(
    () => videoTime(page),
    (time) => time > start + 0.5,
    'the video playing',
    60_000,
  );
  await until(
    () => videoTime(page),
    (time) => time > moved + 0.5,
    'the video time advancing',
    60_000,
  );
}

/** What a watch page test file runs against, filled in before its first test. */
export interface WatchTestbed {
  stack: Stack;
  /** The site under test. */
  site: TestSite;
  cdn: HlsCdn;
  provider: FakeStreamProvider;
  /** The watch page of one of the site's channels, in a new tab (closed after the test). */
  open(channelId: string, options?: WatchOptions): Promise<{ page: Page; requested: string[] }>;
  /** Any page (a site's own page framing the watch page), in a new tab (closed after the test). */
  openUrl(url: string): Promise<{ page: Page }>;
}

/**
 * Starts, for the calling test file, the stack with a site, Chromium, the CDN stand-in (`cdn` options) and
 * a fake provider; closes each test's tabs after it and everything at the end.
 */
export function watchTestbed(siteName: string, cdn: Parameters<typeof startHlsCdn>[0] = {}): WatchTestbed {
  let browser: Browser | undefined;
  const pages: Page[] = [];
  const bed = {
    open: (channelId: string, options: WatchOptions = {}) =>
      openWatchPage(browser!, pages, { base: bed.stack.url, siteId: bed.site.siteId, channelId }, options),
    openUrl: async (url: string) => {
      const page = await browser!.newPage();
      pages.push(page);
      await page.goto(url);
      await page.bringToFront();
      return { page };
    },
  } as WatchTestbed;
  beforeAll(async () => {
    [bed.stack, browser, bed.cdn, bed.provider] = await Promise.all([startTestStack(), launchBrowser(), startHlsCdn(cdn), startFakeStreamProvider()]);
    bed.site = await createTestSite(bed.stack, siteName);
  }, 120_000);
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([bed.cdn?.close(), bed.provider?.close()]);
    await stopAll();
  });
  return bed;
}
