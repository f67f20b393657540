/**
 * The whole channel in the watch page (docs/design.md "The whole channel in the watch page"), in headless
 * Chromium against the real stack: the sidebar's panels in order, each by its kind (an unknown kind and a
 * missing panel skipped with a warning, the page never blank), quests and the leaderboard live for a
 * signed-in viewer, overlay CTAs acted on in the page, and signing in (password, magic link) and out with
 * the token reaching every frame of ours. The page through a show (the timecode in panel frames, the
 * channel's look, tabs on a narrow screen, axe-core's audit of each state) is watch-channel-show.part.ts.
 */
import { join as joinSite } from '../helpers/community';
import { rest } from '../helpers/http';
import { waitInPage, waitShown } from '../helpers/browser';
import { broadcastTo } from '../helpers/watchShow';
import { createChatPanel } from '../helpers/chat';
import {
  consoleWarnings,
  createYesNoPoll,
  textIn,
  createChannelPage,
  createPanel,
  frameOf,
  panelSelector,
  sidebarOf,
  untilPanels,
} from '../helpers/watchChannel';
import { until } from '../helpers/wait';
import { untilView, watchTestbed } from '../helpers/watchPage';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;
declare const navigator: any;
declare const location: any;

const bed = watchTestbed('Channel watch site', { vodSeconds: 10 });
const stack = () => bed.stack;
const site = () => bed.site;

const poll = (question: string) => createYesNoPoll(stack(), site(), question);

