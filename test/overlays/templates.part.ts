/**
 * Channel templates over their REST paths: create, limits, list defaults and search, get, replace, archive,
 * permissions, tenancy; the panels and rules a template names must exist; and a channel made from a template
 * (REST and GraphQL) starts with copies of its panels in its sidebar, its rules bound to it and its theme.
 */
import { createChatPanel } from '../helpers/chat';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

/** What each site's templates name: a chat panel (by slug) and two automation rules (by ID). */
const named = new Map<string, { slug: string; panelId: string; rules: string[]; dataProviderId: string }>();

/** A chat panel and two automation rules of `owner`, which its templates then name. */
async function prepare(owner: TestSite): Promise<void> {
  const panelId = await createChatPanel(stack, owner, { panel_name: 'Match chat' });
  const slug = (await rest(stack, 'GET', `/panel/v3/${panelId}`, { headers: owner.admin })).body.slug as string;
  const provider = await rest(stack, 'POST', '/dataprovider/v1/register', {
    headers: owner.admin,
    body: { name: 'Scores', description: 'scores', schema: { type: 'object' }, ownerName: 'Ada', ownerEmail: 'ada@example.test', realtime: true },
  });
  const overlay = await rest(stack, 'POST', '/overlay/v1', {
    headers: owner.admin,
    body: { name: 'Goal', type: 'template', contents: { html: '{score}' }, duration: 5 },
  });
  const rules: string[] = [];
  for (const [name, priority] of [
    ['Goal', 1],
    ['Red card', 2],
  ] as const) {
    const jsonRule = {
      trigger: { dataProviderId: provider.body.dataProviderId, fact: 'data.score', operator: 'greater_than', value: '2', behavior: 'immediate' },
      action: {
        type: 'SEND_OVERLAY',
        targeting: { scope: 'all_channels', target: [], priority },
        templateId: overlay.body._id,
        dataMap: {},
        broadcastPayload: {},
      },
    };
    const rule = await rest(stack, 'POST', '/personalization/v1/', { headers: owner.admin, body: { name, jsonRule, active: true } });
    expect(rule.status).toBe(201);
    rules.push(rule.body.id);
  }
  named.set(owner.siteId, { slug, panelId, rules, dataProviderId: provider.body.dataProviderId });
}

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Templates');
  other = await createTestSite(stack, 'Other');
  await prepare(site);
  await prepare(other);
});
afterAll(stopAll);

const templateBody = (owner: TestSite, extra: Record<string, unknown> = {}) => ({
  title: 'Sports night',
  siteId: owner.siteId,
  icon: 'https://cdn.example/icon.png',
  description: 'Chat, polls and a store',
  panels: [{ collection: 'panels', creator: 'u1', owner: 'u1', site_id: owner.siteId, slug: named.get(owner.siteId)?.slug ?? 'chat', type: 'chat' }],
  rules: named.get(owner.siteId)?.rules ?? [],
  theme: 'classic-dark',
  creator: 'u1',
  owner: 'u1',
  ...extra,
});

async function create(owner: TestSite, extra: Record<string, unknown> = {}, headers = owner.admin) {
  const reply = await rest(stack, 'POST', '/page/v2/template', { headers, body: templateBody(owner, extra) });
  expect(reply.status).toBe(201);
  expect(reply.body).toEqual({ templateId: expect.stringMatching(/^[0-9a-f]{24}$/) });
  return reply.body.templateId as string;
}

it('creates a template (201 { templateId }) and gets it in the seed shape', async () => {
  const templateId = await create(site);
  const got = await rest(stack, 'GET', `/page/v2/template/${templateId}`, { headers: site.admin });
  expect(got.status).toBe(200);
  const { siteId: _siteId, ...fields } = templateBody(site);
  expect(got.body).toEqual({ _id: templateId, siteId: site.siteId, ...fields, archived: false, created: expect.any(Number), modified: expect.any(Number) });
});

