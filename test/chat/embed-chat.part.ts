/**
 * The chat panel page (`/embed/v1/chat`) in a real browser (headless Chromium) against the real stack:
 * history and live messages shown as text (HTML never parsed), the welcome message and rules link, the
 * login button posting the SDK's login message, sending from the page, refusals inline (with the slow
 * mode's countdown), deleted messages vanishing, and a dropped connection coming back with what it
 * missed, each message once. With WebSocket missing from the page, or throwing as under a CSP without ws:,
 * the same over Server-Sent Events
 * (history, live messages, sending, coming back after a drop). In timecode mode, a recording's chat
 * replayed at the second posted, and driven by the player helper from a real `<video>` on the site's own
 * page (another origin) as it plays and seeks.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser, startWatchPage, type StaticSite, waitInPage, waitShown } from '../helpers/browser';
import { createChatPanel, sendChat } from '../helpers/chat';
import { rest } from '../helpers/http';
import { refuseSockets } from '../helpers/pageSockets';
import { startTcpProxy, type TcpProxy } from '../helpers/proxy';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;

let stack: Stack;
let site: TestSite;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  site = await createTestSite(stack, 'Chat embed site');
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});
afterAll(async () => {
  await browser?.close();
  await stopAll();
});

/**
 * The chat page of a panel; `withoutWebSocket` removes WebSocket from the page (it then falls back to SSE).
 * `subscribed` receives the variables of each chat subscription the page sends (socket frames, SSE requests).
 */
async function openChat(
  panelId: string,
  options: { token?: string; base?: string; withoutWebSocket?: boolean | 'throwing'; subscribed?: any[] } = {},
): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  const { subscribed } = options;
  if (subscribed) {
    const session = await page.createCDPSession();
    await session.send('Network.enable');
    const record = (text: string | undefined) => {
      const body = text ? JSON.parse(text) : null;
      const operation = body?.payload ?? body;
      if (operation?.query?.includes('EmbedChat(')) subscribed.push(operation.variables);
    };
    session.on('Network.webSocketFrameSent', (event: any) => record(event.response.payloadData));
    session.on('Network.requestWillBeSent', (event: any) => event.request.url.endsWith('/graphql/stream') && record(event.request.postData));
  }
  await page.evaluateOnNewDocument(() => {
    window.posted = [];
    window.addEventListener('message', (event: any) => window.posted.push(event.data));
  });
  if (options.withoutWebSocket === 'throwing') await page.evaluateOnNewDocument(refuseSockets);
  else if (options.withoutWebSocket) await page.evaluateOnNewDocument(() => delete window.WebSocket);
  const query = new URLSearchParams({ siteId: site.siteId, panelId, ...(options.token ? { token: options.token } : {}) });
  await page.goto(`${options.base ?? stack.url}/embed/v1/chat?${query.toString()}`);
  const connected = await waitInPage(page, () => window.stagegraphChat?.connected === true && performance.now());
  // Whatever keeps the socket from opening, the page is on SSE within 10 s of its navigation.
  expect(await connected.jsonValue()).toBeLessThan(10_000);
  expect(await page.evaluate(() => window.stagegraphChat.transport)).toBe(options.withoutWebSocket ? 'sse' : 'websocket');
  return page;
}

/** The texts shown, in order. */
const shownTexts = (page: Page): Promise<string[]> => page.evaluate(() => [...document.querySelectorAll('.sg-chat-text')].map((node: any) => node.textContent));

/** Waits for a message's text; checked on each change of the page (animation frames stop in a page in the background). */
const untilShown = (page: Page, text: string) =>
  waitInPage(
    page,
    (wanted: string) => [...document.querySelectorAll('.sg-chat-text')].some((node: any) => node.textContent === wanted),
    { polling: 'mutation' },
    text,
  );