describe('the sidebar', () => {
  it('shows each panel by its kind in the sidebar’s order, skips an unknown kind and a missing panel with a warning, and switches channels in place', async () => {
    const other = await createChannelPage(stack(), site(), { name: 'Second stage' });
    const starts = Date.now() + 2 * 3_600_000;
    const ids = {
      chat: await createChatPanel(stack(), site(), { panel_name: 'Talk', icon_name: 'chat', enable_dark_theme: true }),
      image: await createPanel(stack(), site(), {
        panel_type: 'image',
        panel_name: 'Poster',
        image_url: `${stack().url}/favicon.ico`,
        url: 'https://example.test/',
      }),
      people: await createPanel(stack(), site(), {
        panel_type: 'people',
        panel_name: 'Hosts',
        people: [
          {
            id: 'p1',
            person_name: 'Ana',
            person_title: 'MC',
            person_bio: 'Hosts the night',
            person_links: [{ link_text: 'Site', link_url: 'https://ana.example.test/' }],
          },
        ],
      }),
      groups: await createPanel(stack(), site(), {
        panel_type: 'groups',
        panel_name: 'Bands',
        groups: [{ id: 'g1', group_name: 'The Band', group_bio: 'Rock' }],
      }),
      iframe: await createPanel(stack(), site(), {
        panel_type: 'iframe',
        panel_name: 'Stats',
        iframe_tag: '<iframe src="https://stats.example.test/embed" title="Live stats" allowfullscreen></iframe>',
      }),
      unknown: await createPanel(stack(), site(), { panel_type: 'weather', panel_name: 'Weather' }),
      board: await createPanel(stack(), site(), { panel_type: 'achievement_leaderboard', panel_name: 'Top fans', system_name: 'Fan points' }),
      polls: await createPanel(stack(), site(), {
        panel_type: 'multiple_choice',
        panel_name: 'Vote',
        questions: [{ array_id: 'a', poll_id: await poll('Encore?') }],
      }),
      schedule: await createPanel(stack(), site(), {
        panel_type: 'schedule',
        panel_name: 'Line-up',
        schedule_type_renderer: {
          schedule_type: 'calendar',
          manual_events: [{ array_id: 'e1', name: 'Headliner', start_time: starts, end_time: starts + 3_600_000 }],
        },
      }),
      select: await createPanel(stack(), site(), {
        panel_type: 'channel_select',
        panel_name: 'Stages',
        behavior: { view: 'list', kind: 'pages', pages: [{ _id: other, data: { name: 'Second stage' } }] },
      }),
    };
    const missing = 'f'.repeat(24);
    const channelId = await createChannelPage(stack(), site(), { name: 'Main stage' }, sidebarOf([...Object.values(ids), missing]));

    let warnings: string[] = [];
    const { page } = await bed.open(channelId, {
      before: async (tab) => {
        warnings = consoleWarnings(tab);
        await tab.emulateTimezone('Asia/Tokyo');
      },
    });
    const expected = [
      [ids.chat, 'chat'],
      [ids.image, 'image'],
      [ids.people, 'person'],
      [ids.groups, 'group'],
      [ids.iframe, 'iframe'],
      [ids.board, 'achievement leaderboard'],
      [ids.polls, 'multiple choice'],
      [ids.schedule, 'schedule'],
      [ids.select, 'channel select'],
    ];
    expect(await untilPanels(page, expected.length)).toEqual(expected.map(([id, kind]) => ({ id, kind })));
    // The video is not held up by any of it.
    await untilView(page, 'offline');

    const chat = await frameOf(page, `${panelSelector(ids.chat)} iframe`, '/embed/v1/chat');
    await waitInPage(chat, () => window.stagegraphChat?.connected === true);
    expect(
      await page.$eval(panelSelector(ids.chat), (node: any) => ({
        dark: 'dark' in node.dataset,
        icon: node.dataset.icon,
        title: node.querySelector('h2').textContent,
      })),
    ).toEqual({
      dark: true,
      icon: 'chat',
      title: '💬Talk',
    });
    expect(await page.$eval(`${panelSelector(ids.image)} a img`, (node: any) => ({ alt: node.alt, src: node.src }))).toEqual({
      alt: 'Poster',
      src: `${bed.stack.url}/favicon.ico`,
    });
    expect(await textIn(page, `${panelSelector(ids.people)} .sg-person`)).toContain('AnaMCHosts the night');
    expect(await page.$eval(`${panelSelector(ids.people)} a`, (node: any) => node.href)).toBe('https://ana.example.test/');
    expect(await textIn(page, `${panelSelector(ids.groups)} h3`)).toBe('The Band');
    expect(
      await page.$eval(`${panelSelector(ids.iframe)} iframe`, (node: any) => [
        node.src,
        node.title,
        node.getAttribute('sandbox'),
        node.hasAttribute('allowfullscreen'),
      ]),
    ).toEqual(['https://stats.example.test/embed', 'Live stats', 'allow-scripts allow-popups allow-forms allow-presentation allow-same-origin', true]);
    await waitShown(page, `${panelSelector(ids.polls)} [data-poll-id] .sg-poll-question`);
    expect(await textIn(page, `${panelSelector(ids.polls)} .sg-poll-question`)).toBe('Encore?');
    await waitInPage(page, (selector: string) => document.querySelector(selector)?.textContent === 'No points yet', {}, `${panelSelector(ids.board)} li`);

    // The schedule in the viewer's time zone, its next item counting down.
    await waitShown(page, `${panelSelector(ids.schedule)} li[data-next] time`);
    const tokyo = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(new Date(starts));
    expect(await textIn(page, `${panelSelector(ids.schedule)} li[data-next] time`)).toBe(tokyo);
    expect(await textIn(page, `${panelSelector(ids.schedule)} .sg-panel-note`)).toBe('Times in your time zone (Asia/Tokyo)');
    expect(await textIn(page, `${panelSelector(ids.schedule)} .sg-countdown`)).toMatch(/^Starts in (02:00:00|01:59:\d\d)$/);

    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`panel ${ids.unknown} is of a kind this page does not show (weather)`),
        expect.stringContaining(`sidebar panel ${missing} does not exist`),
      ]),
    );

    // Another stage, in place: the address, the title and the panels follow; the page is not loaded again.
    await page.evaluate(() => (window.notReloaded = true));
    await page.click(`${panelSelector(ids.select)} button[data-channel-id="${other}"]`);
    await waitInPage(
      page,
      (id: string) => window.stagegraphWatch.channelId === id && document.getElementById('sg-watch-title').textContent === 'Second stage',
      {},
      other,
    );
    expect(await untilPanels(page, 0)).toEqual([]);
    expect(await page.evaluate(() => [new URLSearchParams(location.search).get('channelId'), window.notReloaded])).toEqual([other, true]);
    await untilView(page, 'offline');
  }, 120_000);
});

