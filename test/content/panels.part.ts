/** Panels over their REST paths: every renderer kind round-trips, paging and property filter, PATCH merge, PUT replace, delete, tenancy. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Panels');
  other = await createTestSite(stack, 'Other');
});
afterAll(stopAll);

const link = { generated_key: 'k1', link_text: 'Site', link_url: 'https://example.test', link_icon_name: 'globe' };

/** One renderer per panel kind the seed describes. */
const RENDERERS: Record<string, Record<string, unknown>> = {
  chat: {
    panel_type: 'chat',
    panel_name: 'Chat',
    icon_name: 'chat',
    channel: 'main',
    filtered_words: 'spam,scam',
    allow_non_admin_links: false,
    enable_dark_theme: true,
  },
  image: { panel_type: 'image', panel_name: 'Poster', image_url: 'https://cdn.example/poster.png', url: 'https://example.test' },
  store: { panel_type: 'shopify', panel_name: 'Store', collection: { handle: 'merch', label: 'Merch', value: 'gid://1' } },
  person: {
    panel_type: 'people',
    panel_name: 'Hosts',
    people: [
      {
        id: 'p1',
        person_bio: 'Host',
        person_name: 'Ana',
        person_title: 'MC',
        person_image_url: 'https://cdn.example/ana.png',
        person_links: [{ link_text: 'X', link_url: 'https://x.test', link_icon_name: 'x' }],
        created: 1,
        last_modified: 2,
      },
    ],
  },
  group: {
    panel_type: 'groups',
    panel_name: 'Bands',
    groups: [
      { id: 'g1', group_banner_url: 'https://cdn.example/b.png', group_bio: 'Rock', group_name: 'The Band', group_links: [link], created: 1, last_modified: 2 },
    ],
  },
  quest: {
    panel_type: 'quest',
    panel_name: 'Quests',
    quests: [{ array_id: 'a1', quest_id: 'q1' }],
    show_completed_count: true,
    rules_link_url: 'https://example.test/rules',
  },
  playlist: { panel_type: 'playlist', panel_name: 'Replays', playlist_id: 'pl1', group_by_date: true },
  livestreamChat: { panel_type: 'livestream_chat', panel_name: 'Live chat', sources: [{ array_id: 's1', source: 'youtube' }], login_button_text: 'Sign in' },
  multipleChoice: {
    panel_type: 'multiple_choice',
    panel_name: 'Polls',
    questions: [{ array_id: 'a', poll_id: 'poll1' }],
    help_link_url: 'https://example.test/help',
  },
  iframe: { panel_type: 'iframe', panel_name: 'Embed', iframe_tag: '<iframe src="https://example.test"></iframe>', disable_on_mobile_embedded: true },
  achievementLeaderboard: {
    panel_type: 'achievement_leaderboard',
    panel_name: 'Top fans',
    system_image: 'https://cdn.example/trophy.png',
    system_name: 'Fan points',
    system_welcome_message: 'Welcome!',
  },
  channelSelect: {
    panel_type: 'channel_select',
    panel_name: 'Channels',
    behavior: { view: 'list', kind: 'pages', pages: [{ _id: 'page1', slug: 'main' }] },
    description: 'Pick a stage',
  },
  schedule: {
    panel_type: 'schedule',
    panel_name: 'Schedule',
    id: 'schedule-1',
    schedule_type_renderer: {
      schedule_type: 'calendar',
      source_channels: ['page1', 'page2'],
      manual_events: [{ array_id: 'e1', end_time: 1_900_000_000_000, name: 'Opening', location: 'Main stage', more_info: 'Doors at 7', references: ['page1'] }],
    },
  },
};

async function createPanel(owner: TestSite, renderer: Record<string, unknown>) {
  const reply = await rest(stack, 'POST', '/panel/v3/', { headers: owner.admin, body: { siteId: owner.siteId, renderer } });
  expect(reply.status).toBe(200);
  return reply.body;
}

it('accepts the renderer of every panel kind and returns it unchanged', async () => {
  for (const [kind, renderer] of Object.entries(RENDERERS)) {
    const panel = await createPanel(site, renderer);
    expect(panel).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      renderer,
      collection: 'panels',
      site_id: site.siteId,
      slug: expect.any(String),
      type: renderer.panel_type,
      created: expect.any(Number),
      last_modified: expect.any(Number),
    });
    const got = await rest(stack, 'GET', `/panel/v3/${panel._id}`, { headers: site.admin });
    expect({ kind, renderer: got.body.renderer }).toEqual({ kind, renderer });
  }
});

