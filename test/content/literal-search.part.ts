/**
 * Search text is literal on every searching route: `%`, `_` and `\` match themselves (not "anything"), on
 * SQLite and PostgreSQL alike, and searching still ignores case.
 */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;

/** The names every searched resource is created with: one per special character, and plain ones. */
const NAMES = ['Full 100% Fan', 'Snake_Case Show', 'Back\\Slash Night', 'Plain Evening', 'Other 100x show'];

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Literal search');
  const create = async (path: string, body: object) => {
    const reply = await rest(stack, 'POST', path, { headers: site.admin, body });
    expect(reply.status).toBeLessThan(300);
  };
  for (const [index, name] of NAMES.entries()) {
    await create('/account/v3/', { email: `fan${index}@example.com`, password: 'correct horse battery', name });
    await create('/page/v2/template', { title: name, siteId: site.siteId, panels: [], rules: [], creator: 'u1', owner: 'u1' });
    await create('/poll/v3/', { type: 'poll', name, question: 'Which one?', answers: [{ text: 'A' }, { text: 'B' }] });
    await create('/quest/v2', {
      title: name,
      description: 'Watch',
      actions: [],
      claimedMessage: 'Done',
      rewardDescription: 'A shirt',
      rewardType: 'prize',
      siteId: site.siteId,
    });
    await create('/entitlement/v1/', { sku: `sku-${index}`, name, prices: [{ currency: 'USD', default: true, value: 5 }] });
    await create('/pages/v3', { slug: `page-${index}`, type: 'channel', data: { name } });
  }
});
afterAll(stopAll);

const get = async (path: string) => {
  const reply = await rest(stack, 'GET', path, { headers: site.admin });
  expect(reply.status).toBe(200);
  return reply.body;
};

/** Each searching route: the names it finds for a search text. */
const searches: [string, (text: string) => Promise<string[]>][] = [
  ['GET /account/v3?search=', async (text) => (await get(`/account/v3?search=${encodeURIComponent(text)}`)).results.map((item: { name: string }) => item.name)],
  [
    'GET /page/v2/template?search=',
    async (text) => (await get(`/page/v2/template?search=${encodeURIComponent(text)}`)).templates.map((item: { title: string }) => item.title),
  ],
  ['GET /poll/v3/?search=', async (text) => (await get(`/poll/v3/?search=${encodeURIComponent(text)}`)).map((item: { name: string }) => item.name)],
  ['GET /quest/v2?search=', async (text) => (await get(`/quest/v2?search=${encodeURIComponent(text)}`)).results.map((item: { title: string }) => item.title)],
  [
    'GET /community/v1/?searchQuery= (account info)',
    async (text) =>
      (await get(`/community/v1/?offset=0&sortBy=name&sortDirection=1&searchBy=accountInfo&searchQuery=${encodeURIComponent(text)}`)).results.map(
        (item: { name: string }) => item.name,
      ),
  ],
  [
    'GET /page/v2/?search= (data.name)',
    async (text) =>
      (
        await get(
          `/page/v2/?search=${encodeURIComponent(JSON.stringify({ 'data.name': text }))}&options=${encodeURIComponent(JSON.stringify({ projection: { 'data.name': 1 } }))}`,
        )
      ).map((item: { data: { name: string } }) => item.data.name),
  ],
];

describe.each(searches)('%s', (_name, search) => {
  it.each([
    ['%', ['Full 100% Fan']],
    ['100%', ['Full 100% Fan']],
    ['_', ['Snake_Case Show']],
    ['e_c', ['Snake_Case Show']],
    ['\\', ['Back\\Slash Night']],
    ['\\s', ['Back\\Slash Night']],
  ])('finds only literal matches of %j', async (text, expected) => {
    expect((await search(text)).sort()).toEqual(expected);
  });

  it('still ignores case', async () => {
    expect((await search('SHOW')).sort()).toEqual(['Other 100x show', 'Snake_Case Show']);
  });
});

it('searches entitlements literally in the community listing', async () => {
  // Only accounts holding a matching entitlement are listed; nobody holds these, so the point is no 5xx and no wildcard.
  const reply = await get(`/community/v1/?offset=0&sortBy=name&sortDirection=1&searchBy=entitlements&searchQuery=${encodeURIComponent('%')}`);
  expect(reply.results).toEqual([]);
});