describe('a signed-in viewer', () => {
  it('follows their quest live to its claim’s message, and their rank on the leaderboard', async () => {
    const quest = await rest(stack(), 'POST', '/quest/v2', {
      headers: site().admin,
      body: {
        siteId: site().siteId,
        title: 'First vote',
        description: 'Answer a poll',
        rewardType: 'prize',
        rewardDescription: 'A badge',
        claimedMessage: 'Your badge is on its way',
        actions: [{ kind: 'answer:polls:any', valueRequired: 1 }],
      },
    });
    expect(quest.status).toBe(200);
    const ids = {
      quests: await createPanel(stack(), site(), { panel_type: 'quest', panel_name: 'Quests', quests: [{ array_id: 'q', quest_id: quest.body._id }] }),
      polls: await createPanel(stack(), site(), {
        panel_type: 'multiple choice',
        panel_name: 'Vote',
        questions: [{ array_id: 'a', poll_id: await poll('Another song?') }],
      }),
      board: await createPanel(stack(), site(), { panel_type: 'leaderboard', panel_name: 'Top fans' }),
    };
    const channelId = await createChannelPage(stack(), site(), { name: 'Quest stage' }, sidebarOf(Object.values(ids)));

    // Signed out: the quest panel asks to sign in, and opens the page's sign-in.
    const anonymous = await bed.open(channelId);
    await untilPanels(anonymous.page, 3);
    await anonymous.page.click(`${panelSelector(ids.quests)} button`);
    await waitShown(anonymous.page, '#sg-watch-signin');
    expect(await textIn(anonymous.page, '#sg-watch-signin-reason')).toBe('Sign in to take part in quests');

    const { page } = await bed.open(channelId, { token: await site().token([]) });
    await untilPanels(page, 3);
    const quests = panelSelector(ids.quests);
    await waitInPage(page, (selector: string) => document.querySelector(selector)?.textContent === 'Answer 1 polls0 / 1', {}, `${quests} .sg-quest-action`);
    expect(await textIn(page, `${quests} h3`)).toBe('First vote');
    expect(await page.$eval(`${quests} .sg-quest-claimed`, (node: any) => node.hidden)).toBe(true);

    await (await page.waitForSelector(`${panelSelector(ids.polls)} button[data-answer-id="yes"]`))!.click();
    await waitInPage(
      page,
      (selector: string) => document.querySelector(selector)?.textContent === 'Your badge is on its way',
      {},
      `${quests} .sg-quest-claimed:not([hidden])`,
    );
    expect(await textIn(page, `${quests} .sg-quest-action`)).toBe('Answer 1 pollsDone');
    // The completion's point, read again while the page is open.
    await waitInPage(
      page,
      (selector: string) => /^Your rank: 1 \(1 pts\)$/.test(document.querySelector(selector)?.textContent ?? ''),
      { timeout: 30_000 },
      `${panelSelector(ids.board)} .sg-board-me`,
    );
    expect(await page.$$eval(`${panelSelector(ids.board)} li[data-me]`, (nodes: any[]) => nodes.length)).toBe(1);
  }, 120_000);
});

