/**
 * `npx tsx scripts/screenshot-demo.ts [--out docs/demo.png] [--chromium /usr/bin/chromium]`: the
 * README's picture, taken from the real demo page after one real broadcast (scripts/demo.ts).
 * `--url URL` takes the picture of a demo page on a running server instead (the README's headless way to
 * look at it): it waits until the embed shows an overlay, which a plain `chromium --headless
 * --screenshot` does not (it shoots at page load, before the live socket has delivered anything).
 */
import { parseArgs } from 'node:util';
import puppeteer, { type Page } from 'puppeteer-core';
import { chromiumLaunchOptions, startDemo } from './demo';

/** Opens the demo page and waits for its embed to connect; `shown` then resolves once an overlay is on screen. */
async function openDemo(page: Page, url: string) {
  await page.setViewport({ width: 1100, height: 720, deviceScaleFactor: 1 });
  await page.goto(url);
  const frame = await (await page.waitForSelector('#overlays'))!.contentFrame();
  await frame!.waitForFunction('window.stagegraphEmbed && window.stagegraphEmbed.connected');
  return {
    shown: async (selector: string, timeout?: number) => {
      await frame!.waitForSelector(selector, { timeout });
      await new Promise((resolve) => setTimeout(resolve, 400)); // the overlay's entry animation
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs/demo.png' }, chromium: { type: 'string', default: '/usr/bin/chromium' }, url: { type: 'string' } } });
  const demo = values.url ? null : await startDemo();
  const browser = await puppeteer.launch(chromiumLaunchOptions(values.chromium as string));
  try {
    const page = await browser.newPage();
    if (demo) {
      const opened = await openDemo(page, demo.demoUrl);
      const broadcastId = await demo.broadcast({ player: 'Ada Okafor', team: 'Lions', score: '2 – 1' });
      await opened.shown(`[data-broadcast-id="${broadcastId}"]`);
    } else {
      const opened = await openDemo(page, values.url as string);
      await opened.shown('[data-broadcast-id]', 30_000).catch(() => {
        throw new Error('no overlay shown within 30 s: broadcast one to the channel (it shows while its duration runs)');
      });
    }
    await page.screenshot({ path: values.out as `${string}.png` });
    console.log(`wrote ${values.out}`);
  } finally {
    await browser.close();
    await demo?.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
