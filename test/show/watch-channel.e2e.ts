/**
 * The whole channel in the watch page (docs/design.md "The whole channel in the watch page"), in headless
 * Chromium against the real stack: the sidebar's panels in order, each by its kind (an unknown kind and a
 * missing panel skipped with a warning, the page never blank), quests and the leaderboard live for a
 * signed-in viewer, overlay CTAs acted on in the page, signing in (password, magic link) and out with the
 * token reaching every frame of ours, the timecode reaching panel frames, the channel's look, tabs on a
 * narrow screen, and axe-core's audit of each state.
 */
import { join as joinSite } from '../helpers/community';
import { rest } from '../helpers/http';
import { waitInPage, waitShown } from '../helpers/browser';
import { broadcastTo, createOverlay, createShowStream, deliverRecording, startRecording, stopRecording } from '../helpers/watchShow';
import { createChatPanel } from '../helpers/chat';
import { axeViolations, consoleWarnings, createChannelPage, createPanel, frameOf, panelSelector, sidebarOf, untilPanels } from '../helpers/watchChannel';
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

const poll = async (question: string) => {
  const reply = await rest(stack(), 'POST', '/poll/v3/', {
    headers: site().admin,
    body: {
      type: 'poll',
      name: question,
      question,
      answers: [
        { id: 'yes', text: 'Yes' },
        { id: 'no', text: 'No' },
      ],
    },
  });
  expect(reply.status).toBe(200);
  return reply.body._id as string;
};

/** Text of the first element `selector` matches in the page. */
const textOf = (page: Parameters<typeof waitShown>[0], selector: string) => page.$eval(selector, (node: any) => node.textContent as string);

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
    expect(await textOf(page, `${panelSelector(ids.people)} .sg-person`)).toContain('AnaMCHosts the night');
    expect(await page.$eval(`${panelSelector(ids.people)} a`, (node: any) => node.href)).toBe('https://ana.example.test/');
    expect(await textOf(page, `${panelSelector(ids.groups)} h3`)).toBe('The Band');
    expect(
      await page.$eval(`${panelSelector(ids.iframe)} iframe`, (node: any) => [
        node.src,
        node.title,
        node.getAttribute('sandbox'),
        node.hasAttribute('allowfullscreen'),
      ]),
    ).toEqual(['https://stats.example.test/embed', 'Live stats', 'allow-scripts allow-popups allow-forms allow-presentation allow-same-origin', true]);
    await waitShown(page, `${panelSelector(ids.polls)} [data-poll-id] .sg-poll-question`);
    expect(await textOf(page, `${panelSelector(ids.polls)} .sg-poll-question`)).toBe('Encore?');
    await waitInPage(page, (selector: string) => document.querySelector(selector)?.textContent === 'No points yet', {}, `${panelSelector(ids.board)} li`);

    // The schedule in the viewer's time zone, its next item counting down.
    await waitShown(page, `${panelSelector(ids.schedule)} li[data-next] time`);
    const tokyo = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(new Date(starts));
    expect(await textOf(page, `${panelSelector(ids.schedule)} li[data-next] time`)).toBe(tokyo);
    expect(await textOf(page, `${panelSelector(ids.schedule)} .sg-panel-note`)).toBe('Times in your time zone (Asia/Tokyo)');
    expect(await textOf(page, `${panelSelector(ids.schedule)} .sg-countdown`)).toMatch(/^Starts in (02:00:00|01:59:\d\d)$/);

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
