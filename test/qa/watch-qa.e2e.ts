/**
 * The watch page's Q&A panel (docs/api.md "Questions the audience votes up"), in headless Chromium against
 * the real stack: a signed-out viewer is asked to sign in; a signed-in viewer asks (a refusal said inline,
 * the room's max_length counted down), sees others' questions arrive live in vote order, votes and takes a
 * vote back, sees "Answered" and "Highlighted" marks as moderators act, and its own held question marked
 * "Awaiting approval" in a moderated room. Each state has no serious or critical axe-core violation.
 */
import type { Page } from 'puppeteer-core';
import { waitInPage, waitShown } from '../helpers/browser';
import { ask, createQaPanel, moderate } from '../helpers/qa';
import { axeViolations, createChannelPage, panelSelector, sidebarOf, textIn, untilPanels } from '../helpers/watchChannel';
import { watchTestbed } from '../helpers/watchPage';

/**
 * Clicks what `selector` names at the moment of the click, in one turn of the page: the room's list is drawn
 * again at each push, and a button found first and clicked a round trip later may be gone from the page.
 */
const clickNow = (page: Page, selector: string) =>
  page.evaluate((chosen: string) => {
    const button = document.querySelector(chosen);
    if (!button) throw new Error(`nothing at ${chosen}`);
    button.click();
  }, selector);

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const document: any;

const bed = watchTestbed('Q&A watch site');

const audit = async (state: string, page: Page) => expect({ state, violations: await axeViolations(page) }).toEqual({ state, violations: [] });

/** The questions the panel lists, in order: their text, votes, marks and whether the viewer's vote is pressed. */
const listed = (page: Page, panel: string) =>
  page.$$eval(`${panel} li.sg-qa-question`, (items: any[]) =>
    items.map((item) => ({
      text: item.querySelector('.sg-qa-text').textContent,
      votes: Number(item.querySelector('[data-votes]').dataset.votes),
      marks: [...item.querySelectorAll('.sg-qa-mark')].map((mark: any) => mark.textContent),
      pressed: item.querySelector('button[data-vote]')?.getAttribute('aria-pressed') ?? null,
    })),
  );

/** Waits until the panel lists questions that `test` accepts (checked in the page on a timer). */
const untilListed = (page: Page, panel: string, texts: string[]) =>
  waitInPage(
    page,
    (selector: string, wanted: string[]) =>
      JSON.stringify([...document.querySelectorAll(`${selector} li.sg-qa-question .sg-qa-text`)].map((node: any) => node.textContent)) ===
      JSON.stringify(wanted),
    { timeout: 30_000 },
    panel,
    texts,
  );

