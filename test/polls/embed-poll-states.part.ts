/**
 * What a viewer sees of a poll in the overlay embed, state by state, in headless Chromium against the real
 * stack (issue: "the poll a viewer understands at a glance"): the question above the answers; a bar per
 * answer with its share and count, and the total; the viewer's own answer marked as theirs and nothing
 * said of right or wrong until the right answer is revealed; then the right answer marked right and the
 * viewer's answer right or wrong in words, no buttons; a closed prediction waiting for its result; a
 * viewer without a token asked to sign in. Every state's text keeps 4.5:1 contrast over a white and over a
 * black video; answers are reached and chosen by keyboard with a visible focus ring; a screen reader
 * hears the results through one polite live region, at most once every few seconds.
 */
import type { Page } from 'puppeteer-core';
import { ANNOUNCE_INTERVAL_MS } from '../../embed/pollDisplay';
import { contrastOf } from '../../scripts/contrast';
import { viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import {
  broadcastPoll,
  choose,
  createPoll,
  line,
  lowestTextContrast,
  openEmbed,
  readPoll,
  usePollScene,
  waitForPoll,
  type ShownPoll,
} from '../helpers/pollEmbed';
import { waitInPage } from '../helpers/browser';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const window: any;
declare const document: any;
declare const getComputedStyle: any;
declare const MutationObserver: any;
declare const performance: any;
type HTMLElement = any;

/** WCAG 2 AA for text. */
const AA = 4.5;

const scene = usePollScene('Poll states site');

const ANSWERS = [
  { id: 'paris', text: 'Paris' },
  { id: 'lyon', text: 'Lyon' },
  { id: 'nice', text: 'Nice' },
];

/** Answers `answerIds` over REST, each as a new account of the site. */
async function crowdAnswers(pollId: string, answerIds: string[]): Promise<void> {
  for (const answerId of answerIds) {
    const token = await scene.site.token([]);
    expect((await rest(scene.stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(scene.site, token), body: { answerId } })).status).toBe(200);
  }
}

const closePoll = async (pollId: string, body: object = { open: false }) =>
  expect((await rest(scene.stack, 'PATCH', `/poll/v3/${pollId}`, { headers: scene.site.admin, body })).status).toBe(200);

async function expectReadable(page: Page, scope: string): Promise<void> {
  expect(await lowestTextContrast(page, scope)).toBeGreaterThanOrEqual(AA);
}

/** The text of the whole poll as drawn (no hidden text). */
const pollText = (page: Page, scope: string) => page.$eval(`${scope} [data-poll-id]`, (poll: HTMLElement) => poll.innerText as string);

const shown = (fields: Omit<ShownPoll, 'total' | 'totalText'> & { total: number }): ShownPoll => ({
  ...fields,
  total: String(fields.total),
  totalText: `Total: ${fields.total} ${fields.total === 1 ? 'vote' : 'votes'}`,
});

it('shows the question, a bar per answer with its share and count, and the total; the viewer’s answer as theirs, then the final results', async () => {
  const pollId = await createPoll(scene, { type: 'poll', name: 'City', question: 'Where should the final be?', answers: ANSWERS });
  const page = await openEmbed(scene, { token: await scene.site.token([]) });
  const { scope } = await broadcastPoll(scene, pollId);
  const open = (counts: number[], shares: number[]) =>
    shown({
      state: 'open',
      question: 'Where should the final be?',
      lines: ANSWERS.map((answer, index) => line(answer.id, answer.text, counts[index], shares[index])),
      total: counts.reduce((sum, count) => sum + count, 0),
      status: 'Choose one answer. It is final.',
      statusKind: 'choose',
      buttons: ['paris', 'lyon', 'nice'],
    });
  await waitForPoll(page, scope, open([0, 0, 0], [0, 0, 0]));
  // Above the answers: the overlay's own template, then the poll's question.
  expect(await page.$eval(`${scope} [data-poll-id]`, (poll: HTMLElement) => poll.firstElementChild.textContent)).toBe('Where should the final be?');
  await crowdAnswers(pollId, ['paris', 'lyon', 'lyon']);
  await waitForPoll(page, scope, open([1, 2, 0], [33, 67, 0]));
  await expectReadable(page, scope);

  await choose(page, scope, 'nice');
  const answered = (state: 'answered' | 'closed', status: string) =>
    shown({
      state,
      question: 'Where should the final be?',
      lines: [line('paris', 'Paris', 1, 25), line('lyon', 'Lyon', 2, 50), line('nice', 'Nice', 1, 25, { mine: true, tag: 'Your answer' })],
      total: 4,
      status,
      statusKind: state,
      buttons: [],
    });
  await waitForPoll(page, scope, answered('answered', 'Your vote is in.'));
  await expectReadable(page, scope);
  // Marked as theirs, not as right: no check mark, no "right" or "wrong" anywhere yet.
  expect(await pollText(page, scope)).not.toMatch(/✓|✗|\bright\b|\bwrong\b/i);

  await closePoll(pollId);
  await waitForPoll(page, scope, answered('closed', 'Voting closed. Final results.'));
  expect(await page.$(`${scope} [data-correct]`)).toBeNull();
});