describe('overlay CTAs', () => {
  /** A channel whose sidebar has a schedule panel, and an overlay broadcast to it with `cta`. */
  async function ctaScene(cta: Record<string, unknown> | null, panelId?: string) {
    const panel = panelId ?? (await createPanel(stack(), site(), { panel_type: 'image', panel_name: 'Poster', image_url: `${stack().url}/favicon.ico` }));
    const channelId = await createChannelPage(stack(), site(), { name: 'CTA stage' }, sidebarOf([await createChatPanel(stack(), site()), panel]));
    const overlay = await rest(stack(), 'POST', '/overlay/v1', {
      headers: site().admin,
      body: { name: 'Call', type: 'template', duration: 120, contents: { html: '<p>Hey</p>' }, cta },
    });
    expect(overlay.status).toBe(200);
    return { channelId, panel, broadcast: () => broadcastTo(stack(), site(), overlay.body._id, channelId) };
  }

  async function clickCta(page: Parameters<typeof frameOf>[0], type: string) {
    const layer = await frameOf(page, '#overlays', '/embed/v1/overlays');
    await waitShown(layer, `button[data-cta="${type}"]`);
    await (await layer.$(`button[data-cta="${type}"]`))!.click();
  }

  it('show_panel opens the panel it names (its tab on a narrow screen)', async () => {
    const target = await createPanel(stack(), site(), { panel_type: 'people', panel_name: 'Hosts', people: [{ id: 'p', person_name: 'Ana' }] });
    const withPanel = await ctaScene({ type: 'show_panel', data: target }, target);
    const { page } = await bed.open(withPanel.channelId);
    await page.setViewport({ width: 400, height: 800 });
    await untilPanels(page, 2);
    await withPanel.broadcast();
    expect(await page.$eval(panelSelector(target), (node: any) => 'selected' in node.dataset)).toBe(false);
    await clickCta(page, 'show_panel');
    await waitShown(page, panelSelector(target));
    expect(await page.evaluate(() => [document.activeElement.id, document.activeElement.getAttribute('aria-selected')])).toEqual([`sg-tab-${target}`, 'true']);
  }, 60_000);

  it('login opens the sign-in with the CTA’s words', async () => {
    const scene = await ctaScene({ type: 'login', data: 'Sign in to vote on the encore' });
    const { page } = await bed.open(scene.channelId);
    await untilPanels(page, 2);
    await scene.broadcast();
    await clickCta(page, 'login');
    await waitShown(page, '#sg-watch-signin');
    expect(await textIn(page, '#sg-watch-signin-reason')).toBe('Sign in to vote on the encore');
  }, 60_000);

  it('social_share opens the share sheet, or copies the link where there is none', async () => {
    const scene = await ctaScene({ type: 'social_share', data: null });
    const link = `${stack().url}/embed/v1/watch?${new URLSearchParams({ siteId: site().siteId, channelId: scene.channelId }).toString()}`;
    // The share sheet: the page's (the layer has none here), given the channel's link.
    const sharing = await bed.open(scene.channelId, {
      token: await site().token([]),
      before: async (tab) => {
        await tab.evaluateOnNewDocument(() => {
          if (window === window.top) navigator.share = async (data: any) => void (window.sharedData = data);
          else delete Object.getPrototypeOf(navigator).share;
        });
      },
    });
    await untilPanels(sharing.page, 2);
    await scene.broadcast();
    await clickCta(sharing.page, 'social_share');
    await waitInPage(sharing.page, () => window.sharedData !== undefined);
    expect(await sharing.page.evaluate(() => window.sharedData.url)).toBe(link);

    // No share sheet anywhere: the link is copied (without the viewer's token), and the page says so.
    const copying = await bed.open(scene.channelId, {
      token: await site().token([]),
      before: (tab) =>
        tab.evaluateOnNewDocument(() => {
          delete Object.getPrototypeOf(navigator).share;
          if (window === window.top)
            Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (text: string) => void (window.copied = text) } });
        }),
    });
    await untilPanels(copying.page, 2);
    await clickCta(copying.page, 'social_share');
    await waitInPage(copying.page, () => document.getElementById('sg-watch-toast').textContent === 'Link copied');
    expect(await copying.page.evaluate(() => window.copied)).toBe(link);
  }, 60_000);
});

