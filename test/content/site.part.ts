/** The site object: GET /site/v1/ (C + D) with its settings and theme, and changing it. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'My site');
  other = await createTestSite(stack, 'Their site');
});
afterAll(stopAll);

it('answers the caller’s site with its name, device limit, settings and theme', async () => {
  const reply = await rest(stack, 'GET', '/site/v1/', { headers: site.admin });
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    _id: site.siteId,
    name: 'My site',
    deviceLimit: 3,
    settings: null,
    theme: {
      _id: expect.any(String),
      name: expect.any(String),
      type: 'classic',
      mode: 'dark',
      button: { borderRadius: expect.any(String), textCapitalization: expect.any(String) },
      colors: expect.objectContaining({
        accentPrimary: expect.stringMatching(/^#/),
        surface6: expect.stringMatching(/^#/),
        text500: expect.stringMatching(/^#/),
      }),
      typography: { body: expect.any(String), headline: expect.any(String) },
      creator: null,
      owner: null,
      tags: [],
      created: null,
      modified: null,
    },
    created: expect.any(Number),
    modified: expect.any(Number),
  });
  expect((await rest(stack, 'GET', '/site/v1/', { headers: other.admin })).body._id).toBe(other.siteId);
});

it('needs the developer key (or a signed-in account) besides the site ID', async () => {
  expect((await rest(stack, 'GET', '/site/v1/', { headers: { 'x-service-client-id': site.siteId } })).status).toBe(401);
  expect(
    (await rest(stack, 'GET', '/site/v1/', { headers: { 'x-service-client-id': site.siteId, 'x-service-developer-key': other.developerKey } })).status,
  ).toBe(401);
});

it('changes the name, device limit and theme; refuses bad values', async () => {
  const theme = { name: 'Brand', mode: 'light', colors: { accentPrimary: '#112233' }, typography: { body: 'Lato', headline: 'Oswald' } };
  const changed = await rest(stack, 'PUT', '/site/v1/', {
    headers: site.admin,
    body: { name: 'Renamed', deviceLimit: 5, settings: { theme, locale: 'fr-FR' } },
  });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ name: 'Renamed', deviceLimit: 5, settings: { theme, locale: 'fr-FR' } });
  expect(changed.body.theme).toMatchObject({ name: 'Brand', mode: 'light', typography: { body: 'Lato', headline: 'Oswald' } });
  expect(changed.body.theme.colors.accentPrimary).toBe('#112233');
  expect(changed.body.theme.colors.surface1).toMatch(/^#/);

  for (const body of [
    { deviceLimit: -1 },
    { name: '' },
    { settings: { theme: { mode: 'sepia' } } },
    { settings: { theme: { colors: { accentPrimary: 'red' } } } },
    { settings: { checkout_url: 'http://shop.example.test/checkout' } },
    { settings: { checkout_url: 'javascript:alert(1)' } },
    { settings: { checkout_url: 42 } },
  ]) {
    expect((await rest(stack, 'PUT', '/site/v1/', { headers: site.admin, body })).status).toBe(400);
  }
  // The site's checkout (ours), read by viewers with the site ID alone in the page configuration.
  const checkout = 'https://shop.example.test/checkout?from=watch';
  expect(
    (await rest(stack, 'PUT', '/site/v1/', { headers: site.admin, body: { settings: { theme, checkout_url: checkout } } })).body.settings.checkout_url,
  ).toBe(checkout);
  const viewer = { 'x-service-client-id': site.siteId, authorization: `Bearer ${await site.token([])}` };
  expect((await rest(stack, 'PUT', '/site/v1/', { headers: viewer, body: { name: 'Hijack' } })).status).toBe(403);
  expect((await rest(stack, 'GET', '/site/v1/', { headers: other.admin })).body.name).toBe('Their site');
});
