/** Channel templates over their REST paths: create, limits, list defaults and search, get, replace, archive, permissions, tenancy. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Templates');
  other = await createTestSite(stack, 'Other');
});
afterAll(stopAll);

const templateBody = (owner: TestSite, extra: Record<string, unknown> = {}) => ({
  title: 'Sports night',
  siteId: owner.siteId,
  icon: 'https://cdn.example/icon.png',
  description: 'Chat, polls and a store',
  panels: [{ collection: 'panels', creator: 'u1', owner: 'u1', site_id: owner.siteId, slug: 'chat', type: 'chat' }],
  rules: ['rule-1', 'rule-2'],
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
