/** Checks derived from the route table, for every route: credentials are required, and errors keep the REST shape. */
import { routes } from '../../rest-bridge/server';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import { concretePath, walkRoutes } from '../helpers/routeWalk';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
});
afterAll(stopAll);

walkRoutes(() => ({ url: stack.url, siteId: site.siteId }));

it('answers unknown paths with 404 in the REST error shape', async () => {
  const reply = await rest(stack, 'GET', '/no/such/path', { headers: site.admin });
  expect(reply.status).toBe(404);
  expect(reply.body).toEqual({ success: false, message: 'no route for GET /no/such/path' });
});

/** A request outside the rest() helper, for paths spelled unlike their template. */
async function raw(method: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.url}${path}`, { method, headers });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : null };
}

describe('the route tree matches paths as express did', () => {
  it.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    '%s is found in upper case and with the other trailing slash',
    async (_name, route) => {
      const path = concretePath(route.path);
      const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
      for (const variant of [path.toUpperCase(), other]) {
        const reply = await raw(route.method.toUpperCase(), variant);
        // Found: its credentials are asked for; not found would be 404 "no route".
        expect({ variant, status: reply.status }).toEqual({ variant, status: 401 });
      }
    },
  );

  it('answers HEAD on a GET route as GET, without a body', async () => {
    const page = await rest(stack, 'POST', '/pages/v3', { headers: site.admin, body: { slug: 'head-check', type: 'channel', data: { name: 'Head' } } });
    const path = `/page/v2/configuration/${page.body._id}`;
    const get = await raw('GET', path, { 'x-service-client-id': site.siteId });
    const head = await raw('HEAD', path, { 'x-service-client-id': site.siteId });
    expect(get.status).toBe(200);
    expect(head).toEqual({ status: 200, text: '', body: null });
  });

  it('decodes path parameters, an encoded slash included', async () => {
    const reply = await raw('GET', '/pages/v2/content/id/no%2Fsuch%20page', { 'x-service-client-id': site.siteId, 'x-service-device-id': 'device-1' });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ success: false, message: expect.stringContaining('no/such page') });
  });

  it('refuses a path that is not valid percent-encoding with 400', async () => {
    const reply = await raw('GET', '/pages/v2/content/id/%E0%A4%A', { 'x-service-client-id': site.siteId, 'x-service-device-id': 'device-1' });
    expect(reply).toEqual({ status: 400, text: expect.any(String), body: { success: false, message: 'the path is not valid percent-encoding' } });
  });
});