describe('the chat page', () => {
  it('shows history and live messages as text, the welcome message and rules link, and a login button without a token', async () => {
    const panelId = await createChatPanel(stack, site, { rules_link_url: 'https://example.com/rules', login_button_text: 'Join the chat' });
    const author = await site.token([]);
    await sendChat(stack, site, author, panelId, '<b>bold?</b> <img src=x onerror="window.pwned=1">');
    const page = await openChat(panelId);
    await untilShown(page, '<b>bold?</b> <img src=x onerror="window.pwned=1">');
    expect(
      await page.evaluate(() => ({
        b: document.querySelector('#sg-chat-messages b'),
        img: document.querySelector('#sg-chat-messages img'),
        pwned: window.pwned ?? null,
      })),
    ).toEqual({ b: null, img: null, pwned: null });
    expect(await page.$eval('#sg-chat-welcome', (node: any) => node.textContent)).toBe('Welcome!');
    expect(await page.$eval('#sg-chat-rules', (node: any) => ({ href: node.href, hidden: node.hidden }))).toEqual({
      href: 'https://example.com/rules',
      hidden: false,
    });
    expect(await page.$eval('#sg-chat-send', (node: any) => node.hidden)).toBe(true);
    expect(await page.$eval('#sg-chat-login', (node: any) => ({ text: node.textContent, hidden: node.hidden }))).toEqual({
      text: 'Join the chat',
      hidden: false,
    });
    await page.click('#sg-chat-login');
    await waitInPage(page, () => window.posted.some((data: any) => data?.action === 'login'));
    expect(await page.evaluate(() => window.posted.find((data: any) => data?.action === 'login'))).toEqual({
      source: 'service:iframe:sdk:v1',
      action: 'login',
    });

    await sendChat(stack, site, author, panelId, 'live one');
    await untilShown(page, 'live one');
    expect(await shownTexts(page)).toEqual(['<b>bold?</b> <img src=x onerror="window.pwned=1">', 'live one']);
  });

  it('sends with a token, shows refusals inline with the slow mode countdown, and drops deleted messages', async () => {
    const panelId = await createChatPanel(stack, site, { filtered_words: 'spoiler', slow_mode_seconds: 30 });
    const { accountId, token } = await site.signIn([]);
    const page = await openChat(panelId, { token });
    expect(await page.$eval('#sg-chat-login', (node: any) => node.hidden)).toBe(true);

    await page.type('#sg-chat-text', 'a spoiler here');
    await page.click('#sg-chat-submit');
    await waitShown(page, '#sg-chat-refusal[data-refusal="filtered_word"]', true);
    expect(await page.$eval('#sg-chat-refusal', (node: any) => node.textContent)).toMatch(/filters/);

    await page.$eval('#sg-chat-text', (node: any) => (node.value = ''));
    await page.type('#sg-chat-text', 'hello from the page');
    await page.click('#sg-chat-submit');
    await untilShown(page, 'hello from the page');
    const row = await stack.database.prisma.chatMessage.findFirst({ where: { panelId, accountId } });
    expect(row?.text).toBe('hello from the page');
    expect(await page.$eval('#sg-chat-refusal', (node: any) => node.hidden)).toBe(true);

    await page.type('#sg-chat-text', 'too soon');
    await page.click('#sg-chat-submit');
    await waitShown(page, '#sg-chat-refusal[data-refusal="slow_mode"]', true);
    const left = Number(await page.$eval('#sg-chat-refusal', (node: any) => node.dataset.secondsLeft));
    expect(left).toBeGreaterThan(25);
    expect(left).toBeLessThanOrEqual(30);
    expect(await page.$eval('#sg-chat-submit', (node: any) => node.disabled)).toBe(true);
    // The countdown runs in the page.
    await waitInPage(page, (start: number) => Number(document.querySelector('#sg-chat-refusal').dataset.secondsLeft) < start, {}, left);

    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${row?.id}`, { headers: site.admin })).status).toBe(200);
    await waitInPage(page, () => document.querySelectorAll('.sg-chat-message').length === 0);
  });

  it.each([
    ['over the socket', false],
    ['over SSE (no WebSocket in the page)', true],
  ])('comes back after a dropped connection with what it missed, each message once, %s', async (_name, withoutWebSocket) => {
    const panelId = await createChatPanel(stack, site);
    const author = await site.token([]);
    const proxy: TcpProxy = await startTcpProxy('127.0.0.1', Number(new URL(stack.url).port));
    try {
      const subscribed: any[] = [];
      const page = await openChat(panelId, { base: `http://127.0.0.1:${proxy.port}`, withoutWebSocket, subscribed });
      await sendChat(stack, site, author, panelId, 'one');
      await untilShown(page, 'one');
      await proxy.cut();
      await waitInPage(page, () => window.stagegraphChat.connected === false);
      await sendChat(stack, site, author, panelId, 'two');
      await sendChat(stack, site, author, panelId, 'three');
      await proxy.restore();
      await waitInPage(page, () => window.stagegraphChat.connections >= 2 && window.stagegraphChat.connected);
      await untilShown(page, 'three');
      await sendChat(stack, site, author, panelId, 'four');
      await untilShown(page, 'four');
      expect(await shownTexts(page)).toEqual(['one', 'two', 'three', 'four']);
      // The first subscription asked for the room as it is; every one after the drop for what followed seq 1.
      expect(subscribed[0]).toEqual({ panelId, afterSeq: null });
      expect(subscribed.length).toBeGreaterThanOrEqual(2);
      expect(subscribed.slice(1)).toEqual(subscribed.slice(1).map(() => ({ panelId, afterSeq: 1 })));
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ['WebSocket missing from the page', true],
    ['the page’s WebSocket throwing (a CSP without ws:)', 'throwing'],
  ] as const)('with %s: history and live messages over SSE, and a signed-in viewer sends', async (_name, withoutWebSocket) => {
    const panelId = await createChatPanel(stack, site);
    const author = await site.token([]);
    await sendChat(stack, site, author, panelId, 'history');
    const reader = await openChat(panelId, { withoutWebSocket });
    const { accountId, token } = await site.signIn([]);
    const sender = await openChat(panelId, { token, withoutWebSocket });
    for (const page of [reader, sender]) await untilShown(page, 'history');
    expect(await reader.$eval('#sg-chat-welcome', (node: any) => node.textContent)).toBe('Welcome!');
    expect(await reader.$eval('#sg-chat-login', (node: any) => node.hidden)).toBe(false);

    await sendChat(stack, site, author, panelId, 'live');
    for (const page of [reader, sender]) await untilShown(page, 'live');

    expect(await sender.$eval('#sg-chat-send', (node: any) => node.hidden)).toBe(false);
    await sender.type('#sg-chat-text', 'sent without a socket');
    await sender.click('#sg-chat-submit');
    for (const page of [reader, sender]) await untilShown(page, 'sent without a socket');
    const row = await stack.database.prisma.chatMessage.findFirst({ where: { panelId, accountId } });
    expect(row?.text).toBe('sent without a socket');
    await waitInPage(sender, () => document.querySelector('#sg-chat-text').value === '', { polling: 50 });
    for (const page of [reader, sender]) {
      expect(await shownTexts(page)).toEqual(['history', 'live', 'sent without a socket']);
      expect(await page.evaluate(() => window.stagegraphChat.transport)).toBe('sse');
    }
  });

  it('replays a recording’s chat at the second the player posts, seeking back and forth, with no send box', async () => {
    const panelId = await createChatPanel(stack, site, { panel_type: 'live-stream chat' });
    const { accountId } = await site.signIn([]);
    const liveBroadcastId = `lb-${panelId}`;
    // Test data: a recording's messages as the send path stamps them (tested in chat-live.part.ts).
    await stack.database.prisma.chatMessage.createMany({
      data: [1, 3, 5].map((second, index) => ({
        id: `${panelId}-${second}`,
        siteId: site.siteId,
        panelId,
        seq: index + 1,
        accountId,
        text: `at ${second}`,
        liveBroadcastId,
        streamSecond: second,
      })),
    });
    const page = await browser.newPage();
    pages.push(page);
    await page.goto(`${stack.url}/embed/v1/chat?${new URLSearchParams({ siteId: site.siteId, panelId, mode: 'timecode', liveBroadcastId }).toString()}`);
    await waitInPage(page, () => window.stagegraphChat?.replayed === 3);
    const at = async (second: number, texts: string[]) => {
      await page.evaluate((data: number) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'chat:time', data }, '*'), second);
      await waitInPage(
        page,
        (wanted: string) => JSON.stringify([...document.querySelectorAll('.sg-chat-text')].map((node: any) => node.textContent)) === wanted,
        {},
        JSON.stringify(texts),
      );
    };
    await at(0, []);
    await at(3, ['at 1', 'at 3']);
    await at(9, ['at 1', 'at 3', 'at 5']);
    await at(2, ['at 1']);
    expect(
      await page.evaluate(() => ({ send: document.querySelector('#sg-chat-send').hidden, login: document.querySelector('#sg-chat-login').hidden })),
    ).toEqual({ send: true, login: true });
  });

  describe('driven by the player helper from a real video on the site’s own page', () => {
    let customer: StaticSite;
    afterAll(() => customer?.close());

    it('shows each message as the video plays through its second, and the chat as it stood after a seek', async () => {
      const panelId = await createChatPanel(stack, site, { panel_type: 'live-stream chat' });
      const { accountId } = await site.signIn([]);
      const liveBroadcastId = `lb-video-${panelId}`;
      // Test data: a recording's messages as the send path stamps them (tested in chat-live.part.ts).
      await stack.database.prisma.chatMessage.createMany({
        data: [1, 3, 5].map((second, index) => ({
          id: `${panelId}-${second}`,
          siteId: site.siteId,
          panelId,
          seq: index + 1,
          accountId,
          text: `at ${second}`,
          liveBroadcastId,
          streamSecond: second,
        })),
      });
      const chatUrl = `${stack.url}/embed/v1/chat?${new URLSearchParams({ siteId: site.siteId, panelId, mode: 'timecode', liveBroadcastId }).toString()}`;
      customer = await startWatchPage(stack.url, chatUrl);
      const page = await browser.newPage();
      pages.push(page);
      await page.goto(`${customer.url}/watch.html`);
      await waitInPage(page, () => document.getElementById('video').readyState >= 1);
      const frame = await (await page.$('#frame'))!.contentFrame();
      await waitInPage(frame, () => window.stagegraphChat?.replayed === 3);
      await page.evaluate(() => {
        window.chat = window.stagegraph.attachTimecodeChat({ video: document.getElementById('video'), frame: document.getElementById('frame') });
      });
      const shownAt = (texts: string[]) =>
        waitInPage(
          frame,
          (wanted: string) => JSON.stringify([...document.querySelectorAll('.sg-chat-text')].map((node: any) => node.textContent)) === wanted,
          { polling: 50, timeout: 30_000 },
          JSON.stringify(texts),
        );
      const seek = (to: number) =>
        page.evaluate((second: number) => {
          document.getElementById('video').currentTime = second;
        }, to);

      await seek(3.4);
      await shownAt(['at 1', 'at 3']);
      // Playing on from 3.4 s: the message at 5 s appears when the video gets there.
      await page.evaluate(() => document.getElementById('video').play());
      await shownAt(['at 1', 'at 3', 'at 5']);
      expect(await page.evaluate(() => document.getElementById('video').currentTime)).toBeGreaterThanOrEqual(5);
      await page.evaluate(() => document.getElementById('video').pause());
      // A seek back: the chat as it stood at 2 s.
      await seek(2.2);
      await shownAt(['at 1']);
      await seek(0.5);
      await shownAt([]);
    });
  });
});
