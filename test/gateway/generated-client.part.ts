/**
 * A legacy client generated from /openapi.json works: `npm run generate` turns the document into types
 * with openapi-typescript (test/generated/openapi.generated.ts, as a client developer would), and this
 * suite calls the real stack through openapi-fetch typed by them. Each answer is also checked against
 * the document (status and body), like every answer through test/helpers/http.ts.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi.generated';
import { checkAgainstOpenApi } from '../helpers/openapiCheck';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
});
afterAll(stopAll);

function client(headers: Record<string, string>) {
  const api = createClient<paths>({ baseUrl: stack.url, headers });
  api.use({
    async onResponse({ request, response }) {
      checkAgainstOpenApi(request.method, new URL(request.url).pathname, response.status, response.headers.get('content-type'), await response.clone().text());
    },
  });
  return api;
}

it('creates, reads, lists and broadcasts an overlay through the generated client', async () => {
  const api = client(site.admin);
  const created = await api.POST('/overlay/v1', {
    body: { name: 'Score bug', type: 'template', contents: { html: '<b>{home}</b> {score}' }, duration: 20 },
  });
  expect(created.response.status).toBe(200);
  const overlay = created.data!;
  expect(overlay).toMatchObject({ name: 'Score bug', type: 'template', duration: 20, siteId: site.siteId });

  const centreCourt = await createChannel(stack, site.siteId);
  const read = await api.GET('/overlay/v1/{id}', { params: { path: { id: overlay._id } } });
  expect(read.data).toEqual(overlay);

  const listed = await api.GET('/overlay/v1');
  expect(listed.data?.map((item) => item._id)).toEqual([overlay._id]);

  const sent = await api.POST('/overlay/v1/broadcast/{id}', {
    params: { path: { id: overlay._id } },
    body: { channelId: centreCourt, duration: 5, variables: { home: 'Lions', score: '2-1' } },
  });
  expect(sent.data).toMatchObject({ success: true, channelId: centreCourt, overlay: { contents: { html: '<b>Lions</b> 2-1' } } });
  expect(sent.data!.expiresAt - sent.data!.startedAt).toBe(5000);
});

it('gives typed errors: 404 for another site’s overlay, 401 without credentials, 400 naming the field', async () => {
  const other = await createTestSite(stack, 'Other site');
  const mine = await client(site.admin).POST('/overlay/v1', { body: { name: 'Mine', type: 'instance', contents: { text: 'hi' }, duration: 3 } });

  const foreign = await client(other.admin).GET('/overlay/v1/{id}', { params: { path: { id: mine.data!._id } } });
  expect(foreign.response.status).toBe(404);
  expect(foreign.error).toEqual({ success: false, message: expect.any(String) });

  const anonymous = await client({}).GET('/overlay/v1');
  expect(anonymous.response.status).toBe(401);
  expect(anonymous.error?.success).toBe(false);

  // A body the types would refuse, sent as a legacy client in another language might.
  const invalid = await client(site.admin).POST('/overlay/v1', { body: { name: 'No duration', type: 'instance', contents: {} } as never });
  expect(invalid.response.status).toBe(400);
  expect(invalid.error?.message).toMatch(/duration/);
});
