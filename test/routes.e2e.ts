/** Checks derived from the route table, for every route: credentials are required, and errors keep the REST shape. */
import { routes } from '../rest-bridge/server';
import { createTestSite, startTestStack, stopAll, type TestSite } from './helpers/stack';
import { rest } from './helpers/http';
import type { Stack } from '../stack';

let stack: Stack;
let site: TestSite;
beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
});
afterAll(stopAll);

const concretePath = (path: string) => path.replace(/\{(\w+)\}/g, (_match, name: string) => `sample-${name}`);
const sampleBody = (route: (typeof routes)[number]) => (route.body ? {} : undefined);

describe.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s', (_name, route) => {
  it('answers 401 with { success: false, message } without credentials', async () => {
    const reply = await rest(stack, route.method.toUpperCase(), concretePath(route.path), { body: sampleBody(route) });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ success: false, message: expect.any(String) });
  });

  if (route.auth.every((codes) => codes.length > 1)) {
    it('answers 401 with the site ID alone', async () => {
      const reply = await rest(stack, route.method.toUpperCase(), concretePath(route.path), {
        headers: { 'x-service-client-id': site.siteId },
        body: sampleBody(route),
      });
      expect(reply.status).toBe(401);
      expect(reply.body.success).toBe(false);
    });
  }
});

it('answers unknown paths with 404 in the REST error shape', async () => {
  const reply = await rest(stack, 'GET', '/no/such/path', { headers: site.admin });
  expect(reply.status).toBe(404);
  expect(reply.body).toEqual({ success: false, message: 'no route for GET /no/such/path' });
});