describe('a trivia once it closes', () => {
  const trivia = { type: 'trivia', name: 'Capital', question: 'Capital of France?', answers: ANSWERS, correctAnswerId: 'paris' };
  const revealed = (counts: [number, number, number], mine: 'paris' | 'lyon' | null, status: string, statusKind: string): ShownPoll =>
    shown({
      state: 'revealed',
      question: 'Capital of France?',
      lines: [
        line(
          'paris',
          'Paris',
          counts[0],
          Math.round((counts[0] / 3) * 100),
          mine === 'paris'
            ? { mine: true, correct: true, verdict: 'right', tag: 'Your answer · right', mark: '✓' }
            : { correct: true, tag: 'Right answer', mark: '✓' },
        ),
        line(
          'lyon',
          'Lyon',
          counts[1],
          Math.round((counts[1] / 3) * 100),
          mine === 'lyon' ? { mine: true, verdict: 'wrong', tag: 'Your answer · wrong', mark: '✗' } : {},
        ),
        line('nice', 'Nice', counts[2], Math.round((counts[2] / 3) * 100)),
      ],
      total: 3,
      status,
      statusKind,
      buttons: [],
    });

  it('marks the right answer right and the viewer’s own right or wrong, in words as well as colour, with no buttons left', async () => {
    const pollId = await createPoll(scene, trivia);
    const [wrong, right, late] = await Promise.all([0, 1, 2].map(async () => openEmbed(scene, { token: await scene.site.token([]) })));
    const anonymous = await openEmbed(scene);
    const { scope } = await broadcastPoll(scene, pollId);
    await choose(wrong, scope, 'lyon');
    await choose(right, scope, 'paris');
    await crowdAnswers(pollId, ['paris']);
    // Open: the viewer's answer is theirs, and nothing says whether it is right.
    await waitForPoll(
      wrong,
      scope,
      shown({
        state: 'answered',
        question: 'Capital of France?',
        lines: [line('paris', 'Paris', 2, 67), line('lyon', 'Lyon', 1, 33, { mine: true, tag: 'Your answer' }), line('nice', 'Nice', 0, 0)],
        total: 3,
        status: 'Your answer is in. The right answer is revealed when the trivia closes.',
        statusKind: 'answered',
        buttons: [],
      }),
    );

    await closePoll(pollId);
    await waitForPoll(wrong, scope, revealed([2, 1, 0], 'lyon', 'You got it wrong. The right answer is Paris.', 'wrong'));
    await waitForPoll(right, scope, revealed([2, 1, 0], 'paris', 'You got it right!', 'right'));
    // A signed-in viewer who had not answered, and one without a token: the right answer, no buttons, no sign-in line.
    for (const page of [late, anonymous]) await waitForPoll(page, scope, revealed([2, 1, 0], null, 'The right answer is Paris.', 'revealed'));
    for (const page of [wrong, right, late, anonymous]) await expectReadable(page, scope);
    expect(await wrong.$$(`${scope} button`)).toEqual([]);
    // Not colour alone: the wrong answer's edge is dashed, the right one's solid, besides the words.
    const edges = await wrong.$$eval(`${scope} [data-poll-results] > li .sg-poll-line`, (lines: HTMLElement[]) =>
      lines.map((node) => getComputedStyle(node).borderTopStyle),
    );
    expect(edges).toEqual(['solid', 'dashed', 'solid']);
  });
});

