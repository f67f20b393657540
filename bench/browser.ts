/**
 * The viewer side in a browser: time from the broadcast call (just before POST /overlay/v1/broadcast/{id})
 * to the overlay in the embed's DOM in headless Chromium (a MutationObserver stamps each overlay element
 * as it is added), over 50 broadcasts one after another (after 3 not counted); and the gzip size of the SDK scripts.
 * Run alone: `npx tsx bench/browser.ts` (after `npm run build`), or as part of `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import puppeteer from 'puppeteer-core';
import { chromiumLaunchOptions } from '../scripts/demo';
import { sdkBuildDir } from '../shared/paths';
import { createSite, percentile, startInstance, type Instance } from './harness';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const window: any;
declare const document: any;
declare const MutationObserver: any;

export interface BrowserFigures {
  broadcasts: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  embedJsGzipBytes: number;
  playerJsGzipBytes: number;
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function measureBrowser(instance: Instance, broadcasts = 50): Promise<BrowserFigures> {
  const site = createSite(instance);
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const channel = await post(`${instance.url}/pages/v3`, admin, { slug: 'bench', type: 'channel' });
  const overlay = await post(`${instance.url}/overlay/v1`, admin, { name: 'Bench', type: 'template', duration: 2, contents: { html: '<p>${n}</p>' } });
  const browser = await puppeteer.launch(chromiumLaunchOptions(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'));
  const latencies: number[] = [];
  try {
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(() => {
      const seen: Record<string, number> = {};
      window.__seen = seen;
      new MutationObserver((records: { addedNodes: { dataset?: { broadcastId?: string } }[] }[]) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            const id = node.dataset?.broadcastId;
            if (id) seen[id] = Date.now();
          }
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${instance.url}/embed/v1/overlays?siteId=${site.siteId}&channelId=${channel._id}`);
    await page.waitForFunction(() => window.stagegraphEmbed?.connected === true);
    // Three broadcasts first, not counted: the first calls of a fresh process warm its code paths.
    for (let n = -3; n < broadcasts; n += 1) {
      const sent = Date.now();
      const { broadcastId } = await post(`${instance.url}/overlay/v1/broadcast/${overlay._id}`, admin, { channelId: channel._id, variables: { n: String(n) } });
      const shownAt = (await (await page.waitForFunction((id) => window.__seen[id], {}, broadcastId)).jsonValue()) as number;
      if (n >= 0) latencies.push(shownAt - sent);
    }
  } finally {
    await browser.close();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const gzipOf = (name: string) => gzipSync(readFileSync(join(sdkBuildDir, name)), { level: 9 }).length;
  return {
    broadcasts,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1],
    embedJsGzipBytes: gzipOf('embed.js'),
    playerJsGzipBytes: gzipOf('player.js'),
  };
}

if (require.main === module) {
  (async () => {
    const instance = await startInstance();
    try {
      console.table([await measureBrowser(instance)]);
    } finally {
      await instance.stop();
    }
  })().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