it('refuses renderers without panel_type or with a field of the wrong kind (400 naming it)', async () => {
  const cases: [unknown, RegExp][] = [
    [{ panel_name: 'No type' }, /renderer\.panel_type/],
    [{ panel_type: 'chat', enable_dark_theme: 'yes' }, /renderer\.enable_dark_theme/],
    [{ panel_type: 'quest', quests: [{ quest_id: 7 }] }, /renderer\.quests\.0\.quest_id/],
    [{ panel_type: 'schedule', schedule_type_renderer: { manual_events: [{ end_time: 'tomorrow' }] } }, /manual_events\.0\.end_time/],
  ];
  for (const [renderer, field] of cases) {
    const reply = await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: site.siteId, renderer } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(field);
  }
  expect((await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { renderer: { panel_type: 'chat' } } })).status).toBe(400);
  expect((await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: other.siteId, renderer: { panel_type: 'chat' } } })).status).toBe(400);
});

describe('list', () => {
  let listed: TestSite;
  beforeAll(async () => {
    listed = await createTestSite(stack, 'Listed panels');
    for (const type of ['chat', 'chat', 'iframe', 'chat', 'image']) await createPanel(listed, { panel_type: type, panel_name: `${type} panel` });
  });

  it('pages with limit and offset and reports the pagination', async () => {
    const first = await rest(stack, 'GET', '/panel/v3/?limit=2&sortBy=created&sortDirection=1', { headers: listed.admin });
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ limit: 2, offset: 0, searchFields: [], sortDirection: 1, totalCount: 5 });
    expect(first.body.results).toHaveLength(2);
    const rest2 = await rest(stack, 'GET', '/panel/v3/?limit=2&offset=4&sortBy=created&sortDirection=1', { headers: listed.admin });
    expect(rest2.body.results).toHaveLength(1);
    const all = await rest(stack, 'GET', '/panel/v3/', { headers: listed.admin });
    expect(all.body.pagination).toMatchObject({ limit: 50, offset: 0, totalCount: 5 });
  });

  it('filters on a property', async () => {
    const chats = await rest(stack, 'GET', '/panel/v3/?property=panel_type%3Dchat', { headers: listed.admin });
    expect(chats.body.pagination).toMatchObject({ totalCount: 3, searchFields: ['panel_type'] });
    expect(chats.body.results.every((panel: { type: string }) => panel.type === 'chat')).toBe(true);
    expect((await rest(stack, 'GET', '/panel/v3/?property=color%3Dred', { headers: listed.admin })).status).toBe(400);
    expect((await rest(stack, 'GET', '/panel/v3/?sortBy=color', { headers: listed.admin })).status).toBe(400);
  });
});

it('PATCH merges the renderer: keys not given stay, null removes one', async () => {
  const panel = await createPanel(site, { panel_type: 'chat', panel_name: 'Chat', channel: 'main', behavior: { view: 'list', kind: 'pages' } });
  const patched = await rest(stack, 'PATCH', `/panel/v3/${panel._id}`, {
    headers: site.admin,
    body: { renderer: { panel_name: 'Lounge', channel: null, behavior: { kind: 'tags' } } },
  });
  expect(patched.status).toBe(200);
  expect(patched.body.renderer).toEqual({ panel_type: 'chat', panel_name: 'Lounge', behavior: { view: 'list', kind: 'tags' } });
  expect((await rest(stack, 'GET', `/panel/v3/${panel._id}`, { headers: site.admin })).body.renderer).toEqual(patched.body.renderer);
  const broken = await rest(stack, 'PATCH', `/panel/v3/${panel._id}`, { headers: site.admin, body: { renderer: { panel_type: null } } });
  expect(broken.status).toBe(400);
});

it('PUT replaces the renderer, DELETE removes the panel', async () => {
  const panel = await createPanel(site, RENDERERS.chat);
  const replaced = await rest(stack, 'PUT', `/panel/v3/${panel._id}`, { headers: site.admin, body: { siteId: site.siteId, renderer: RENDERERS.iframe } });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ _id: panel._id, renderer: RENDERERS.iframe, type: 'iframe', slug: panel.slug });
  // The renderer alone replaces it too (a client sending back what it read has site_id, not siteId); no renderer is 400.
  expect((await rest(stack, 'PUT', `/panel/v3/${panel._id}`, { headers: site.admin, body: { renderer: RENDERERS.iframe } })).status).toBe(200);
  expect((await rest(stack, 'PUT', `/panel/v3/${panel._id}`, { headers: site.admin, body: { siteId: site.siteId } })).body).toEqual({
    success: false,
    message: 'body.renderer is required',
  });
  const removed = await rest(stack, 'DELETE', `/panel/v3/${panel._id}`, { headers: site.admin });
  expect(removed.body).toEqual({ success: true, _id: panel._id });
  expect((await rest(stack, 'GET', `/panel/v3/${panel._id}`, { headers: site.admin })).status).toBe(404);
});