it('says a closed prediction waits for its result, then gives the verdict once it is resolved', async () => {
  const pollId = await createPoll(scene, { type: 'prediction', name: 'Final', question: 'Who wins the final?', answers: ANSWERS.slice(0, 2) });
  const page = await openEmbed(scene, { token: await scene.site.token([]) });
  const bystander = await openEmbed(scene, { token: await scene.site.token([]) });
  const { scope } = await broadcastPoll(scene, pollId);
  await choose(page, scope, 'lyon');
  await waitForPoll(
    page,
    scope,
    shown({
      state: 'answered',
      question: 'Who wins the final?',
      lines: [line('paris', 'Paris', 0, 0), line('lyon', 'Lyon', 1, 100, { mine: true, tag: 'Your answer' })],
      total: 1,
      status: 'Your prediction is in. The result is revealed once it is known.',
      statusKind: 'answered',
      buttons: [],
    }),
  );

  await closePoll(pollId);
  const waiting = (mine: boolean) =>
    shown({
      state: 'waiting',
      question: 'Who wins the final?',
      lines: [line('paris', 'Paris', 0, 0), line('lyon', 'Lyon', 1, 100, mine ? { mine: true, tag: 'Your answer' } : {})],
      total: 1,
      status: 'Voting closed. Waiting for the result.',
      statusKind: 'waiting',
      buttons: [],
    });
  await waitForPoll(page, scope, waiting(true));
  await waitForPoll(bystander, scope, waiting(false));
  await expectReadable(page, scope);
  expect(await pollText(page, scope)).not.toMatch(/✓|✗|\bright\b|\bwrong\b/i);

  await closePoll(pollId, { correctAnswerId: 'lyon' });
  await waitForPoll(
    page,
    scope,
    shown({
      state: 'revealed',
      question: 'Who wins the final?',
      lines: [
        line('paris', 'Paris', 0, 0),
        line('lyon', 'Lyon', 1, 100, { mine: true, correct: true, verdict: 'right', tag: 'Your answer · right', mark: '✓' }),
      ],
      total: 1,
      status: 'You got it right!',
      statusKind: 'right',
      buttons: [],
    }),
  );
});

it('shows a viewer without a token (or with one the server refuses) the live results and a line to sign in, no buttons', async () => {
  const pollId = await createPoll(scene, { type: 'poll', name: 'City', question: 'Where should the final be?', answers: ANSWERS });
  const viewers = [await openEmbed(scene), await openEmbed(scene, { token: 'not-a-jwt' })];
  const { scope } = await broadcastPoll(scene, pollId);
  await crowdAnswers(pollId, ['lyon']);
  for (const page of viewers) {
    await waitForPoll(
      page,
      scope,
      shown({
        state: 'open',
        question: 'Where should the final be?',
        lines: [line('paris', 'Paris', 0, 0), line('lyon', 'Lyon', 1, 100), line('nice', 'Nice', 0, 0)],
        total: 1,
        status: 'Sign in to answer.',
        statusKind: 'sign-in',
        buttons: [],
      }),
    );
    expect(await page.$$(`${scope} button`)).toEqual([]);
    await expectReadable(page, scope);
  }
});

