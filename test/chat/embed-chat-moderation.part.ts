/**
 * The chat page's moderation elements in a real browser (headless Chromium) against the real stack: a
 * message held for review shown to its author only, marked "held for review", and replaced by the room's
 * copy once approved; a warning shown with its acknowledge button, which gives the send box back; and
 * "Announcements only" / "Subscribers only" in place of the send box when the room's mode keeps the
 * viewer out.
 */
import type { Page } from 'puppeteer-core';
import { useBrowserSuite } from '../helpers/browserSuite';
import { createChatPanel, sendChat } from '../helpers/chat';
import { rest } from '../helpers/http';
import { createChannel, type TestSite } from '../helpers/stack';
import type { Stack } from '../../stack';
import { waitInPage, waitShown } from '../helpers/browser';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;

const suite = useBrowserSuite('Moderated chat embed');

async function openChat(panelId: string, token: string): Promise<Page> {
  const page = await suite.newPage();
  await page.goto(`${suite.stack.url}/embed/v1/chat?${new URLSearchParams({ siteId: suite.site.siteId, panelId, token }).toString()}`);
  // Polled on a timer: animation frames stop in a page in the background.
  await waitInPage(page, () => window.stagegraphChat?.connected === true, { polling: 100 });
  return page;
}

const untilShown = (page: Page, text: string) =>
  waitInPage(
    page,
    (wanted: string) => [...document.querySelectorAll('.sg-chat-text')].some((node: any) => node.textContent === wanted),
    { polling: 'mutation' },
    text,
  );
const shownTexts = (page: Page): Promise<string[]> => page.evaluate(() => [...document.querySelectorAll('.sg-chat-text')].map((node: any) => node.textContent));

/** Waits for a selector, checked on each change of the page (animation frames stop in a page in the background). */
const untilPresent = (page: Page, selector: string) =>
  waitInPage(page, (wanted: string) => document.querySelector(wanted) !== null, { polling: 'mutation' }, selector);

async function submit(page: Page, text: string): Promise<void> {
  await page.bringToFront();
  await waitShown(page, '#sg-chat-send', true);
  await page.type('#sg-chat-text', text);
  await page.click('#sg-chat-submit');
}

describe('the chat page, moderated', () => {
  let stack: Stack;
  let site: TestSite;
  beforeAll(() => {
    ({ stack, site } = suite);
  });

  it('shows a held message to its author only, marked held for review with no reply button, and the room’s copy once approved', async () => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'review' });
    const author = await openChat(panelId, await site.token([]));
    const other = await openChat(panelId, await site.token([]));
    await submit(author, 'please review me');
    await untilPresent(author, '.sg-chat-pending[data-held] .sg-chat-held');
    expect(
      await author.$eval('.sg-chat-pending[data-held]', (node: any) => [
        node.querySelector('.sg-chat-text').textContent,
        node.querySelector('.sg-chat-held').textContent,
      ]),
    ).toEqual(['please review me', 'held for review']);
    expect(await author.$eval('.sg-chat-pending[data-held]', (node: any) => node.querySelector('.sg-chat-reply') === null)).toBe(true);
    // A witness sent after it reaches the other viewer: the held message did not.
    await sendChat(stack, site, await site.token([]), panelId, 'witness');
    await untilShown(other, 'witness');
    expect(await shownTexts(other)).toEqual(['witness']);

    const [held] = (await rest(stack, 'GET', `/chat/v1/${panelId}/held`, { headers: site.admin })).body.held;
    expect((await rest(stack, 'POST', `/chat/v1/${panelId}/held/${held.id}/approve`, { headers: site.admin })).status).toBe(200);
    await untilShown(other, 'please review me');
    await waitInPage(
      author,
      () => !document.querySelector('.sg-chat-pending') && document.querySelector('[data-seq="2"] .sg-chat-text')?.textContent === 'please review me',
      { polling: 'mutation' },
    );
    expect(await shownTexts(author)).toEqual(['witness', 'please review me']);
    expect(await author.$('[data-seq="2"] .sg-chat-reply')).not.toBeNull();
  });

  it('shows a warning with its acknowledge button in place of the send box; acknowledging gives it back', async () => {
    const panelId = await createChatPanel(stack, site);
    const warned = await site.signIn([]);
    expect(
      (await rest(stack, 'POST', '/chat/v1/warnings', { headers: site.admin, body: { accountId: warned.accountId, reason: 'Mind the language' } })).status,
    ).toBe(201);
    const page = await openChat(panelId, warned.token);
    await waitShown(page, '#sg-chat-warning', true);
    expect(await page.$eval('#sg-chat-warning-text', (node: any) => node.textContent)).toMatch(/Mind the language/);
    expect(await page.$eval('#sg-chat-send', (node: any) => node.hidden)).toBe(true);
    await page.click('#sg-chat-ack');
    await waitShown(page, '#sg-chat-warning', false);
    await submit(page, 'I will');
    await untilShown(page, 'I will');
    expect(await stack.database.prisma.chatWarning.count({ where: { accountId: warned.accountId, acknowledgedAt: null } })).toBe(0);
  });

  it('says announcements only or subscribers only in place of the send box when the mode keeps the viewer out', async () => {
    const announcements = await createChatPanel(stack, site, { chat_mode: 'admins' });
    const page = await openChat(announcements, await site.token([]));
    await waitShown(page, '#sg-chat-closed', true);
    expect(await page.$eval('#sg-chat-closed', (node: any) => [node.textContent, node.dataset.mode])).toEqual(['Announcements only', 'admins']);
    expect(await page.$eval('#sg-chat-send', (node: any) => node.hidden)).toBe(true);

    const channelId = await createChannel(stack, site.siteId);
    await stack.database.prisma.page.update({
      where: { id: channelId },
      data: { document: { data: { name: 'Members', gate: { active: true, kind: 'entitlement', gate: { subscriptions: ['members'] } } } } },
    });
    const members = await createChatPanel(stack, site, { chat_mode: 'entitled', channel: channelId });
    const outsider = await openChat(members, await site.token([]));
    await waitShown(outsider, '#sg-chat-closed', true);
    expect(await outsider.$eval('#sg-chat-closed', (node: any) => node.textContent)).toBe('Subscribers only');
    expect(await outsider.$eval('#sg-chat-send', (node: any) => node.hidden)).toBe(true);
    // A moderator of the room keeps the send box.
    const moderator = await openChat(members, await site.token([{ pageId: [], scope: 'Panels', write: true }]));
    await waitShown(moderator, '#sg-chat-send', true);
    expect(await moderator.$eval('#sg-chat-closed', (node: any) => node.hidden)).toBe(true);
  });
});