it('keeps panels to their site: another site’s is 404 on every path and absent from the list', async () => {
  const theirs = await createPanel(other, RENDERERS.image);
  for (const [method, body] of [
    ['GET', undefined],
    ['PATCH', { renderer: { panel_name: 'x' } }],
    ['PUT', { siteId: site.siteId, renderer: RENDERERS.chat }],
    ['DELETE', undefined],
  ] as const) {
    expect((await rest(stack, method, `/panel/v3/${theirs._id}`, { headers: site.admin, body })).status).toBe(404);
  }
  const list = await rest(stack, 'GET', '/panel/v3/?limit=500', { headers: site.admin });
  expect(list.body.results.map((panel: { _id: string }) => panel._id)).not.toContain(theirs._id);
  expect((await rest(stack, 'GET', `/panel/v3/${theirs._id}`, { headers: other.admin })).body.renderer).toEqual(RENDERERS.image);
});

describe('iframe_tag', () => {
  const UNSAFE: [string, string][] = [
    ['a script', '<script>alert(1)</script>'],
    ['a script after the iframe', '<iframe src="https://example.test"></iframe><script>alert(1)</script>'],
    ['a javascript: src', '<iframe src="javascript:alert(1)"></iframe>'],
    ['an entity-encoded javascript: src', '<iframe src="jav&#x61;script:alert(1)"></iframe>'],
    ['two iframes', '<iframe src="https://a.example.test"></iframe><iframe src="https://b.example.test"></iframe>'],
    ['an http: src', '<iframe src="http://example.test"></iframe>'],
    ['an event-handler attribute', '<iframe src="https://example.test" onload="alert(1)"></iframe>'],
    ['a srcdoc', '<iframe src="https://example.test" srcdoc="<script>alert(1)</script>"></iframe>'],
    ['a sandbox of its own', '<iframe src="https://example.test" sandbox="allow-scripts allow-same-origin"></iframe>'],
    ['no src', '<iframe title="x"></iframe>'],
    ['another tag', '<img src="https://example.test/a.png" onerror="alert(1)">'],
    ['text around the tag', 'hello <iframe src="https://example.test"></iframe>'],
  ];
  const SAFE =
    '<iframe src="https://player.example.test/embed/1" title="Stats" width="100%" height="320" allow="autoplay; fullscreen" allowfullscreen loading="lazy" referrerpolicy="no-referrer"></iframe>';
  const panelCount = () => stack.database.prisma.panel.count({ where: { siteId: site.siteId } });
  const unsafe = (tag: string) => ({ panel_type: 'iframe', panel_name: 'Embed', iframe_tag: tag });

  it('stores one https iframe with the listed attributes', async () => {
    const panel = await createPanel(site, unsafe(SAFE));
    expect(panel.renderer.iframe_tag).toBe(SAFE);
  });

  it('refuses anything else on create, replace and update with 400 naming renderer.iframe_tag, storing nothing', async () => {
    const kept = await createPanel(site, unsafe(SAFE));
    const before = await panelCount();
    for (const [what, tag] of UNSAFE) {
      const replies = {
        create: await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: site.siteId, renderer: unsafe(tag) } }),
        replace: await rest(stack, 'PUT', `/panel/v3/${kept._id}`, { headers: site.admin, body: { siteId: site.siteId, renderer: unsafe(tag) } }),
        update: await rest(stack, 'PATCH', `/panel/v3/${kept._id}`, { headers: site.admin, body: { renderer: { iframe_tag: tag } } }),
      };
      for (const [how, reply] of Object.entries(replies)) {
        expect({ what, how, status: reply.status, success: reply.body.success }).toEqual({ what, how, status: 400, success: false });
        expect(reply.body.message).toMatch(/renderer\.iframe_tag/);
      }
    }
    expect(await panelCount()).toBe(before);
    expect((await rest(stack, 'GET', `/panel/v3/${kept._id}`, { headers: site.admin })).body.renderer.iframe_tag).toBe(SAFE);
  });
});
