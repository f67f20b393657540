/**
 * A poll in the overlay embed, in a real browser (headless Chromium) against the real stack: an overlay
 * whose CTA carries a poll shows its live results; a signed-in viewer answers on the embed's socket and the
 * answer is stored; answers from elsewhere move the counts in the page; a viewer without a token reads
 * the results only; closing a trivia reveals the right answer; an answer the server already holds (CONFLICT)
 * shows the viewer's own; a token handed over later brings the buttons; the embed unsubscribes when the
 * overlay goes.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../stack';
import { launchBrowser } from './helpers/browser';
import { viewer } from './helpers/community';
import { rest } from './helpers/http';
import { startTcpProxy, type TcpProxy } from './helpers/proxy';
import { eventually } from './helpers/wait';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from './helpers/stack';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const window: any;
declare const document: any;
type HTMLElement = any;

let stack: Stack;
let site: TestSite;
let channel: string;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  site = await createTestSite(stack, 'Poll site');
  channel = await createChannel(stack, site.siteId);
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
  await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin });
});
afterAll(async () => {
  await browser?.close();
  await stopAll();
});

const colours = { type: 'poll', name: 'Colours', question: 'Which colour?', answers: [{ id: 'red', text: 'Red' }, { id: 'blue', text: 'Blue <b>!</b>' }] };
const capital = { type: 'trivia', name: 'Capital', question: 'Capital of France?', answers: [{ id: 'paris', text: 'Paris' }, { id: 'lyon', text: 'Lyon' }], correctAnswerId: 'paris' };

async function createPoll(body: object): Promise<string> {
  const reply = await rest(stack, 'POST', '/poll/v3/', { headers: site.admin, body });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

/** Broadcasts a new overlay whose CTA carries `pollId` to the channel. */
async function broadcastPoll(pollId: string, duration = 60): Promise<{ overlayId: string; broadcastId: string }> {
  const created = await rest(stack, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Poll overlay', type: 'template', duration, contents: { html: '<p class="q">Have your say</p>' }, cta: { type: 'poll', data: pollId } },
  });
  expect(created.status).toBe(200);
  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${created.body._id}`, { headers: site.admin, body: { channelId: channel } });
  expect(sent.status).toBe(200);
  return { overlayId: created.body._id, broadcastId: sent.body.broadcastId };
}

/** The embed of this channel (through `base`, the stack unless a proxy), connected; signed in with `token`. */
async function openEmbed(options: { token?: string; mode?: string; base?: string } = {}): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  const query = new URLSearchParams({ siteId: site.siteId, channelId: channel, ...(options.token ? { token: options.token } : {}), ...(options.mode ? { mode: options.mode } : {}) });
  await page.goto(`${options.base ?? stack.url}/embed/v1/overlays?${query}`);
  await page.waitForFunction(() => (window as any).stagegraphEmbed?.connected === true);
  return page;
}

interface ShownResults {
  total: string;
  rows: { id: string; text: string; count: string; mine: boolean; correct: boolean }[];
}

/** What `[data-poll-results]` inside `scope` shows now, read from the page. */
function readResults(page: Page, scope: string): Promise<ShownResults | null> {
  return page.evaluate((selector) => {
    const list = document.querySelector(`${selector} [data-poll-results]`) as HTMLElement | null;
    if (!list) return null;
    return {
      total: list.dataset.total,
      rows: [...list.querySelectorAll('[data-answer-id]')].map((row: HTMLElement) => ({
        id: row.dataset.answerId,
        text: row.querySelector('.sg-poll-text').textContent,
        count: row.querySelector('[data-count]').textContent,
        mine: 'mine' in row.dataset,
        correct: 'correct' in row.dataset,
      })),
    };
  }, scope);
}

/** Waits until the page shows `expected` in the results of `scope` (15 s at most); else fails with what it showed. */
async function waitForResults(page: Page, scope: string, expected: ShownResults): Promise<void> {
  const want = JSON.stringify(expected);
  const until = Date.now() + 15_000;
  let shown = await readResults(page, scope);
  while (JSON.stringify(shown) !== want && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    shown = await readResults(page, scope);
  }
  expect(shown).toEqual(expected);
}

const row = (id: string, text: string, count: number, flags: { mine?: boolean; correct?: boolean } = {}) => ({ id, text, count: String(count), mine: flags.mine ?? false, correct: flags.correct ?? false });

const buttonsOf = (page: Page, scope: string) =>
  page.$$eval(`${scope} button[data-answer-id]`, (buttons) => buttons.map((button: HTMLElement) => ({ id: button.dataset.answerId, text: button.textContent, disabled: button.disabled })));

const overlayOf = (broadcastId: string) => `[data-overlay-id][data-broadcast-id="${broadcastId}"]`;

it('lets a signed-in viewer answer on its socket, stores the answer, and moves the counts with answers from elsewhere', async () => {
  const pollId = await createPoll(colours);
  const me = await site.signIn([]);
  const page = await openEmbed({ token: me.token });
  const { broadcastId } = await broadcastPoll(pollId);
  const scope = overlayOf(broadcastId);
  await page.waitForSelector(`${scope} button[data-answer-id="blue"]`);
  // Server text is text: the answer's markup is shown, not parsed.
  expect(await buttonsOf(page, scope)).toEqual([{ id: 'red', text: 'Red', disabled: false }, { id: 'blue', text: 'Blue <b>!</b>', disabled: false }]);
  expect(await page.$(`${scope} b`)).toBeNull();
  // The poll is the CTA: no CTA button of its own.
  expect(await page.$(`${scope} button[data-cta]`)).toBeNull();
  await waitForResults(page, scope, { total: '0', rows: [row('red', 'Red', 0), row('blue', 'Blue <b>!</b>', 0)] });

  await page.click(`${scope} button[data-answer-id="red"]`);
  await waitForResults(page, scope, { total: '1', rows: [row('red', 'Red', 1, { mine: true }), row('blue', 'Blue <b>!</b>', 0)] });
  expect((await buttonsOf(page, scope)).map((button) => button.disabled)).toEqual([true, true]);
  const stored = await rest(stack, 'GET', `/poll/v3/${pollId}/results`, { headers: viewer(site, me.token) });
  expect(stored.status).toBe(200);
  expect(stored.body).toMatchObject({ pollId, open: true, total: 1, answers: [{ id: 'red', count: 1 }, { id: 'blue', count: 0 }], mine: { answerId: 'red' } });

  // Two more viewers answer over REST: the page follows.
  for (const answerId of ['blue', 'blue']) {
    const other = await site.signIn([]);
    const answered = await rest(stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, other.token), body: { answerId, channelId: channel } });
    expect(answered.status).toBe(200);
  }
  await waitForResults(page, scope, { total: '3', rows: [row('red', 'Red', 1, { mine: true }), row('blue', 'Blue <b>!</b>', 2)] });
});

it('shows a viewer without a token (or with one the server refuses) the live results and no buttons', async () => {
  const pollId = await createPoll(colours);
  const viewers = [await openEmbed(), await openEmbed({ token: 'not-a-jwt' })];
  const { broadcastId } = await broadcastPoll(pollId);
  const scope = overlayOf(broadcastId);
  for (const page of viewers) await waitForResults(page, scope, { total: '0', rows: [row('red', 'Red', 0), row('blue', 'Blue <b>!</b>', 0)] });
  const someone = await site.signIn([]);
  expect((await rest(stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, someone.token), body: { answerId: 'red' } })).status).toBe(200);
  for (const page of viewers) {
    await waitForResults(page, scope, { total: '1', rows: [row('red', 'Red', 1), row('blue', 'Blue <b>!</b>', 0)] });
    expect(await page.$$(`${scope} button`)).toEqual([]);
  }
});

it('reveals the right answer of a trivia when it closes, and locks the buttons', async () => {
  const pollId = await createPoll(capital);
  const me = await site.signIn([]);
  const page = await openEmbed({ token: me.token });
  const { broadcastId } = await broadcastPoll(pollId);
  const scope = overlayOf(broadcastId);
  await page.waitForSelector(`${scope} button[data-answer-id="lyon"]`);
  await page.click(`${scope} button[data-answer-id="lyon"]`);
  // Open trivia: the right answer is not told yet.
  await waitForResults(page, scope, { total: '1', rows: [row('paris', 'Paris', 0), row('lyon', 'Lyon', 1, { mine: true })] });
  const anonymous = await openEmbed();
  await waitForResults(anonymous, scope, { total: '1', rows: [row('paris', 'Paris', 0), row('lyon', 'Lyon', 1)] });

  expect((await rest(stack, 'PATCH', `/poll/v3/${pollId}`, { headers: site.admin, body: { open: false } })).status).toBe(200);
  await waitForResults(page, scope, { total: '1', rows: [row('paris', 'Paris', 0, { correct: true }), row('lyon', 'Lyon', 1, { mine: true })] });
  await waitForResults(anonymous, scope, { total: '1', rows: [row('paris', 'Paris', 0, { correct: true }), row('lyon', 'Lyon', 1)] });
  expect(await page.$eval(`${scope} [data-poll-id]`, (node: HTMLElement) => node.dataset.open)).toBe('false');
  expect((await buttonsOf(page, scope)).map((button) => button.disabled)).toEqual([true, true]);
  // A viewer who had not answered cannot any more.
  const late = await openEmbed({ token: await site.token([]) });
  await waitForResults(late, scope, { total: '1', rows: [row('paris', 'Paris', 0, { correct: true }), row('lyon', 'Lyon', 1)] });
  expect((await buttonsOf(late, scope)).map((button) => button.disabled)).toEqual([true, true]);
});

describe('a poll overlay sent by show:overlay (the timecode path)', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy('127.0.0.1', stack.port);
  });
  afterAll(async () => {
    await proxy.close();
  });

  /** Posts the REST resource of an overlay carrying `pollId` in its contents, as a site's player does. */
  async function showByMessage(page: Page, pollId: string, duration: number): Promise<string> {
    const created = await rest(stack, 'POST', '/overlay/v1', {
      headers: site.admin,
      body: { name: 'Timecode poll', type: 'template', duration, contents: { html: '<p>Vote</p>', pollId } },
    });
    const resource = (await rest(stack, 'GET', `/overlay/v1/${created.body._id}`, { headers: site.admin })).body;
    await page.evaluate((overlay) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'show:overlay', data: overlay }, '*'), resource);
    return `[data-origin="timecode"][data-overlay-id="${created.body._id}"]`;
  }

  it('shows the answer the server already holds when the choice sent comes back CONFLICT', async () => {
    const pollId = await createPoll(colours);
    const me = await site.signIn([]);
    const page = await openEmbed({ token: me.token, mode: 'timecode', base: `http://127.0.0.1:${proxy.port}` });
    const scope = await showByMessage(page, pollId, 60);
    await page.waitForSelector(`${scope} button[data-answer-id="red"]`);
    // Offline, the same account answers elsewhere; the page does not know, so its choice goes out on reconnect.
    await proxy.cut();
    await page.waitForFunction(() => (window as any).stagegraphEmbed.connected === false);
    expect((await rest(stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, me.token), body: { answerId: 'blue' } })).status).toBe(200);
    await page.click(`${scope} button[data-answer-id="red"]`);
    await proxy.restore();
    await page.waitForSelector(`${scope} [data-poll-id][data-answer-error="CONFLICT"]`, { timeout: 10_000 });
    await waitForResults(page, scope, { total: '1', rows: [row('red', 'Red', 0), row('blue', 'Blue <b>!</b>', 1, { mine: true })] });
    expect((await buttonsOf(page, scope)).map((button) => button.disabled)).toEqual([true, true]);
  });

  it('offers the answers once the page hands over a token (set:token), on the new socket', async () => {
    const pollId = await createPoll(colours);
    const page = await openEmbed({ mode: 'timecode' });
    const scope = await showByMessage(page, pollId, 60);
    await waitForResults(page, scope, { total: '0', rows: [row('red', 'Red', 0), row('blue', 'Blue <b>!</b>', 0)] });
    expect(await page.$$(`${scope} button`)).toEqual([]);
    const me = await site.signIn([]);
    await page.evaluate((token) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'set:token', data: token }, '*'), me.token);
    await page.waitForSelector(`${scope} button[data-answer-id="blue"]:not([disabled])`);
    await page.click(`${scope} button[data-answer-id="blue"]`);
    await waitForResults(page, scope, { total: '1', rows: [row('red', 'Red', 0), row('blue', 'Blue <b>!</b>', 1, { mine: true })] });
    const stored = await rest(stack, 'GET', `/poll/v3/${pollId}/results`, { headers: viewer(site, me.token) });
    expect(stored.body.mine).toEqual({ answerId: 'blue', correct: null });
  });

  it('subscribes while the overlay is shown and unsubscribes when it goes, in live mode too', async () => {
    const pollId = await createPoll(colours);
    const page = await openEmbed({ token: await site.token([]) });
    // The frames the page sends on its socket, as the browser's network layer sees them.
    const sent: { id?: string; type: string; payload?: { query?: string; variables?: { pollId?: string } } }[] = [];
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketFrameSent', (event) => sent.push(JSON.parse(event.response.payloadData)));

    const scope = await showByMessage(page, pollId, 2);
    await waitForResults(page, scope, { total: '0', rows: [row('red', 'Red', 0), row('blue', 'Blue <b>!</b>', 0)] });
    const subscribed = sent.find((frame) => frame.type === 'subscribe' && frame.payload?.variables?.pollId === pollId && /pollResults/.test(frame.payload.query ?? ''));
    expect(subscribed).toBeDefined();
    await page.waitForSelector(scope, { hidden: true, timeout: 15_000 });
    await eventually(() => sent.some((frame) => frame.id === subscribed!.id && frame.type === 'complete'), 'the page completes its subscription');
    expect(sent.filter((frame) => frame.id === subscribed!.id).map((frame) => frame.type)).toEqual(['subscribe', 'complete']);
  });
});
