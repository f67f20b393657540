/**
 * A poll in the overlay embed, for browser tests: the scene (a stack, a site, a channel, Chromium), a poll
 * broadcast in an overlay, the embed opened as a viewer; and the poll as that viewer sees it, read from the
 * page (embed/pollCard.ts): its stage, question, each answer's line (text, share, count, the words beside
 * it, the bar), the total, the status line and the answer buttons; and the contrast of its text.
 */
import { equals } from '@jest/expect-utils';
import type { Browser, Page } from 'puppeteer-core';
import { lowestContrast, textSamples } from '../../scripts/contrast';
import type { Stack } from '../../stack';
import { launchBrowser, waitInPage } from './browser';
import { rest } from './http';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from './stack';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const window: any;
declare const document: any;
type HTMLElement = any;

/** What a poll test runs against; `pages` are closed by the test file after each test. */
export interface PollScene {
  stack: Stack;
  site: TestSite;
  channel: string;
  browser: Browser;
  pages: Page[];
}

/**
 * The scene of a test file, filled in by the hooks this registers: a stack, a site named `siteName` with a
 * channel, and Chromium before all tests; each test's pages closed and the channel's broadcasts cleared
 * after it; everything stopped after all.
 */
export function usePollScene(siteName: string): PollScene {
  const scene = { pages: [] as Page[] } as PollScene;
  beforeAll(async () => {
    const [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
    const site = await createTestSite(stack, siteName);
    Object.assign(scene, { stack, browser, site, channel: await createChannel(stack, site.siteId) });
  });
  afterEach(async () => {
    await Promise.all(scene.pages.splice(0).map((page) => page.close()));
    await rest(scene.stack, 'POST', `/overlay/v1/clear-broadcast/${scene.channel}`, { headers: scene.site.admin });
  });
  afterAll(async () => {
    await scene.browser?.close();
    await stopAll();
  });
  return scene;
}

export async function createPoll(scene: PollScene, body: object): Promise<string> {
  const reply = await rest(scene.stack, 'POST', '/poll/v3/', { headers: scene.site.admin, body });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

/** Broadcasts a new overlay whose CTA carries `pollId` to the channel; `scope` selects its element in the embed. */
export async function broadcastPoll(scene: PollScene, pollId: string, duration = 60): Promise<{ overlayId: string; broadcastId: string; scope: string }> {
  const { stack, site, channel } = scene;
  const created = await rest(stack, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Poll overlay', type: 'template', duration, contents: { html: '<p class="q">Have your say</p>' }, cta: { type: 'poll', data: pollId } },
  });
  expect(created.status).toBe(200);
  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${created.body._id}`, { headers: site.admin, body: { channelId: channel } });
  expect(sent.status).toBe(200);
  return { overlayId: created.body._id, broadcastId: sent.body.broadcastId, scope: `[data-overlay-id][data-broadcast-id="${sent.body.broadcastId}"]` };
}

/** The embed of the scene's channel (through `base`, the stack unless a proxy), connected; signed in with `token`. */
export async function openEmbed(scene: PollScene, options: { token?: string; mode?: string; base?: string } = {}): Promise<Page> {
  const page = await scene.browser.newPage();
  scene.pages.push(page);
  const query = new URLSearchParams({
    siteId: scene.site.siteId,
    channelId: scene.channel,
    ...(options.token ? { token: options.token } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
  });
  await page.goto(`${options.base ?? scene.stack.url}/embed/v1/overlays?${query.toString()}`);
  await waitInPage(page, () => window.stagegraphEmbed?.connected === true);
  return page;
}

export interface ShownLine {
  id: string;
  text: string;
  /** "33%". */
  share: string;
  /** "1 vote". */
  count: string;
  /** The words beside the answer ('' none). */
  tag: string;
  /** The mark before those words: '✓', '✗' or ''. */
  mark: string;
  mine: boolean;
  correct: boolean;
  /** `data-verdict`: 'right', 'wrong' or null. */
  verdict: string | null;
  /** The bar's width: "33%". */
  bar: string;
}

export interface ShownPoll {
  state: string;
  question: string;
  lines: ShownLine[];
  /** `data-total` of `[data-poll-results]`. */
  total: string;
  /** "Total: 3 votes". */
  totalText: string;
  status: string;
  statusKind: string;
  /** The answer IDs of `button[data-answer-id]`. */
  buttons: string[];
}

/** What the poll inside `scope` (a selector) shows now; null while it shows nothing. */
export function readPoll(page: Page, scope: string): Promise<ShownPoll | null> {
  return page.evaluate((selector: string) => {
    const poll = document.querySelector(`${selector} [data-poll-id]`);
    if (!poll || poll.hidden) return null;
    const text = (node: HTMLElement) => node?.textContent ?? '';
    return {
      state: poll.dataset.state,
      question: text(poll.querySelector('.sg-poll-question')),
      lines: [...poll.querySelectorAll('[data-poll-results] > li')].map((item: HTMLElement) => ({
        id: item.dataset.answerId,
        text: text(item.querySelector('.sg-poll-text')),
        share: text(item.querySelector('[data-share]')),
        count: text(item.querySelector('[data-count]')),
        tag: item.querySelector('.sg-poll-tag').hidden ? '' : text(item.querySelector('.sg-poll-tag-words')),
        mark: item.querySelector('.sg-poll-tag').hidden ? '' : text(item.querySelector('.sg-poll-icon')),
        mine: 'mine' in item.dataset,
        correct: 'correct' in item.dataset,
        verdict: item.dataset.verdict ?? null,
        bar: item.querySelector('.sg-poll-bar').style.width,
      })),
      total: poll.querySelector('[data-poll-results]').dataset.total,
      totalText: text(poll.querySelector('.sg-poll-total')),
      status: text(poll.querySelector('[data-poll-status]')),
      statusKind: poll.querySelector('[data-poll-status]').dataset.pollStatus,
      buttons: [...poll.querySelectorAll('button[data-answer-id]')].map((button: HTMLElement) => button.dataset.answerId),
    };
  }, scope);
}

/** Chooses `answerId` as a viewer does: a click on its button (the tab brought to the front: a tab behind draws nothing to click). */
export async function choose(page: Page, scope: string, answerId: string): Promise<void> {
  await page.bringToFront();
  await (await page.waitForSelector(`${scope} button[data-answer-id="${answerId}"]`))!.click();
}

/** Waits until the poll in `scope` shows exactly `expected` (15 s at most); else fails showing what it showed. */
export async function waitForPoll(page: Page, scope: string, expected: ShownPoll): Promise<void> {
  const until = Date.now() + 15_000;
  let shown = await readPoll(page, scope);
  while (!equals(shown, expected) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    shown = await readPoll(page, scope);
  }
  expect(shown).toEqual(expected);
}

/** An answer line as expected: `share` of all answers, `count` of them, with the flags given. */
export function line(
  id: string,
  text: string,
  count: number,
  share: number,
  flags: Partial<Pick<ShownLine, 'tag' | 'mark' | 'mine' | 'correct' | 'verdict'>> = {},
): ShownLine {
  return {
    id,
    text,
    share: `${share}%`,
    count: `${count} ${count === 1 ? 'vote' : 'votes'}`,
    tag: flags.tag ?? '',
    mark: flags.mark ?? '',
    mine: flags.mine ?? false,
    correct: flags.correct ?? false,
    verdict: flags.verdict ?? null,
    bar: `${share}%`,
  };
}

/** The lowest WCAG contrast of the text inside `scope`, over a white and over a black video. */
export async function lowestTextContrast(page: Page, scope: string): Promise<number> {
  const samples = await textSamples(page, scope);
  expect(samples.length).toBeGreaterThan(0);
  return lowestContrast(samples)!.ratio;
}
