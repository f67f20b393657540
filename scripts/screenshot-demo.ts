/**
 * `npx tsx scripts/screenshot-demo.ts [--dir docs] [--chromium /usr/bin/chromium]`: the documents' pictures,
 * taken from the real demo page (scripts/demo.ts) in Debian's Chromium:
 * - demo.png: the page after one real broadcast;
 * - poll-open.png, poll-answered.png, poll-right.png, poll-wrong.png: a trivia in an overlay as signed-in
 *   viewers see it before answering, after answering, and once it closes, for a viewer who got it right
 *   and one who got it wrong. Viewers sign up and sign in through the public REST paths, the crowd answers
 *   over REST, the two viewers in the page by clicking.
 * - watch-wide.png, watch-narrow.png: the watch page of a channel with its sidebar (chat, hosts, line-up,
 *   leaderboard) on a laptop and on a phone (≤ 480 px: the sidebar as tabs under the video).
 * It prints the lowest text contrast of each poll picture (over a white and a black video, scripts/contrast.ts).
 *
 * `--url URL --out FILE` takes the picture of a demo page on a running server instead (docs/live.md's headless
 * way to look at it): it waits until the embed shows an overlay, which a plain `chromium --headless
 * --screenshot` does not (it shoots at page load, before the live socket has delivered anything).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { lowestContrast, textSamples } from './contrast';
import { chromiumLaunchOptions, startDemo, type Demo } from './demo';

// Functions handed to evaluate run in the browser; its window is declared loosely, in this module only.
declare const window: any;

const TRIVIA = {
  type: 'trivia',
  name: 'First goal',
  question: 'Who scored the first goal?',
  answers: [
    { id: 'rivera', text: 'Rivera' },
    { id: 'okafor', text: 'Okafor' },
    { id: 'chen', text: 'Chen' },
  ],
  correctAnswerId: 'okafor',
};
/** The poll pictures are of the player alone (`.stage`), at a size where the overlay reads as on a laptop. */
const POLL_VIEWPORT = { width: 1000, height: 620 };
/** What the crowd answers before the two viewers in the page do. */
const CROWD = ['rivera', 'okafor', 'okafor', 'chen', 'okafor', 'rivera'];

/** The demo page in a new tab, its embed connected (as the viewer of `token` when given); the embed's frame. */
async function openDemo(browser: Browser, demo: Demo, options: { token?: string; width: number; height: number }): Promise<{ page: Page; frame: Frame }> {
  const { token, width, height } = options;
  const page = await browser.newPage();
  await page.setViewport({ width, height, deviceScaleFactor: 1 });
  // No entry animation or moving bars: each picture is taken of the state it waited for, not mid-way.
  await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
  await page.goto(demo.demoUrl);
  const frame = await (await page.waitForSelector('#overlays'))!.contentFrame();
  await frame.waitForFunction('window.stagegraphEmbed && window.stagegraphEmbed.connected');
  if (token) {
    // What a site's page does once its viewer signs in (seed 001's set:token); the embed reconnects as them.
    await frame.evaluate((jwt: string) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'set:token', data: jwt }, '*'), token);
    await frame.waitForFunction('window.stagegraphEmbed.connected && window.stagegraphEmbed.connections >= 2');
  }
  return { page, frame };
}

async function shoot(page: Page, frame: Frame, path: string): Promise<void> {
  await page.bringToFront();
  await (await page.$('.stage'))!.screenshot({ path: path });
  const lowest = lowestContrast(await textSamples(frame, '.sg-overlay'));
  console.log(`wrote ${path}${lowest ? `: lowest text contrast ${lowest.ratio.toFixed(2)}:1 (${lowest.label}, over ${lowest.video})` : ''}`);
}

async function demoPicture(browser: Browser, demo: Demo, dir: string): Promise<void> {
  const { page, frame } = await openDemo(browser, demo, { width: 1100, height: 720 });
  const broadcastId = await demo.broadcast({ player: 'Ada Okafor', team: 'Lions', score: '2 – 1' });
  await frame.waitForSelector(`[data-broadcast-id="${broadcastId}"]`);
  await page.screenshot({ path: join(dir, 'demo.png') });
  console.log(`wrote ${join(dir, 'demo.png')}`);
  await page.close();
  await demo.admin('POST', `/overlay/v1/clear-broadcast/${demo.channelId}`, {});
}

