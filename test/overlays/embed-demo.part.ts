/**
 * The demo page as a newcomer opens it (docs/live.md "See an overlay in a browser"), in headless Chromium
 * against the real stack: no console error and no failed request or error status on any resource (the
 * favicon included), the broadcast shows; and docs/live.md's own headless line, run with bash, writes the
 * picture.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser, waitInPage } from '../helpers/browser';
import { rest } from '../helpers/http';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

declare const window: any;

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
let stack: Stack;
let site: TestSite;
let channel: string;
let browser: Browser;
const temp = mkdtempSync(join(tmpdir(), 'stagegraph-demo-test-'));

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  site = await createTestSite(stack, 'Demo site');
  channel = await createChannel(stack, site.siteId);
});
afterAll(async () => {
  await browser?.close();
  await stopAll();
  rmSync(temp, { recursive: true, force: true });
});

async function broadcastGoal(): Promise<string> {
  const overlay = await rest(stack, 'POST', '/overlay/v1', {
    headers: site.admin,
    // Long enough to still show when the document's headless line has started its browser, however busy the machine.
    body: { name: 'Goal', type: 'template', duration: 600, contents: { html: '<strong>GOAL!</strong> ${player}' } },
  });
  expect(overlay.status).toBe(200);
  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, {
    headers: site.admin,
    body: { channelId: channel, variables: { player: 'Ada Okafor' } },
  });
  expect(sent.status).toBe(200);
  return sent.body.broadcastId;
}

/** Everything that would show as an error in the page's console: messages, exceptions, failed or 4xx/5xx requests. */
function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`exception: ${(error as Error).message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  return problems;
}

it('shows the demo with its icon, a broadcast, and nothing in the console', async () => {
  const page = await browser.newPage();
  const problems = recordProblems(page);
  const demoUrl = `${stack.url}/embed/v1/demo?siteId=${site.siteId}&channelId=${channel}`;
  await page.goto(demoUrl, { waitUntil: 'load' });
  const frame = await (await page.waitForSelector('#overlays'))!.contentFrame();
  await waitInPage(frame, () => window.stagegraphEmbed?.connected === true);
  const broadcastId = await broadcastGoal();
  await frame.waitForSelector(`[data-broadcast-id="${broadcastId}"]`);

  // The icon the page names is there (what a browser asks for at /favicon.ico as well).
  const icon = await page.$eval('link[rel="icon"]', (link: any) => link.href);
  expect(icon).toBe(`${stack.url}/favicon.ico`);
  const reply = await page.evaluate(async (url: string) => {
    const answer = await fetch(url);
    return { status: answer.status, type: answer.headers.get('content-type'), bytes: (await answer.arrayBuffer()).byteLength };
  }, icon);
  expect(reply).toEqual({ status: 200, type: 'image/x-icon', bytes: readFileSync(join(root, 'embed', 'favicon.ico')).length });
  expect(problems).toEqual([]);
  await page.close();
});

it('takes the picture with docs/live.md’s headless line, once the overlay is shown', async () => {
  const readme = readFileSync(join(root, 'docs', 'live.md'), 'utf8');
  const line = readme.split('\n').find((text) => text.startsWith('npx tsx scripts/screenshot-demo.ts --url'));
  expect(line).toBe('npx tsx scripts/screenshot-demo.ts --url "$BASE/embed/v1/demo?siteId=$SITE&channelId=$CHANNEL" --out demo.png');
  await broadcastGoal();
  // Run in the project folder, as the document's lines are; the picture goes to a temp folder, not the project.
  const out = join(temp, 'demo.png');
  const { stdout } = await run('bash', ['-c', line!.replace('--out demo.png', `--out ${out}`)], {
    cwd: root,
    env: { ...process.env, BASE: stack.url, SITE: site.siteId, CHANNEL: channel },
  });
  expect(stdout).toContain(`wrote ${out}`);
  const png = readFileSync(out);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1100, 720]);
});
