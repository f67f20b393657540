/** The overlay operations through the gateway's GraphQL endpoint, with error codes and the Site join. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql } from '../helpers/http';
import type { Stack } from '../../stack';
import { signIdentity } from '../../shared/auth/identity';

let stack: Stack;
let site: TestSite;
let other: TestSite;

const CREATE = /* GraphQL */ `
  mutation Create($input: CreateOverlayInput!) { createOverlay(input: $input) { id siteId name type contents duration cta { type data } created modified } }
`;
const input = { name: 'Poll', type: 'template', contents: { html: 'Vote {question}' }, duration: 15 };

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
});
afterAll(stopAll);

it('creates, reads, updates and broadcasts an overlay', async () => {
  const created = await graphql(stack, CREATE, { input }, site.admin);
  expect(created.body.errors).toBeUndefined();
  const overlay = created.body.data.createOverlay;
  expect(overlay).toMatchObject({ siteId: site.siteId, name: 'Poll', type: 'template', duration: 15, cta: null });

  const read = await graphql(stack, 'query($id: ID!) { overlay(id: $id) { name } overlays { id } }', { id: overlay.id }, site.admin);
  expect(read.body.data.overlay.name).toBe('Poll');
  expect(read.body.data.overlays.map((item: { id: string }) => item.id)).toContain(overlay.id);

  const updated = await graphql(
    stack,
    'mutation($id: ID!) { updateOverlay(id: $id, input: { duration: 5 }) { duration name } }',
    { id: overlay.id },
    site.admin,
  );
  expect(updated.body.data.updateOverlay).toEqual({ duration: 5, name: 'Poll' });

  const sent = await graphql(
    stack,
    'mutation($id: ID!) { broadcastOverlay(id: $id, input: { variables: { question: "Who wins?" } }) { kind channelId overlay { contents } remainingSeconds } }',
    { id: overlay.id },
    site.admin,
  );
  expect(sent.body.data.broadcastOverlay).toMatchObject({ kind: 'SHOW', channelId: null, remainingSeconds: 5 });
  expect(sent.body.data.broadcastOverlay.overlay.contents.html).toBe('Vote Who wins?');

  const active = await graphql(stack, '{ activeOverlayBroadcasts { kind overlay { id } } }', {}, site.admin);
  expect(active.body.data.activeOverlayBroadcasts).toEqual([{ kind: 'SHOW', overlay: { id: overlay.id } }]);
  const cleared = await graphql(stack, 'mutation { clearOverlayBroadcasts { cleared } }', {}, site.admin);
  expect(cleared.body.data.clearOverlayBroadcasts.cleared).toBe(1);
});

it('joins the overlays subgraph onto the content subgraph’s Site through the entity key', async () => {
  await graphql(stack, CREATE, { input: { ...input, name: 'Joined' } }, other.admin);
  const reply = await graphql(stack, '{ site { id name overlays { name siteId } } }', {}, other.admin);
  expect(reply.body.errors).toBeUndefined();
  expect(reply.body.data.site).toEqual({ id: other.siteId, name: 'Site B', overlays: [{ name: 'Joined', siteId: other.siteId }] });
});

it('reports errors with extensions.code', async () => {
  const missing = await graphql(stack, '{ overlay(id: "nope") { id } }', {}, site.admin);
  expect(missing.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');

  const bad = await graphql(stack, CREATE, { input: { ...input, duration: -1 } }, site.admin);
  expect(bad.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  expect(bad.body.errors?.[0].message).toMatch(/duration/);

  const anonymous = await graphql(stack, '{ overlays { id } }', {}, { 'x-service-client-id': site.siteId });
  expect(anonymous.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');

  const reader = await site.token([{ pageId: [], scope: 'Overlays', write: false }]);
  const forbidden = await graphql(stack, CREATE, { input }, { 'x-service-client-id': site.siteId, authorization: `Bearer ${reader}` });
  expect(forbidden.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
});

it('refuses wrong credentials before execution with HTTP 401', async () => {
  const reply = await graphql(stack, '{ overlays { id } }', {}, { 'x-service-client-id': site.siteId, 'x-service-developer-key': 'sgk_wrong' });
  expect(reply.status).toBe(401);
  expect(reply.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
});

it('hides another site’s overlays from queries and entity joins', async () => {
  const theirs = (await graphql(stack, CREATE, { input }, other.admin)).body.data.createOverlay;
  const reply = await graphql(stack, 'query($id: ID!) { overlay(id: $id) { id } }', { id: theirs.id }, site.admin);
  expect(reply.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  const list = await graphql(stack, '{ site { overlays { id } } }', {}, site.admin);
  expect(list.body.data.site.overlays.map((item: { id: string }) => item.id)).not.toContain(theirs.id);
});

it('subgraphs refuse requests that the gateway did not sign', async () => {
  const response = await fetch(stack.subgraphs.overlays.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-stagegraph-identity': 'forged.signature' },
    body: JSON.stringify({ query: '{ overlays { id } }' }),
  });
  expect(response.status).toBe(401);
});

it("a subgraph answers the gateway's fetches at its door as its app would: the answer whole, no ETag; a bad body 400, a large one 413", async () => {
  const identity = signIdentity({ siteId: site.siteId, developerKey: true, account: null, requestId: 'door' }, stack.config.internalSecret);
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(stack.subgraphs.overlays.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-stagegraph-identity': identity, ...headers },
      body,
    });
  const answered = await post(JSON.stringify({ query: '{ overlays { id } }' }));
  expect(answered.status).toBe(200);
  expect(answered.headers.get('etag')).toBeNull();
  expect(Number(answered.headers.get('content-length'))).toBeGreaterThan(0);
  expect(await answered.json()).toEqual({ data: { overlays: expect.any(Array) } });
  // What the app answered before the door: the same status and errors for an operation that fails validation.
  const invalid = await post(JSON.stringify({ query: '{ noSuchField }' }));
  expect(invalid.status).toBe(400);
  expect(((await invalid.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  const malformed = await post('{"query": ');
  expect(malformed.status).toBe(400);
  expect(await malformed.json()).toEqual({ errors: [{ message: 'the request body is not valid JSON' }] });
  // Streamed without a length, over the body limit: refused once it passes it.
  const large = await fetch(stack.subgraphs.overlays.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-stagegraph-identity': identity },
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: '{ overlays { id } }', padding: 'x'.repeat(stack.config.bodyLimitBytes) })));
        controller.close();
      },
    }),
    duplex: 'half',
  });
  expect(large.status).toBe(413);
  // Other paths are the app's, as before.
  expect((await fetch(stack.subgraphs.overlays.url.replace(/\/graphql$/, '/health'))).status).toBe(200);
});

it('accepts a service of the deployment acting as a signed identity, and nothing signed with another key', async () => {
  const identity = { siteId: site.siteId, developerKey: true, account: null, requestId: 'service-call' };
  const signed = await graphql(stack, '{ site { id } }', {}, { 'x-stagegraph-identity': signIdentity(identity, stack.config.internalSecret) });
  expect(signed.body.data.site.id).toBe(site.siteId);
  const forged = await graphql(stack, '{ overlays { id } }', {}, { 'x-stagegraph-identity': signIdentity(identity, 'another-secret-of-at-least-32-chars!!') });
  expect(forged.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
});
