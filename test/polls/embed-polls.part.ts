/**
 * A poll in the overlay embed, in a real browser (headless Chromium) against the real stack: how the embed
 * talks to the server. A signed-in viewer answers on the embed's socket and the answer is stored; answers
 * from elsewhere move the counts in the page; an answer the server already holds (CONFLICT) shows the
 * viewer's own; a token handed over later brings the buttons; the embed unsubscribes when the overlay goes.
 * What each state looks like to the viewer: embed-poll-states.part.ts.
 */
import type { Page } from 'puppeteer-core';
import { viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { broadcastPoll, createPoll, line, openEmbed, usePollScene, waitForPoll, type ShownPoll } from '../helpers/pollEmbed';
import { startTcpProxy, type TcpProxy } from '../helpers/proxy';
import { waitInPage, waitShown } from '../helpers/browser';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const window: any;

const scene = usePollScene('Poll site');

const colours = {
  type: 'poll',
  name: 'Colours',
  question: 'Which colour?',
  answers: [
    { id: 'red', text: 'Red' },
    { id: 'blue', text: 'Blue <b>!</b>' },
  ],
};

/** The colours poll, open, as a viewer sees it: signed in or not, answered (`mine`) or not. */
function colourPoll(counts: [number, number], options: { signedIn: boolean; mine?: 'red' | 'blue' }): ShownPoll {
  const total = counts[0] + counts[1];
  const share = (count: number) => (total ? Math.round((count / total) * 100) : 0);
  const mine = (id: string) => (options.mine === id ? { mine: true, tag: 'Your answer' } : {});
  const answering = options.signedIn && !options.mine;
  return {
    state: options.mine ? 'answered' : 'open',
    question: 'Which colour?',
    lines: [line('red', 'Red', counts[0], share(counts[0]), mine('red')), line('blue', 'Blue <b>!</b>', counts[1], share(counts[1]), mine('blue'))],
    total: String(total),
    totalText: `Total: ${total} ${total === 1 ? 'vote' : 'votes'}`,
    status: options.mine ? 'Your vote is in.' : options.signedIn ? 'Choose one answer. It is final.' : 'Sign in to answer.',
    statusKind: options.mine ? 'answered' : options.signedIn ? 'choose' : 'sign-in',
    buttons: answering ? ['red', 'blue'] : [],
  };
}

it('lets a signed-in viewer answer on its socket, stores the answer, and moves the counts with answers from elsewhere', async () => {
  const { site } = scene;
  const pollId = await createPoll(scene, colours);
  const me = await site.signIn([]);
  const page = await openEmbed(scene, { token: me.token });
  const { scope } = await broadcastPoll(scene, pollId);
  await waitForPoll(page, scope, colourPoll([0, 0], { signedIn: true }));
  // Server text is text: the answer's markup is shown, not parsed.
  expect(await page.$(`${scope} b`)).toBeNull();
  // The poll is the CTA: no CTA button of its own.
  expect(await page.$(`${scope} button[data-cta]`)).toBeNull();

  await page.click(`${scope} button[data-answer-id="red"]`);
  await waitForPoll(page, scope, colourPoll([1, 0], { signedIn: true, mine: 'red' }));
  const stored = await rest(scene.stack, 'GET', `/poll/v3/${pollId}/results`, { headers: viewer(site, me.token) });
  expect(stored.status).toBe(200);
  expect(stored.body).toMatchObject({
    pollId,
    question: 'Which colour?',
    open: true,
    total: 1,
    answers: [
      { id: 'red', count: 1 },
      { id: 'blue', count: 0 },
    ],
    mine: { answerId: 'red' },
  });

  // Two more viewers answer over REST: the page follows.
  for (const answerId of ['blue', 'blue']) {
    const other = await site.signIn([]);
    const answered = await rest(scene.stack, 'POST', `/poll/v3/${pollId}/answer`, {
      headers: viewer(site, other.token),
      body: { answerId, channelId: scene.channel },
    });
    expect(answered.status).toBe(200);
  }
  await waitForPoll(page, scope, colourPoll([1, 2], { signedIn: true, mine: 'red' }));
});

describe('a poll overlay sent by show:overlay (the timecode path)', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy('127.0.0.1', scene.stack.port);
  });
  afterAll(async () => {
    await proxy.close();
  });

  /** Posts the REST resource of an overlay carrying `pollId` in its contents, as a site's player does. */
  async function showByMessage(page: Page, pollId: string, duration: number): Promise<string> {
    const { site } = scene;
    const created = await rest(scene.stack, 'POST', '/overlay/v1', {
      headers: site.admin,
      body: { name: 'Timecode poll', type: 'template', duration, contents: { html: '<p>Vote</p>', pollId } },
    });
    const resource = (await rest(scene.stack, 'GET', `/overlay/v1/${created.body._id}`, { headers: site.admin })).body;
    await page.evaluate((overlay) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'show:overlay', data: overlay }, '*'), resource);
    return `[data-origin="timecode"][data-overlay-id="${created.body._id}"]`;
  }

  it('shows the answer the server already holds when the choice sent comes back CONFLICT', async () => {
    const { site } = scene;
    const pollId = await createPoll(scene, colours);
    const me = await site.signIn([]);
    const page = await openEmbed(scene, { token: me.token, mode: 'timecode', base: `http://127.0.0.1:${proxy.port}` });
    const scope = await showByMessage(page, pollId, 60);
    await page.waitForSelector(`${scope} button[data-answer-id="red"]`);
    // Offline, the same account answers elsewhere; the page does not know, so its choice goes out on reconnect.
    await proxy.cut();
    await waitInPage(page, () => window.stagegraphEmbed.connected === false);
    expect((await rest(scene.stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, me.token), body: { answerId: 'blue' } })).status).toBe(200);
    const drops: number = await page.evaluate(() => window.stagegraphEmbed.drops);
    await page.click(`${scope} button[data-answer-id="red"]`);
    // An attempt to reconnect fails while the choice waits: the choice was never sent, so it is kept for the next connection.
    await waitInPage(page, (before: number) => window.stagegraphEmbed.drops > before, {}, drops);
    await proxy.restore();
    // The embed retries with backoff of up to 15 s (embed/liveClient.ts): after the cut its next try may be that far off.
    await page.waitForSelector(`${scope} [data-poll-id][data-answer-error="CONFLICT"]`, { timeout: 60_000 });
    await waitForPoll(page, scope, colourPoll([0, 1], { signedIn: true, mine: 'blue' }));
  }, 120_000);

  it('offers the answers once the page hands over a token (set:token), on the new socket', async () => {
    const { site } = scene;
    const pollId = await createPoll(scene, colours);
    const page = await openEmbed(scene, { mode: 'timecode' });
    const scope = await showByMessage(page, pollId, 60);
    await waitForPoll(page, scope, colourPoll([0, 0], { signedIn: false }));
    const me = await site.signIn([]);
    await page.evaluate((token) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'set:token', data: token }, '*'), me.token);
    await waitForPoll(page, scope, colourPoll([0, 0], { signedIn: true }));
    await page.click(`${scope} button[data-answer-id="blue"]`);
    await waitForPoll(page, scope, colourPoll([0, 1], { signedIn: true, mine: 'blue' }));
    const stored = await rest(scene.stack, 'GET', `/poll/v3/${pollId}/results`, { headers: viewer(site, me.token) });
    expect(stored.body.mine).toEqual({ answerId: 'blue', correct: null });
  });

  it('subscribes while the overlay is shown and unsubscribes when it goes, in live mode too', async () => {
    const pollId = await createPoll(scene, colours);
    const page = await openEmbed(scene, { token: await scene.site.token([]) });
    // The frames the page sends on its socket, as the browser's network layer sees them.
    const sent: { id?: string; type: string; payload?: { query?: string; variables?: { pollId?: string } } }[] = [];
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketFrameSent', (event) => sent.push(JSON.parse(event.response.payloadData)));

    const scope = await showByMessage(page, pollId, 2);
    await waitForPoll(page, scope, colourPoll([0, 0], { signedIn: true }));
    const subscribed = sent.find(
      (frame) => frame.type === 'subscribe' && frame.payload?.variables?.pollId === pollId && /pollResults/.test(frame.payload.query ?? ''),
    );
    expect(subscribed).toBeDefined();
    await waitShown(page, scope, false, { timeout: 30_000 });
    // The `complete` goes out as the overlay is taken down; the network layer reports it a moment later.
    const frames = () => sent.filter((frame) => frame.id === subscribed!.id).map((frame) => frame.type);
    const until = Date.now() + 5000;
    while (!frames().includes('complete') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(frames()).toEqual(['subscribe', 'complete']);
  });
});
