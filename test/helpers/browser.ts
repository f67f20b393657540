/**
 * Headless Chromium for browser tests: Debian's `chromium` package (CHROMIUM_PATH, default
 * /usr/bin/chromium) driven by puppeteer-core, which downloads no browser of its own. One browser per
 * suite file; pages are cheap. Also a second origin (a "site's own page") for cross-origin scripts.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type Frame, type JSHandle, type Page } from 'puppeteer-core';
import { chromiumLaunchOptions } from '../../scripts/demo';

/** What the functions run in a page see (the DOM is not in this program's types). */
declare const document: any;
declare const getComputedStyle: any;

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  return puppeteer.launch(chromiumLaunchOptions(CHROMIUM_PATH));
}

export interface StaticSite {
  url: string;
  close(): Promise<void>;
}

/**
 * A site's own web server on another origin, on loopback: `files` by path (with byte ranges, so a media
 * element can seek in what it serves).
 */
export async function startStaticSite(files: Record<string, { type: string; body: string | Buffer }>): Promise<StaticSite> {
  const server: Server = createServer((request, response) => {
    const file = files[(request.url ?? '/').split('?')[0]];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    const body = Buffer.isBuffer(file.body) ? file.body : Buffer.from(file.body);
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
      response.writeHead(206, {
        'content-type': file.type,
        'accept-ranges': 'bytes',
        'content-range': `bytes ${start}-${end}/${body.length}`,
        'content-length': end - start + 1,
      });
      response.end(body.subarray(start, end + 1));
      return;
    }
    response.writeHead(200, { 'content-type': file.type, 'accept-ranges': 'bytes', 'content-length': body.length });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A silent mono WAV of `seconds` (8 kHz, 8-bit): media a `<video>` element plays and seeks in, made here. */
function silentWav(seconds: number): Buffer {
  const rate = 8000;
  const samples = rate * seconds;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // bytes per second
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}

/**
 * A site's own watch page on another origin: a `<video>` (#video) playing an 8-second silent recording,
 * an iframe (#frame) of `frameUrl`, and stagegraph's player helper loaded from `stackUrl`, at `/watch.html`.
 */
export function startWatchPage(stackUrl: string, frameUrl: string): Promise<StaticSite> {
  return startStaticSite({
    '/watch.html': {
      type: 'text/html',
      body: `<!doctype html><body><video id="video" src="/recording.wav" preload="auto" muted></video>
<iframe id="frame" src="${frameUrl}"></iframe>
<script src="${stackUrl}/sdk/v1/player.js"></script></body>`,
    },
    '/recording.wav': { type: 'audio/wav', body: silentWav(8) },
  });
}

/** How often a condition is checked in a page (ms). */
export const PAGE_POLL_MS = 50;

/**
 * Waits until `condition` (run in the page, with `args`) is truthy; its value. Puppeteer checks on each
 * animation frame by default (and for a selector's visible or hidden), and a page not in front — every page a
 * test opened before its last — draws no frames: its condition was checked once, when the wait began, and
 * a change after that went unseen. This checks on a timer, which every page keeps (puppeteer launches Chromium
 * without background timer throttling). The rule `no-restricted-properties` in eslint.config.mjs keeps tests on it.
 */
export function waitInPage<Args extends unknown[]>(
  target: Page | Frame,
  condition: string | ((...args: Args) => unknown),
  options: { timeout?: number; polling?: number | 'mutation' } = {},
  ...args: Args
): Promise<JSHandle> {
  // eslint-disable-next-line no-restricted-properties -- the one place that calls it, with a polling that works in the background
  return target.waitForFunction(condition as (...args: unknown[]) => unknown, { polling: PAGE_POLL_MS, ...options }, ...args);
}

/**
 * Waits until the element `selector` names is shown (rendered, with a box) or, with `shown` false, is gone or
 * not shown: what puppeteer's `waitForSelector` with `visible` or `hidden` means, checked as `waitInPage` does.
 */
export function waitShown(target: Page | Frame, selector: string, shown = true, options: { timeout?: number } = {}): Promise<JSHandle> {
  return waitInPage(
    target,
    (wanted: string, visible: boolean) => {
      const node = document.querySelector(wanted);
      const rect = node?.getBoundingClientRect();
      const isShown = !!node && !!rect && rect.width > 0 && rect.height > 0 && !['hidden', 'collapse'].includes(getComputedStyle(node).visibility);
      return isShown === visible;
    },
    options,
    selector,
    shown,
  );
}