describe('the Q&A panel of the watch page', () => {
  it('lets a signed-in viewer ask, vote and follow the room live, with answered and highlighted marks', async () => {
    const panelId = await createQaPanel(bed.stack, bed.site, { max_length: 40 }, { filtered_words: 'spoiler', panel_name: 'Ask the band' });
    const channelId = await createChannelPage(bed.stack, bed.site, { name: 'Q&A stage' }, sidebarOf([panelId]));
    const panel = panelSelector(panelId);

    const anonymous = await bed.open(channelId);
    await untilPanels(anonymous.page, 1);
    await waitShown(anonymous.page, `${panel} button`);
    expect(await textIn(anonymous.page, `${panel} .sg-panel-note`)).toContain('Sign in to ask');
    await audit('signed out', anonymous.page);

    const viewer = await bed.site.signIn([]);
    const { page } = await bed.open(channelId, { token: viewer.token });
    await untilPanels(page, 1);
    await waitShown(page, `${panel} textarea`);
    expect(await page.$eval(`${panel} textarea`, (node: any) => node.maxLength)).toBe(40);
    await page.type(`${panel} textarea`, 'No spoiler please');
    await page.click(`${panel} .sg-qa-ask button[type="submit"]`);
    await waitInPage(page, (selector: string) => /filters/.test(document.querySelector(selector)?.textContent ?? ''), {}, `${panel} .sg-qa-error`);
    await audit('a refusal', page);

    await page.$eval(`${panel} textarea`, (node: any) => (node.value = ''));
    await page.type(`${panel} textarea`, 'What is the first song?');
    await page.click(`${panel} .sg-qa-ask button[type="submit"]`);
    await untilListed(page, panel, ['What is the first song?']);

    // Others ask; the room comes live in vote order.
    const [first, second] = await Promise.all([bed.site.signIn([]), bed.site.signIn([])]);
    const encore = await ask(bed.stack, bed.site, first.token, panelId, { text: 'Will there be an encore?' });
    const merch = await ask(bed.stack, bed.site, second.token, panelId, { text: 'Where is the merch stand?' });
    await untilListed(page, panel, ['What is the first song?', 'Will there be an encore?', 'Where is the merch stand?']);

    await clickNow(page, `${panel} button[data-vote="${merch.body.id}"]`);
    await untilListed(page, panel, ['Where is the merch stand?', 'What is the first song?', 'Will there be an encore?']);
    expect((await listed(page, panel))[0]).toEqual({ text: 'Where is the merch stand?', votes: 1, marks: [], pressed: 'true' });
    // Again takes the vote back.
    await clickNow(page, `${panel} button[data-vote="${merch.body.id}"]`);
    await waitInPage(
      page,
      (selector: string) => document.querySelector(selector)?.getAttribute('aria-pressed') === 'false',
      {},
      `${panel} button[data-vote="${merch.body.id}"]`,
    );
    await clickNow(page, `${panel} button[data-vote="${encore.body.id}"]`);
    await untilListed(page, panel, ['Will there be an encore?', 'What is the first song?', 'Where is the merch stand?']);

    expect((await moderate(bed.stack, bed.site, panelId, merch.body.id, 'answer')).status).toBe(200);
    expect((await moderate(bed.stack, bed.site, panelId, encore.body.id, 'highlight')).status).toBe(200);
    await waitInPage(
      page,
      (selector: string, encoreId: string, merchId: string) => {
        const marks = (id: string) =>
          [...(document.querySelector(`${selector} li[data-question-id="${id}"]`)?.querySelectorAll('.sg-qa-mark') ?? [])].map((mark: any) => mark.textContent);
        return marks(encoreId).includes('Highlighted') && marks(merchId).includes('Answered');
      },
      { timeout: 30_000 },
      panel,
      encore.body.id as string,
      merch.body.id as string,
    );
    const after = await listed(page, panel);
    expect(after.find((question) => question.text === 'Will there be an encore?')).toEqual({
      text: 'Will there be an encore?',
      votes: 1,
      marks: ['Highlighted'],
      pressed: 'true',
    });
    expect(after.find((question) => question.text === 'Where is the merch stand?')?.marks).toEqual(['Answered']);
    // The viewer's own question has no vote button.
    expect(after.find((question) => question.text === 'What is the first song?')?.pressed).toBeNull();
    await audit('answered and highlighted', page);
  }, 120_000);

  it('marks the viewer’s own held question in a moderated room until a moderator approves it', async () => {
    const panelId = await createQaPanel(bed.stack, bed.site, { moderated: true });
    const channelId = await createChannelPage(bed.stack, bed.site, { name: 'Moderated stage' }, sidebarOf([panelId]));
    const panel = panelSelector(panelId);
    const viewer = await bed.site.signIn([]);
    const { page } = await bed.open(channelId, { token: viewer.token });
    await untilPanels(page, 1);
    await waitShown(page, `${panel} textarea`);
    await page.type(`${panel} textarea`, 'Held for now?');
    await page.click(`${panel} .sg-qa-ask button[type="submit"]`);
    await untilListed(page, panel, ['Held for now?']);
    expect(await listed(page, panel)).toEqual([{ text: 'Held for now?', votes: 0, marks: ['Awaiting approval'], pressed: null }]);
    await audit('held', page);

    const held = (await bed.stack.database.prisma.qaQuestion.findFirstOrThrow({ where: { panelId } })).id;
    expect((await moderate(bed.stack, bed.site, panelId, held, 'approve')).status).toBe(200);
    await waitInPage(
      page,
      (selector: string) => document.querySelector(selector)?.dataset.status === 'open',
      { timeout: 30_000 },
      `${panel} li.sg-qa-question`,
    );
    expect((await listed(page, panel))[0].marks).toEqual([]);
  }, 120_000);
});
