/**
 * `npx tsx scripts/screenshot-demo.ts [--out docs/demo.png] [--chromium /usr/bin/chromium]`: the
 * README's picture, taken from the real demo page after one real broadcast (scripts/demo.ts).
 */
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';
import { chromiumLaunchOptions, startDemo } from './demo';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs/demo.png' }, chromium: { type: 'string', default: '/usr/bin/chromium' } } });
  const demo = await startDemo();
  const browser = await puppeteer.launch(chromiumLaunchOptions(values.chromium as string));
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 720, deviceScaleFactor: 1 });
    await page.goto(demo.demoUrl);
    const frame = await (await page.waitForSelector('#overlays'))!.contentFrame();
    await frame!.waitForFunction('window.stagegraphEmbed && window.stagegraphEmbed.connected');
    const broadcastId = await demo.broadcast({ player: 'Ada Okafor', team: 'Lions', score: '2 – 1' });
    await frame!.waitForSelector(`[data-broadcast-id="${broadcastId}"]`);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the overlay's entry animation
    await page.screenshot({ path: values.out as `${string}.png` });
    console.log(`wrote ${values.out}`);
  } finally {
    await browser.close();
    await demo.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
