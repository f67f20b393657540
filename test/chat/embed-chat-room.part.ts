/**
 * The chat page's room controls in a real browser (headless Chromium) against the real stack: the pinned
 * message and announcements on top (and gone when unpinned), a reply button on each message (the reply
 * written from the page is stored with its replyTo, and shown with the answered message's name and
 * excerpt), the room's reaction buttons (only with a token) whose counts — the page's own and other
 * viewers' — float up over the messages, and how many watch.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser, waitInPage, waitShown } from '../helpers/browser';
import { createChatPanel, sendChat } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;
declare const MutationObserver: any;

let stack: Stack;
let site: TestSite;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack({ env: { CHAT_OCCUPANCY_MS: '200' } }), launchBrowser()]);
  site = await createTestSite(stack, 'Chat room embed site');
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});
afterAll(async () => {
  await browser?.close();
  await stopAll();
});

/** The chat page of a panel, live; every floating count the page shows is recorded in `window.floated`. */
async function openRoom(panelId: string, token?: string): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  await page.evaluateOnNewDocument(() => {
    window.floated = [];
    new MutationObserver((records: any[]) => {
      for (const record of records)
        for (const node of record.addedNodes)
          if (node.classList?.contains('sg-chat-float')) window.floated.push({ emoji: node.dataset.emoji, count: Number(node.dataset.count) });
    }).observe(document, { childList: true, subtree: true });
  });
  const query = new URLSearchParams({ siteId: site.siteId, panelId, ...(token ? { token } : {}) });
  await page.goto(`${stack.url}/embed/v1/chat?${query.toString()}`);
  await waitInPage(page, () => window.stagegraphChat?.connected === true);
  return page;
}

const text = (page: Page, selector: string) => page.$eval(selector, (node: any) => (node.hidden ? null : node.textContent));
const onChange = { polling: 'mutation' as const };

describe('the chat page of a room', () => {
  it('shows the pinned message on top, then an announcement in its place, and nothing once unpinned', async () => {
    const panelId = await createChatPanel(stack, site, { system_name: 'Stage crew' });
    const author = await site.signIn([]);
    const message = await sendChat(stack, site, author.token, panelId, 'Doors open at 7');
    expect((await rest(stack, 'POST', `/chat/v1/${panelId}/pin`, { headers: site.admin, body: { messageId: message.body.id } })).status).toBe(200);
    const page = await openRoom(panelId);
    await page.waitForSelector('#sg-chat-pinned:not([hidden])');
    expect(await text(page, '#sg-chat-pinned .sg-chat-pinned-text')).toBe('Doors open at 7');
    expect(await text(page, '#sg-chat-pinned .sg-chat-name')).toBe(author.accountId);

    await rest(stack, 'POST', `/chat/v1/${panelId}/pin`, { headers: site.admin, body: { text: '<i>Show</i> starts soon' } });
    await waitInPage(page, () => document.querySelector('#sg-chat-pinned .sg-chat-pinned-text')?.textContent === '<i>Show</i> starts soon', onChange);
    expect(await text(page, '#sg-chat-pinned .sg-chat-name')).toBe('Stage crew');
    expect(await page.evaluate(() => document.querySelector('#sg-chat-pinned i'))).toBeNull();

    await rest(stack, 'DELETE', `/chat/v1/${panelId}/pin`, { headers: site.admin });
    await waitShown(page, '#sg-chat-pinned', false);
  });

  it('replies from the message’s reply button, and shows a reply with the answered message’s name and excerpt', async () => {
    const panelId = await createChatPanel(stack, site);
    const author = await site.signIn([]);
    const answered = await sendChat(stack, site, author.token, panelId, 'Who is playing tonight?');
    const { token, accountId } = await site.signIn([]);
    const page = await openRoom(panelId, token);
    await page.waitForSelector(`[data-message-id="${answered.body.id}"] .sg-chat-reply`);
    await page.click(`[data-message-id="${answered.body.id}"] .sg-chat-reply`);
    expect(await text(page, '#sg-chat-replying-text')).toBe(`Replying to ${author.accountId}`);
    await page.type('#sg-chat-text', 'The headliners!');
    await page.click('#sg-chat-submit');
    const quote = await page.waitForSelector('.sg-chat-message:last-child .sg-chat-reply-to');
    expect(
      await quote!.evaluate((node: any) => [
        node.dataset.replyTo,
        node.querySelector('.sg-chat-reply-name').textContent,
        node.querySelector('.sg-chat-reply-excerpt').textContent,
      ]),
    ).toEqual([answered.body.id, author.accountId, 'Who is playing tonight?']);
    expect(await page.$eval('#sg-chat-replying', (node: any) => node.hidden)).toBe(true);
    const row = await stack.database.prisma.chatMessage.findFirst({ where: { panelId, accountId } });
    expect(row).toMatchObject({ text: 'The headliners!', replyToId: answered.body.id, replyAccountId: author.accountId });
  });

  it('offers the room’s reactions with a token only, and floats the counts of its own and others’ reactions', async () => {
    const panelId = await createChatPanel(stack, site, { reactions: ['🎸', '🔥'] });
    const reader = await openRoom(panelId);
    expect(await reader.$eval('#sg-chat-reactions', (node: any) => node.hidden)).toBe(true);
    const page = await openRoom(panelId, await site.token([]));
    expect(await page.$$eval('.sg-chat-react', (nodes: any[]) => nodes.map((node) => node.textContent))).toEqual(['🎸', '🔥']);
    await page.click('.sg-chat-react[data-emoji="🎸"]');
    const others = await Promise.all([site.token([]), site.token([])]);
    for (const jwt of [...others, ...others]) {
      expect((await rest(stack, 'POST', `/chat/v1/${panelId}/reactions`, { headers: viewer(site, jwt), body: { emoji: '🔥' } })).status).toBe(200);
    }
    const total = (emoji: string) => `window.floated.filter((entry) => entry.emoji === '${emoji}').reduce((sum, entry) => sum + entry.count, 0)`;
    for (const watching of [page, reader]) await waitInPage(watching, `${total('🎸')} === 1 && ${total('🔥')} === 4`);
    expect(await page.evaluate(() => document.querySelectorAll('#sg-chat-floats .sg-chat-float').length)).toBeLessThanOrEqual(24);
  });

  it('shows how many watch the room', async () => {
    const panelId = await createChatPanel(stack, site);
    const first = await openRoom(panelId);
    await openRoom(panelId);
    await waitInPage(first, () => document.querySelector('#sg-chat-viewers')?.dataset.viewers === '2', onChange);
    expect(await text(first, '#sg-chat-viewers')).toBe('2 watching');
  });
});