it('enforces the title and description limits and the required fields with 400', async () => {
  const ok = await create(site, { title: 't'.repeat(100), description: 'd'.repeat(250) });
  expect(ok).toBeTruthy();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ title: 't'.repeat(101) }, /title/],
    [{ description: 'd'.repeat(251) }, /description/],
    [{ title: '   ' }, /title/],
    [{ siteId: other.siteId }, /siteId/],
    [{ icon: 'javascript:alert(1)' }, /icon/],
    [{ panels: [{ site_id: other.siteId }] }, /panels\[0\]\.site_id/],
  ];
  for (const [extra, field] of cases) {
    const reply = await rest(stack, 'POST', '/page/v2/template', { headers: site.admin, body: templateBody(site, extra) });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(field);
  }
  for (const missing of ['title', 'siteId', 'panels', 'rules', 'creator', 'owner']) {
    const body: Record<string, unknown> = templateBody(site);
    delete body[missing];
    const reply = await rest(stack, 'POST', '/page/v2/template', { headers: site.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain(missing);
  }
});

describe('list', () => {
  let listed: TestSite;
  const ids: string[] = [];
  beforeAll(async () => {
    listed = await createTestSite(stack, 'Listed');
    await prepare(listed);
    for (const [title, description] of [
      ['Concert', 'stage and chat'],
      ['Football', 'live stats'],
      ['Quiz show', 'trivia CONCERT edition'],
    ]) {
      ids.push(await create(listed, { title, description }));
    }
  });

  it('lists by modified, newest first, 50 at a time by default, with the total', async () => {
    const reply = await rest(stack, 'GET', '/page/v2/template', { headers: listed.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.totalCount).toBe(3);
    expect(reply.body.templates.map((template: { _id: string }) => template._id).sort()).toEqual([...ids].sort());
    const modified = reply.body.templates.map((template: { modified: number }) => template.modified);
    expect(modified).toEqual([...modified].sort((a, b) => b - a));
  });

  it('searches title and description in any case, sorts and pages', async () => {
    const found = await rest(stack, 'GET', '/page/v2/template?search=concert', { headers: listed.admin });
    expect(found.body.templates.map((template: { title: string }) => template.title).sort()).toEqual(['Concert', 'Quiz show']);
    expect(found.body.totalCount).toBe(2);
    const byTitle = await rest(stack, 'GET', '/page/v2/template?sortBy=title&sortDirection=1&limit=2&offset=1', { headers: listed.admin });
    expect(byTitle.body.templates.map((template: { title: string }) => template.title)).toEqual(['Football', 'Quiz show']);
    expect(byTitle.body.totalCount).toBe(3);
    expect((await rest(stack, 'GET', '/page/v2/template?sortDirection=2', { headers: listed.admin })).status).toBe(400);
    expect((await rest(stack, 'GET', '/page/v2/template?limit=0', { headers: listed.admin })).status).toBe(400);
  });

  it('archives on delete (answers true): the template leaves the list but can still be read', async () => {
    const archived = await rest(stack, 'DELETE', `/page/v2/template/${ids[0]}`, { headers: listed.admin });
    expect(archived.status).toBe(200);
    expect(archived.body).toBe(true);
    const list = await rest(stack, 'GET', '/page/v2/template', { headers: listed.admin });
    expect(list.body.totalCount).toBe(2);
    expect(list.body.templates.map((template: { _id: string }) => template._id)).not.toContain(ids[0]);
    const got = await rest(stack, 'GET', `/page/v2/template/${ids[0]}`, { headers: listed.admin });
    expect(got.body.archived).toBe(true);
    expect((await rest(stack, 'DELETE', `/page/v2/template/${ids[0]}`, { headers: listed.admin })).body).toBe(true);
  });
});

it('replaces a template', async () => {
  const templateId = await create(site);
  const current = (await rest(stack, 'GET', `/page/v2/template/${templateId}`, { headers: site.admin })).body;
  const replaced = await rest(stack, 'PUT', `/page/v2/template/${templateId}`, {
    headers: site.admin,
    body: { ...current, title: 'Renamed', rules: [], panels: [], description: null, icon: null },
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ _id: templateId, title: 'Renamed', rules: [], panels: [], description: '', icon: null, archived: false });
  const missing = await rest(stack, 'PUT', `/page/v2/template/${templateId}`, { headers: site.admin, body: { title: 'x' } });
  expect(missing.status).toBe(400);
});

it('needs read / write permission on ChannelTemplate for a signed-in account', async () => {
  const headers = async (write: boolean | null) => ({
    'x-service-client-id': site.siteId,
    authorization: `Bearer ${await site.token(write === null ? [] : [{ pageId: [], scope: 'ChannelTemplate', write }])}`,
  });
  const none = await headers(null);
  expect((await rest(stack, 'GET', '/page/v2/template', { headers: none })).status).toBe(403);
  const reader = await headers(false);
  expect((await rest(stack, 'GET', '/page/v2/template', { headers: reader })).status).toBe(200);
  expect((await rest(stack, 'POST', '/page/v2/template', { headers: reader, body: templateBody(site) })).status).toBe(403);
  const writer = await headers(true);
  await create(site, {}, writer);
  expect((await rest(stack, 'GET', '/page/v2/template', { headers: { 'x-service-client-id': site.siteId } })).status).toBe(401);
});

it('keeps templates to their site: another site’s is 404 everywhere', async () => {
  const theirs = await create(other);
  for (const [method, body] of [
    ['GET', undefined],
    ['PUT', templateBody(site)],
    ['DELETE', undefined],
  ] as const) {
    const reply = await rest(stack, method, `/page/v2/template/${theirs}`, { headers: site.admin, body });
    expect(reply.status).toBe(404);
  }
  const list = await rest(stack, 'GET', '/page/v2/template?limit=500', { headers: site.admin });
  expect(list.body.templates.every((template: { siteId: string }) => template.siteId === site.siteId)).toBe(true);
});

describe('what a template names', () => {
  it('refuses a panel or rule the site does not have with 400 naming the field, and stores nothing', async () => {
    const before = await stack.database.prisma.channelTemplate.count({ where: { siteId: site.siteId } });
    const theirs = named.get(other.siteId)!;
    const cases: [Record<string, unknown>, string][] = [
      [{ panels: [{ site_id: site.siteId, slug: 'no-such-panel' }] }, 'panels[0].slug'],
      [
        {
          panels: [
            { site_id: site.siteId, slug: named.get(site.siteId)!.slug },
            { site_id: site.siteId, slug: theirs.slug },
          ],
        },
        'panels[1].slug',
      ],
      [{ panels: [{ site_id: site.siteId, type: 'chat' }] }, 'panels[0].slug'],
      [{ rules: ['no-such-rule'] }, 'rules[0]'],
      [{ rules: [named.get(site.siteId)!.rules[0], theirs.rules[0]] }, 'rules[1]'],
    ];
    for (const [extra, field] of cases) {
      const reply = await rest(stack, 'POST', '/page/v2/template', { headers: site.admin, body: templateBody(site, extra) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: expect.stringContaining(field) });
    }
    const templateId = await create(site);
    const replaced = await rest(stack, 'PUT', `/page/v2/template/${templateId}`, { headers: site.admin, body: templateBody(site, { rules: ['gone'] }) });
    expect(replaced.status).toBe(400);
    expect(replaced.body.message).toContain('rules[0]');
    expect(await stack.database.prisma.channelTemplate.count({ where: { siteId: site.siteId } })).toBe(before + 1);
  });
});

describe('a channel made from a template', () => {
  const CHANNEL = /* GraphQL */ `
    mutation FromTemplate($input: PageInput!) { createPage(input: $input) { id activeRenderers renderers data } }
  `;

  it('starts with copies of its panels in its sidebar, its rules bound to it and its theme (REST and GraphQL)', async () => {
    const mine = named.get(site.siteId)!;
    const templateId = await create(site, { theme: 'stadium-night' });
    const viaRest = await rest(stack, 'POST', '/pages/v3', {
      headers: site.admin,
      body: { slug: 'from-template', type: 'channel', data: { name: 'From a template' }, template_id: templateId },
    });
    expect(viaRest.status).toBe(200);
    const viaGraphql = await graphql(stack, CHANNEL, { input: { slug: 'from-template-2', type: 'channel', data: { name: 'Also' }, templateId } }, site.admin);
    expect(viaGraphql.body.errors).toBeUndefined();
    const channels = [
      { id: viaRest.body._id, activeRenderers: viaRest.body.active_renderers, renderers: viaRest.body.renderers, data: viaRest.body.data },
      viaGraphql.body.data.createPage,
    ];
    const copies = new Set<string>();
    for (const channel of channels) {
      expect(channel.activeRenderers).toMatchObject({ sidebar: true });
      expect(channel.data.theme).toMatchObject({ id: 'stadium-night' });
      const items = channel.renderers.sidebar.items as { id: string; array_id: string }[];
      expect(items).toHaveLength(1);
      const copy = await rest(stack, 'GET', `/panel/v3/${items[0].id}`, { headers: site.admin });
      expect(copy.status).toBe(200);
      expect(copy.body._id).not.toBe(mine.panelId);
      expect(copy.body.renderer).toMatchObject({ panel_type: 'chat', panel_name: 'Match chat' });
      copies.add(copy.body._id);
      // The page configuration lists it, as the watch page reads it.
      const configuration = await rest(stack, 'GET', `/page/v2/configuration/${channel.id}`, { headers: { 'x-service-client-id': site.siteId } });
      expect(configuration.body.panels.map((panel: { _id: string }) => panel._id)).toEqual([items[0].id]);
      const rules = (await rest(stack, 'GET', '/personalization/v1/', { headers: site.admin })).body.results.filter(
        (rule: { channelId?: string }) => rule.channelId === channel.id,
      );
      expect(rules.map((rule: { name: string }) => rule.name)).toEqual(['Goal', 'Red card']);
      for (const rule of rules) expect(rule.jsonRule.action.targeting).toMatchObject({ scope: 'specific_channels', target: [channel.id] });
    }
    expect(copies.size).toBe(2);
  });

  it('answers 404 for a template of another site, 409 for an archived one or one whose panel went away, and stores nothing', async () => {
    const pages = () => stack.database.prisma.page.count({ where: { siteId: site.siteId } });
    const panels = () => stack.database.prisma.panel.count({ where: { siteId: site.siteId } });
    const [pagesBefore, panelsBefore] = [await pages(), await panels()];
    const channel = (slug: string, templateId: string) =>
      rest(stack, 'POST', '/pages/v3', { headers: site.admin, body: { slug, type: 'channel', template_id: templateId } });

    const theirs = await create(other);
    expect((await channel('theirs', theirs)).status).toBe(404);
    expect((await channel('nowhere', 'no-such-template')).status).toBe(404);

    const archived = await create(site);
    expect((await rest(stack, 'DELETE', `/page/v2/template/${archived}`, { headers: site.admin })).status).toBe(200);
    const refused = await channel('archived', archived);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ success: false, message: expect.stringContaining('archived') });

    const doomedPanel = await createChatPanel(stack, site, { panel_name: 'Doomed' });
    const doomedSlug = (await rest(stack, 'GET', `/panel/v3/${doomedPanel}`, { headers: site.admin })).body.slug;
    const orphan = await create(site, { panels: [{ site_id: site.siteId, slug: doomedSlug }] });
    expect((await rest(stack, 'DELETE', `/panel/v3/${doomedPanel}`, { headers: site.admin })).status).toBe(200);
    const gone = await channel('orphan', orphan);
    expect(gone.status).toBe(409);
    expect(gone.body.message).toContain(doomedSlug);

    expect(await pages()).toBe(pagesBefore);
    expect(await panels()).toBe(panelsBefore);
  });
});
