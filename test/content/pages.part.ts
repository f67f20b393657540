/** Pages and channels over the documented REST paths: create, reads in both forms, lists, configuration, clone, tenancy. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
});
afterAll(stopAll);

let slugs = 0;
const channelBody = (name: string, extra: Record<string, unknown> = {}) => ({
  slug: `channel-${++slugs}`,
  type: 'channel',
  base_language: 'en-US',
  active_renderers: { livestream: false, sidebar: true },
  // One stream, one channel of a site: each channel names its own.
  renderers: { livestream: { livestream_published: false, stream_id: `stream-${slugs}` }, sidebar: { items: [] } },
  seo: { title: `${name} live`, description: 'the stage' },
  style: { channel_background_color: '#000000' },
  data: { name, gate: { active: false, kind: 'none' } },
  ...extra,
});

async function createPage(owner: TestSite, body: object) {
  const reply = await rest(stack, 'POST', '/pages/v3', { headers: owner.admin, body: { site_id: owner.siteId, ...body } });
  expect(reply.status).toBe(200);
  return reply.body;
}

describe('create and read', () => {
  it('creates a channel in the seed shape and reads it back under page/v2 and pages/v2', async () => {
    const body = channelBody('Main stage', { metadata: { external_field_1: 'ext-main' }, tags: ['music'] });
    const page = await createPage(site, body);
    expect(page).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      slug: body.slug,
      site_id: site.siteId,
      collection: 'pages',
      type: 'channel',
      base_language: 'en-US',
      active_renderers: body.active_renderers,
      renderers: body.renderers,
      seo: body.seo,
      style: body.style,
      data: body.data,
      metadata: { external_field_1: 'ext-main' },
      tags: ['music'],
      created: expect.any(Number),
      modified: expect.any(Number),
      last_modified: page.modified,
    });
    for (const base of ['/page/v2', '/pages/v2']) {
      const got = await rest(stack, 'GET', `${base}/${page._id}`, { headers: site.admin });
      expect(got.status).toBe(200);
      // Every read of "Pages and channels" is the seed's C: the site ID alone reads it.
      expect((await rest(stack, 'GET', `${base}/${page._id}`, { headers: { 'x-service-client-id': site.siteId } })).body).toEqual(page);
      expect(got.body).toEqual(page);
    }
  });

  it('answers 409 for a slug the site already uses, and allows it on another site', async () => {
    const body = channelBody('Dup');
    await createPage(site, body);
    const again = await rest(stack, 'POST', '/pages/v3', { headers: site.admin, body });
    expect(again.status).toBe(409);
    expect(again.body.success).toBe(false);
    const elsewhere = await rest(stack, 'POST', '/pages/v3', { headers: other.admin, body });
    expect(elsewhere.status).toBe(200);
  });

  it('refuses bad input with 400 naming the field, and writes need a developer key or a Pages role', async () => {
    const cases: [object, RegExp][] = [
      [{ ...channelBody('x'), slug: 'has space' }, /slug/],
      [{ ...channelBody('x'), type: 'video' }, /body\.type/],
      [{ ...channelBody('x'), site_id: other.siteId }, /site_id/],
      [{ ...channelBody('x'), data: { name: 'x', gate: { active: true, kind: 'password' } } }, /data\.gate\.gate\.password/],
      [{ ...channelBody('x'), data: { gate: { active: true, kind: 'magic' } } }, /data\.gate\.kind/],
      [{ ...channelBody('x'), metadata: { external_field_9: 'x' } }, /external_field_9/],
      [{ ...channelBody('x'), renderers: { sidebar: { items: [{ array_id: 'a' }] } } }, /renderers\.sidebar\.items\[0\]\.id/],
      [{ ...channelBody('x'), unknown: 1 }, /unknown/],
    ];
    for (const [body, field] of cases) {
      const reply = await rest(stack, 'POST', '/pages/v3', { headers: site.admin, body });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(field);
    }
    const viewerOnly = await rest(stack, 'POST', '/pages/v3', { headers: { 'x-service-client-id': site.siteId }, body: channelBody('x') });
    expect(viewerOnly.status).toBe(401);
    const noRole = await site.token([]);
    const forbidden = await rest(stack, 'POST', '/pages/v3', {
      headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${noRole}` },
      body: channelBody('x'),
    });
    expect(forbidden.status).toBe(403);
    const editor = await site.token([{ pageId: [], scope: 'Pages', write: true }]);
    const allowed = await rest(stack, 'POST', '/pages/v3', {
      headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${editor}` },
      body: channelBody('By editor'),
    });
    expect(allowed.status).toBe(200);
  });

  it('never returns or stores a gate password in the document', async () => {
    const page = await createPage(
      site,
      channelBody('Locked', { data: { name: 'Locked', gate: { active: true, kind: 'password', gate: { password: 's3cret', title: 'Members' } } } }),
    );
    expect(page.data.gate).toEqual({ active: true, kind: 'password', gate: { title: 'Members' } });
    const stored = await stack.database.prisma.page.findUniqueOrThrow({ where: { id: page._id } });
    expect(JSON.stringify(stored.document)).not.toContain('s3cret');
    expect(stored.gatePasswordHash).toMatch(/^scrypt\$/);
  });

  it('updates a page’s parts and deletes it', async () => {
    const page = await createPage(site, channelBody('Before'));
    const updated = await rest(stack, 'PUT', `/pages/v3/${page._id}`, { headers: site.admin, body: { data: { name: 'After' }, tags: ['x'] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ data: { name: 'After' }, seo: page.seo, tags: ['x'] });
    const removed = await rest(stack, 'DELETE', `/pages/v3/${page._id}`, { headers: site.admin });
    expect(removed.body).toEqual({ success: true, _id: page._id });
    expect((await rest(stack, 'GET', `/page/v2/${page._id}`, { headers: site.admin })).status).toBe(404);
  });
});

describe('lists', () => {
  let listSite: TestSite;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    listSite = await createTestSite(stack, 'Lists');
    for (const [name, type] of [
      ['Alpha Channel', 'channel'],
      ['beta channel', 'channel'],
      ['Gamma landing', 'landing'],
    ] as const) {
      ids[name] = (await createPage(listSite, { ...channelBody(name), type }))._id;
    }
  });
  // Lists need D or J (docs/design.md): the site ID alone reads only what a viewer needs.
  const viewer = () => listSite.admin;
  const query = (params: Record<string, unknown>) =>
    '?' +
    Object.entries(params)
      .map(([key, value]) => `${key}=${encodeURIComponent(JSON.stringify(value))}`)
      .join('&');

  it('lists channels, landings, and both, of the caller’s site only', async () => {
    await createPage(other, channelBody('Other site channel'));
    for (const base of ['/page/v2', '/pages/v2']) {
      const channels = await rest(stack, 'GET', `${base}/channel`, { headers: viewer() });
      expect(channels.body.map((page: { data: { name: string } }) => page.data.name).sort()).toEqual(['Alpha Channel', 'beta channel']);
      const landings = await rest(stack, 'GET', `${base}/landing`, { headers: viewer() });
      expect(landings.body.map((page: { type: string }) => page.type)).toEqual(['landing']);
      const both = await rest(stack, 'GET', `${base}/channel/channels-landings`, { headers: viewer() });
      expect(both.body).toHaveLength(3);
    }
  });

  it('lists summaries without ids, full pages by ids, sorted and projected', async () => {
    const summaries = await rest(stack, 'GET', '/page/v2/', { headers: viewer() });
    expect(summaries.status).toBe(200);
    expect(summaries.body).toHaveLength(3);
    expect(Object.keys(summaries.body[0]).sort()).toEqual(['_id', 'base_language', 'created', 'modified', 'tags']);

    const chosen = [ids['Alpha Channel'], ids['Gamma landing']];
    const full = await rest(stack, 'GET', `/pages/v2/${query({ ids: chosen, options: { sortBy: 'name', sortDirection: -1 } })}`, { headers: viewer() });
    expect(full.body.map((page: { data: { name: string } }) => page.data.name)).toEqual(['Gamma landing', 'Alpha Channel']);
    expect(full.body[0].renderers).toBeDefined();

    const projected = await rest(stack, 'GET', `/page/v2/${query({ ids: chosen, options: { sortBy: 'name', projection: { slug: 1, 'data.name': 1 } } })}`, {
      headers: viewer(),
    });
    expect(projected.body[0]).toEqual({ _id: chosen[0], slug: expect.any(String), data: { name: 'Alpha Channel' } });
    const dropped = await rest(stack, 'GET', `/page/v2/${query({ options: { projection: { renderers: 0, data: 0, _id: 0 } } })}`, { headers: viewer() });
    expect(dropped.body[0]._id).toBeUndefined();
    expect(dropped.body[0].renderers).toBeUndefined();
    expect(dropped.body[0].slug).toBeDefined();

    const ofOtherSite = await rest(stack, 'GET', `/page/v2/${query({ ids: [ids['Alpha Channel'], (await createPage(other, channelBody('x')))._id] })}`, {
      headers: viewer(),
    });
    expect(ofOtherSite.body.map((page: { _id: string }) => page._id)).toEqual([ids['Alpha Channel']]);
  });

  it('searches data.name in any case', async () => {
    const found = await rest(stack, 'GET', `/page/v2/${query({ search: { 'data.name': 'CHANNEL' }, options: { projection: { 'data.name': 1 } } })}`, {
      headers: viewer(),
    });
    expect(found.body.map((page: { data: { name: string } }) => page.data.name).sort()).toEqual(['Alpha Channel', 'beta channel']);
  });

  it('refuses malformed list parameters with 400', async () => {
    for (const bad of [
      '?ids=not-json',
      `?options=${encodeURIComponent('{"sortBy":"color"}')}`,
      `?options=${encodeURIComponent('{"projection":{"a":1,"b":0}}')}`,
    ]) {
      const reply = await rest(stack, 'GET', `/page/v2/${bad}`, { headers: viewer() });
      expect(reply.status).toBe(400);
    }
  });
});

describe('configuration', () => {
  it('answers the page’s panels, page, insights, site and theme, by id and by metadata', async () => {
    const chat = await rest(stack, 'POST', '/panel/v3/', {
      headers: site.admin,
      body: {
        siteId: site.siteId,
        renderer: { panel_type: 'chat', panel_name: 'Chat', icon_name: 'chat-bubble', filtered_words: 'spoiler', hold_words: 'link' },
      },
    });
    const shop = await rest(stack, 'POST', '/panel/v3/', {
      headers: site.admin,
      body: { siteId: site.siteId, renderer: { panel_type: 'store', panel_name: 'Shop' } },
    });
    const page = await createPage(
      site,
      channelBody('Configured', {
        renderers: {
          sidebar: {
            items: [
              { array_id: '1', id: shop.body._id },
              { array_id: '2', id: chat.body._id },
              { array_id: '3', id: 'f'.repeat(24) },
            ],
          },
        },
        data: { name: 'Configured', theme: { classic_theme_options: { accent_primary: '#ff0000' } } },
        metadata: { external_field_3: 'partner-42' },
      }),
    );
    const byId = await rest(stack, 'GET', `/page/v2/configuration/${page._id}`, { headers: { 'x-service-client-id': site.siteId } });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({
      panels: [
        {
          _id: shop.body._id,
          slug: shop.body.slug,
          panel_name: 'Shop',
          panel_type: 'store',
          icon_name: null,
          renderer: { panel_type: 'store', panel_name: 'Shop' },
        },
        // The renderer as a viewer's page draws it: the chat's word lists stay with its moderators.
        {
          _id: chat.body._id,
          slug: chat.body.slug,
          panel_name: 'Chat',
          panel_type: 'chat',
          icon_name: 'chat-bubble',
          renderer: { panel_type: 'chat', panel_name: 'Chat', icon_name: 'chat-bubble' },
        },
      ],
      page: { _id: page._id, slug: page.slug, type: 'channel', name: 'Configured' },
      insights: { _id: expect.any(String), version: '1' },
      site: { _id: site.siteId, checkout_url: null },
      theme: expect.objectContaining({ _id: expect.any(String), mode: 'dark', button: expect.any(Object), typography: expect.any(Object) }),
    });
    expect(byId.body.theme.colors.accentPrimary).toBe('#ff0000');
    expect(Object.keys(byId.body.theme.colors)).toHaveLength(20);

    const byMetadata = await rest(stack, 'GET', '/pages/v2/configuration?metadata=partner-42', { headers: { 'x-service-client-id': site.siteId } });
    expect(byMetadata.body).toEqual(byId.body);
  });

  it('answers 400 for a malformed id or missing metadata, 404 for unknown or another site’s', async () => {
    const viewer = { 'x-service-client-id': site.siteId };
    expect((await rest(stack, 'GET', '/page/v2/configuration/not-an-id', { headers: viewer })).status).toBe(400);
    expect((await rest(stack, 'GET', '/page/v2/configuration', { headers: viewer })).status).toBe(400);
    expect((await rest(stack, 'GET', `/page/v2/configuration/${'0'.repeat(24)}`, { headers: viewer })).status).toBe(404);
    expect((await rest(stack, 'GET', '/page/v2/configuration?metadata=nobody', { headers: viewer })).status).toBe(404);
    const theirs = await createPage(other, channelBody('Theirs', { metadata: { external_field_1: 'theirs-1' } }));
    expect((await rest(stack, 'GET', `/page/v2/configuration/${theirs._id}`, { headers: viewer })).status).toBe(404);
    expect((await rest(stack, 'GET', '/page/v2/configuration?metadata=theirs-1', { headers: viewer })).status).toBe(404);
    expect((await rest(stack, 'GET', `/page/v2/${theirs._id}`, { headers: site.admin })).status).toBe(404);
  });
});

describe('clone', () => {
  it('copies the page deeply: new id and slug, new panels with the same renderers', async () => {
    const renderer = { panel_type: 'quest', panel_name: 'Quests', quests: [{ array_id: 'a', quest_id: 'q1' }], show_completed_count: true };
    const panel = await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: site.siteId, renderer } });
    const base = await createPage(
      site,
      channelBody('Original', {
        renderers: { livestream: { livestream_published: true, stream_id: 's' }, sidebar: { items: [{ array_id: 'x', id: panel.body._id }] } },
        metadata: { external_field_1: 'orig' },
        data: { name: 'Original', gate: { active: true, kind: 'password', gate: { password: 'pw' } } },
      }),
    );
    const { token } = await site.signIn([{ pageId: [], scope: 'Pages', write: true }]);
    const clone = await rest(stack, 'POST', `/page/v2/clone/${base._id}?localizedTitle=Copia&localizedSlug=copia`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(clone.status).toBe(200);
    expect(clone.body._id).not.toBe(base._id);
    expect(clone.body).toMatchObject({ slug: 'copia', type: 'channel', data: { name: 'Copia', gate: base.data.gate }, seo: base.seo, style: base.style });
    expect(clone.body.metadata).toBeNull();
    const copiedPanelId = clone.body.renderers.sidebar.items[0].id;
    expect(copiedPanelId).not.toBe(panel.body._id);
    // The copy has no stream of its original (one stream, one channel).
    expect(clone.body.renderers.livestream).toEqual({ livestream_published: true });

    const copiedPanel = await rest(stack, 'GET', `/panel/v3/${copiedPanelId}`, { headers: site.admin });
    expect(copiedPanel.body.renderer).toEqual(renderer);
    await rest(stack, 'PATCH', `/panel/v3/${copiedPanelId}`, { headers: site.admin, body: { renderer: { panel_name: 'Changed' } } });
    expect((await rest(stack, 'GET', `/panel/v3/${panel.body._id}`, { headers: site.admin })).body.renderer.panel_name).toBe('Quests');

    const stored = await stack.database.prisma.page.findUniqueOrThrow({ where: { id: clone.body._id } });
    expect(stored.gatePasswordHash).toBeTruthy();
    const defaultSlug = await rest(stack, 'POST', `/page/v2/clone/${base._id}`, { headers: site.admin });
    expect(defaultSlug.body.slug).toBe(`${base.slug}-copy`);
    const secondDefault = await rest(stack, 'POST', `/page/v2/clone/${base._id}`, { headers: site.admin });
    expect(secondDefault.body.slug).toBe(`${base.slug}-copy-2`);
  });

  it('answers 409 for a taken slug, 404 for another site’s page, and 401 without a token or key', async () => {
    const base = await createPage(site, channelBody('Base'));
    expect((await rest(stack, 'POST', `/page/v2/clone/${base._id}?localizedSlug=${base.slug}`, { headers: site.admin })).status).toBe(409);
    expect((await rest(stack, 'POST', `/page/v2/clone/${base._id}`, { headers: other.admin })).status).toBe(404);
    expect((await rest(stack, 'POST', `/page/v2/clone/${base._id}`, { headers: { 'x-service-client-id': site.siteId } })).status).toBe(401);
  });
});

it('serves pages through GraphQL as an entity the supergraph can reference', async () => {
  const page = await createPage(site, channelBody('GraphQL'));
  const reply = await graphql(stack, /* GraphQL */ `query($id: ID!) { page(id: $id) { id slug name type collection seo } }`, { id: page._id }, site.admin);
  expect(reply.body.data.page).toEqual({ id: page._id, slug: page.slug, name: 'GraphQL', type: 'channel', collection: 'pages', seo: page.seo });
});