describe('signing in on the page', () => {
  /** The token each frame of ours carries in its address (null: none). */
  const frameTokens = (page: Parameters<typeof waitShown>[0]) =>
    page.evaluate(() => ['#overlays', '#sg-watch-chat iframe'].map((selector) => new URL(document.querySelector(selector).src).searchParams.get('token')));

  it('signs in with e-mail and password, hands the token to every frame of ours, and signing out takes it back', async () => {
    const member = await joinSite(stack(), site());
    const channelId = await createChannelPage(stack(), site(), { gate: { active: true, kind: 'login' } }, sidebarOf([await createChatPanel(stack(), site())]));
    const { page } = await bed.open(channelId);
    await untilView(page, 'refused');
    await page.click('#sg-watch-login');
    await waitShown(page, '#sg-watch-signin');
    await page.type('#sg-watch-signin input[name="email"]', member.email);
    await page.type('#sg-watch-signin input[name="password"]', 'not the password');
    await page.click('#sg-watch-signin button[value="signin"]');
    await waitInPage(page, () => document.getElementById('sg-watch-signin-error').textContent === 'Wrong e-mail or password');

    await page.$eval('#sg-watch-signin input[name="password"]', (node: any) => (node.value = ''));
    await page.type('#sg-watch-signin input[name="password"]', 'correct horse battery');
    await page.click('#sg-watch-signin button[value="signin"]');
    await untilView(page, 'offline');
    expect(await page.evaluate(() => window.stagegraphWatch.signedIn)).toBe(true);
    const tokens = await until(
      () => frameTokens(page),
      (list) => list.every((token) => token !== null),
      'the token in every frame',
    );
    expect(new Set(tokens).size).toBe(1);
    await waitShown(page, '#sg-watch-signout');

    // Kept for the next visit; signing out ends it here and on the server.
    const again = await bed.open(channelId);
    await untilView(again.page, 'offline');
    await again.page.click('#sg-watch-signout');
    await untilView(again.page, 'refused');
    await until(
      () => frameTokens(again.page),
      (list) => list.every((token) => token === null),
      'no token in any frame',
    );
    expect(
      await again.page.evaluate(() => [window.stagegraphWatch.signedIn, Object.keys(localStorage).filter((key) => key.startsWith('stagegraph:session'))]),
    ).toEqual([false, []]);
  }, 90_000);

  it('opens a magic link from POST /invite/v1/: the invite is consumed, the viewer signed in and the gated channel plays for them', async () => {
    const sku = `pass-${Date.now()}`;
    const created = await rest(stack(), 'POST', '/entitlement/v1/', {
      headers: site().admin,
      body: { sku, name: 'Pass', prices: [{ currency: 'USD', value: 5, default: true }], recurrence: 'once' },
    });
    expect(created.status).toBe(201);
    const channelId = await createChannelPage(
      stack(),
      site(),
      { gate: { active: true, kind: 'subscription', gate: { subscriptions: [sku], title: 'Get a pass' } } },
      sidebarOf([await createChatPanel(stack(), site())]),
    );
    const watchUrl = `${stack().url}/embed/v1/watch?${new URLSearchParams({ siteId: site().siteId, channelId }).toString()}`;
    const invite = await rest(stack(), 'POST', '/invite/v1/magic-link/', {
      headers: site().admin,
      body: { redirectUri: watchUrl, siteId: site().siteId, targetSkus: [sku] },
    });
    expect(invite.status).toBe(200);

    const { page } = await bed.openUrl(invite.body.inviteUrl);
    await untilView(page, 'offline');
    expect(await page.evaluate(() => [window.stagegraphWatch.signedIn, new URLSearchParams(location.search).has('inviteToken')])).toEqual([true, false]);
    await until(
      () => frameTokens(page),
      (list) => list.every((token) => token !== null),
      'the token in every frame',
    );
    expect((await rest(stack(), 'GET', `/invite/v1/${invite.body.invite._id}`, { headers: site().admin })).body.consumed).toBe(true);

    // The link works once: opened again (signed out), it says so and the channel stays refused.
    await page.click('#sg-watch-signout');
    const reopened = await bed.openUrl(invite.body.inviteUrl);
    await untilView(reopened.page, 'refused');
    expect(await textIn(reopened.page, '#sg-watch-toast')).toBe('This invite link was already used or is no longer valid');
  }, 90_000);

  it('opens a login intent (a third party’s sign-in handed over): the viewer is signed in once, and a spent intent says so', async () => {
    const channelId = await createChannelPage(stack(), site(), { gate: { active: true, kind: 'login' } }, sidebarOf([await createChatPanel(stack(), site())]));
    const member = await joinSite(stack(), site());
    const intent = await rest(stack(), 'POST', '/auth/v2/intent', {
      headers: { 'x-service-client-id': site().siteId },
      body: { jwt: member.jwt, name: 'Ana', provider: 'twitch', service: 'arena-tv', thirdPartyAccountId: `tw-${Date.now()}` },
    });
    expect(intent.status).toBe(200);
    const watchUrl = `${stack().url}/embed/v1/watch?${new URLSearchParams({ siteId: site().siteId, channelId, loginIntent: intent.body.token }).toString()}`;

    const { page } = await bed.openUrl(watchUrl);
    await untilView(page, 'offline');
    expect(await page.evaluate(() => [window.stagegraphWatch.signedIn, new URLSearchParams(location.search).has('loginIntent')])).toEqual([true, false]);
    await until(
      () => frameTokens(page),
      (list) => list.every((token) => token !== null),
      'the token in every frame',
    );

    await page.click('#sg-watch-signout');
    const reopened = await bed.openUrl(watchUrl);
    await untilView(reopened.page, 'refused');
    expect(await textIn(reopened.page, '#sg-watch-toast')).toBe('This sign-in link was already used or is no longer valid');
  }, 90_000);
});