async function pollPictures(browser: Browser, demo: Demo, dir: string): Promise<void> {
  const poll = await demo.admin('POST', '/poll/v3/', TRIVIA);
  const overlay = await demo.admin('POST', '/overlay/v1', {
    name: 'Match trivia',
    type: 'template',
    duration: 600,
    contents: { html: '<strong>MATCH TRIVIA</strong> · answer before half-time' },
    cta: { type: 'poll', data: poll._id },
  });
  const [wrongViewer, rightViewer, ...crowd] = await Promise.all(
    ['Sam Rivers', 'Ada Brook', ...CROWD.map((_, index) => `Fan ${index + 1}`)].map((name) => demo.signUpViewer(name)),
  );
  for (const [index, answerId] of CROWD.entries()) {
    const response = await fetch(`${demo.stack.url}/poll/v3/${poll._id as string}/answer`, {
      method: 'POST',
      headers: { 'x-service-client-id': demo.siteId, authorization: `Bearer ${crowd[index]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ answerId, channelId: demo.channelId }),
    });
    if (!response.ok) throw new Error(`answer: ${response.status} ${await response.text()}`);
  }
  const wrong = await openDemo(browser, demo, { token: wrongViewer, ...POLL_VIEWPORT });
  const right = await openDemo(browser, demo, { token: rightViewer, ...POLL_VIEWPORT });
  await demo.admin('POST', `/overlay/v1/broadcast/${overlay._id as string}`, { channelId: demo.channelId });
  const answer = async ({ page, frame }: { page: Page; frame: Frame }, answerId: string) => {
    // A tab in the background draws no frames, and a click waits for one.
    await page.bringToFront();
    await (await frame.waitForSelector(`button[data-answer-id="${answerId}"]`))!.click();
    await frame.waitForSelector('.sg-poll[data-state="answered"]');
  };

  await wrong.frame.waitForSelector('.sg-poll[data-state="open"] button[data-answer-id]');
  await shoot(wrong.page, wrong.frame, join(dir, 'poll-open.png'));
  await answer(wrong, 'rivera');
  await answer(right, 'okafor');
  await wrong.frame.waitForSelector(`[data-poll-results][data-total="${CROWD.length + 2}"]`);
  await shoot(wrong.page, wrong.frame, join(dir, 'poll-answered.png'));

  await demo.admin('PATCH', `/poll/v3/${poll._id as string}`, { open: false });
  await right.frame.waitForSelector('.sg-poll[data-state="revealed"]');
  await shoot(right.page, right.frame, join(dir, 'poll-right.png'));
  await wrong.frame.waitForSelector('.sg-poll[data-state="revealed"]');
  await shoot(wrong.page, wrong.frame, join(dir, 'poll-wrong.png'));
}

/** The picture of a demo page on a running server, once its embed shows an overlay. */
/** The watch page of a channel with a sidebar of panels, wide and narrow. */
async function watchPictures(browser: Browser, demo: Demo, dir: string): Promise<void> {
  const panel = async (renderer: Record<string, unknown>) => (await demo.admin('POST', '/panel/v3/', { siteId: demo.siteId, renderer }))._id as string;
  const starts = Date.UTC(2030, 5, 1, 19, 0);
  const ids = [
    await panel({ panel_type: 'chat', panel_name: 'Chat', system_name: 'Stage', system_welcome_message: 'Welcome to match day!' }),
    await panel({
      panel_type: 'people',
      panel_name: 'Hosts',
      people: [{ id: 'ana', person_name: 'Ana Ruiz', person_title: 'Commentator', person_bio: 'Calls every goal of the season.' }],
    }),
    await panel({
      panel_type: 'schedule',
      panel_name: 'Line-up',
      schedule_type_renderer: {
        schedule_type: 'calendar',
        manual_events: [
          { array_id: 'kickoff', name: 'Kick-off', start_time: starts, end_time: starts + 45 * 60_000 },
          { array_id: 'second', name: 'Second half', start_time: starts + 60 * 60_000, end_time: starts + 105 * 60_000 },
        ],
      },
    }),
    await panel({ panel_type: 'achievement_leaderboard', panel_name: 'Top fans', system_name: 'Fan points' }),
  ];
  const channel = await demo.admin('POST', '/pages/v3', {
    slug: 'main-stage',
    type: 'channel',
    data: { name: 'Main stage — Lions v Eagles' },
    renderers: { sidebar: { items: ids.map((id, index) => ({ array_id: `item-${index}`, id })) } },
  });
  const url = `${demo.stack.url}/embed/v1/watch?${new URLSearchParams({ siteId: demo.siteId, channelId: channel._id as string }).toString()}`;
  for (const [name, width, height] of [
    ['watch-wide.png', 1280, 760],
    ['watch-narrow.png', 400, 860],
  ] as const) {
    const page = await browser.newPage();
    await page.setViewport({ width, height, deviceScaleFactor: 1 });
    await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
    await page.goto(url);
    await page.waitForFunction((count: number) => window.stagegraphWatch?.panels?.length === count, { polling: 100, timeout: 30_000 }, ids.length);
    await page.screenshot({ path: join(dir, name) });
    console.log(`wrote ${join(dir, name)}`);
    await page.close();
  }
}

async function runningDemoPicture(browser: Browser, url: string, out: string): Promise<void> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 720, deviceScaleFactor: 1 });
  await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
  await page.goto(url);
  const frame = await (await page.waitForSelector('#overlays'))!.contentFrame();
  await frame.waitForFunction('window.stagegraphEmbed && window.stagegraphEmbed.connected');
  await frame.waitForSelector('[data-broadcast-id]', { timeout: 30_000 }).catch(() => {
    throw new Error('no overlay shown within 30 s: broadcast one to the channel (it shows while its duration runs)');
  });
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: 'docs' },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
      url: { type: 'string' },
      out: { type: 'string', default: 'demo.png' },
    },
  });
  const browser = await puppeteer.launch(chromiumLaunchOptions(values.chromium));
  if (values.url) {
    try {
      await runningDemoPicture(browser, values.url, values.out);
    } finally {
      await browser.close();
    }
    return;
  }
  mkdirSync(values.dir, { recursive: true });
  const demo = await startDemo();
  try {
    await demoPicture(browser, demo, values.dir);
    await pollPictures(browser, demo, values.dir);
    await watchPictures(browser, demo, values.dir);
  } finally {
    await browser.close();
    await demo.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