it('is answered by keyboard alone: Tab reaches each answer with a visible focus ring, Enter answers, focus stays in the poll', async () => {
  const pollId = await createPoll(scene, { type: 'poll', name: 'City', question: 'Where should the final be?', answers: ANSWERS });
  const me = await scene.site.signIn([]);
  const page = await openEmbed(scene, { token: me.token });
  const { scope } = await broadcastPoll(scene, pollId);
  await page.waitForSelector(`${scope} button[data-answer-id="nice"]`);
  const focused = () =>
    page.evaluate(() => {
      const node = document.activeElement;
      const style = getComputedStyle(node);
      const backgrounds: string[] = [];
      for (let at = node.parentElement; at; at = at.parentElement) backgrounds.push(getComputedStyle(at).backgroundColor);
      return {
        answerId: node.dataset.answerId ?? null,
        pollId: node.dataset.pollId ?? null,
        focusVisible: node.matches(':focus-visible'),
        outline: { style: style.outlineStyle, width: style.outlineWidth, color: style.outlineColor },
        backgrounds,
      };
    });
  const ring: number[] = [];
  for (const answerId of ['paris', 'lyon']) {
    await page.keyboard.press('Tab');
    const now = await focused();
    expect(now).toMatchObject({ answerId, focusVisible: true, outline: { style: 'solid', width: '3px' } });
    // The ring stands out from the panel around it over any video (WCAG 2.2 focus appearance asks 3:1).
    ring.push(
      ...(['white', 'black'] as const).map((video) => contrastOf({ label: 'focus ring', color: now.outline.color, backgrounds: now.backgrounds }, video)),
    );
  }
  expect(Math.min(...ring)).toBeGreaterThanOrEqual(3);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${scope} [data-poll-id][data-state="answered"]`);
  // The button that had focus is gone with the answer taken: focus is on the poll, not back at the page's top.
  expect(await focused()).toMatchObject({ pollId, answerId: null, focusVisible: true, outline: { style: 'solid', width: '3px' } });
  const stored = await rest(scene.stack, 'GET', `/poll/v3/${pollId}/results`, { headers: viewer(scene.site, me.token) });
  expect(stored.body.mine).toEqual({ answerId: 'lyon', correct: null });
});

it('tells a screen reader the results through one polite live region, at most once every few seconds', async () => {
  const pollId = await createPoll(scene, { type: 'poll', name: 'City', question: 'Where should the final be?', answers: ANSWERS });
  const page = await openEmbed(scene);
  await page.evaluate(() => {
    // Every change of the live region and of the drawn totals, stamped with the page's clock.
    const log: { what: string; at: number; text: string }[] = [];
    window.__changes = log;
    new MutationObserver(() => {
      const region = document.querySelector('[data-poll-announce]');
      const list = document.querySelector('[data-poll-results]');
      const last = (what: string) => [...log].reverse().find((entry) => entry.what === what)?.text;
      if (region?.textContent && region.textContent !== last('announced')) log.push({ what: 'announced', at: performance.now(), text: region.textContent });
      if (list && list.dataset.total !== last('total')) log.push({ what: 'total', at: performance.now(), text: list.dataset.total });
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const { scope } = await broadcastPoll(scene, pollId);
  await page.waitForSelector(`${scope} [data-poll-id]:not([hidden])`);
  expect(
    await page.$eval(`${scope} [data-poll-id]`, (poll: HTMLElement) => ({
      poll: poll.getAttribute('aria-live'),
      region: poll.querySelector('[data-poll-announce]').getAttribute('aria-live'),
      atomic: poll.querySelector('[data-poll-announce]').getAttribute('aria-atomic'),
      labelledBy: document.getElementById(poll.getAttribute('aria-labelledby'))?.textContent,
    })),
  ).toEqual({ poll: 'off', region: 'polite', atomic: 'true', labelledBy: 'Where should the final be?' });

  // Three answers, each shown before the next: the results change three times within a couple of seconds.
  for (const [index, answerId] of ['paris', 'lyon', 'lyon'].entries()) {
    await crowdAnswers(pollId, [answerId]);
    await page.waitForSelector(`${scope} [data-poll-results][data-total="${index + 1}"]`);
  }
  await waitInPage(page, () => /3 votes/.test(document.querySelector('[data-poll-announce]').textContent), { timeout: ANNOUNCE_INTERVAL_MS * 3 });
  const changes: { what: string; at: number; text: string }[] = await page.evaluate(() => window.__changes);
  const announced = changes.filter((change) => change.what === 'announced');
  expect(changes.filter((change) => change.what === 'total').map((change) => change.text)).toEqual(['0', '1', '2', '3']);
  expect(announced.length).toBeLessThan(4);
  for (let index = 1; index < announced.length; index += 1) {
    // Timers never fire early; a millisecond of slack for the clock's rounding.
    expect(announced[index].at - announced[index - 1].at).toBeGreaterThanOrEqual(ANNOUNCE_INTERVAL_MS - 1);
  }
  // What it says last is what the page shows now, in words.
  expect(announced.at(-1)!.text).toBe('Where should the final be? Paris: 33 percent; Lyon: 67 percent; Nice: 0 percent. 3 votes. Sign in to answer.');
  expect((await readPoll(page, scope))!.total).toBe('3');
});
