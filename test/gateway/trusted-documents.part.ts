/**
 * Trusted documents: a site registers a persisted query manifest (Apollo's format) with POST
 * /graphql/documents or the CLI; Apollo Client 4 with its persisted-queries link then sends only the
 * hash, and a site with trustedDocumentsOnly runs nothing else for callers without a developer key,
 * while the REST bridge and the viewers' live documents keep working.
 */
import { ApolloClient, HttpLink, InMemoryCache, ServerError, gql, type DocumentNode } from '@apollo/client';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createChannel, startTestStack, startTwoSiteStack, stopAllWithClients, TEST_SECRETS, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { connectedClient } from '../helpers/viewer';
import { eventually } from '../helpers/wait';
import { runCli } from '../helpers/serverProcess';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let channelId: string;
const clients: Client[] = [];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const PAGE = gql`
  query TrustedPage($id: ID!) {
    page(id: $id) {
      id
      slug
    }
  }
`;
const PAGE_TYPE = gql`
  query UntrustedPage($id: ID!) {
    page(id: $id) {
      id
      type
    }
  }
`;

/** The bodies an Apollo Client sent, as the server received them (to see that only the hash went). */
interface Sent {
  query?: string;
  extensions?: { persistedQuery?: { sha256Hash: string } };
}

/** Apollo Client 4 with the persisted-queries link (sha256 from node:crypto), as a site's front end builds it. */
function apolloClient(headers: Record<string, string>) {
  const sent: Sent[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    sent.push(JSON.parse(typeof init?.body === 'string' ? init.body : '') as Sent);
    return fetch(input, init);
  };
  const link = createPersistedQueryLink({ sha256 }).concat(new HttpLink({ uri: `${stack.url}/graphql`, headers, fetch: recordingFetch }));
  return { client: new ApolloClient({ link, cache: new InMemoryCache() }), sent };
}

/** The document exactly as Apollo Client prints and hashes it (the cache adds __typename), as the manifest generator writes it. */
function manifestEntry(client: ApolloClient, document: DocumentNode) {
  const body = print(client.cache.transformDocument(document));
  const name = (document.definitions[0] as { name?: { value: string } }).name?.value ?? null;
  return { id: sha256(body), name, type: 'query', body };
}

const manifest = (operations: object[]) => ({ format: 'apollo-persisted-query-manifest', version: 1, operations });

const setOnly = (owner: TestSite, enabled: boolean) =>
  rest(stack, 'PUT', '/graphql/documents/settings', { headers: owner.admin, body: { trustedDocumentsOnly: enabled } });

beforeAll(async () => {
  ({ stack, site, other } = await startTwoSiteStack('Trusted'));
  channelId = await createChannel(stack, site.siteId);
});
afterAll(() => stopAllWithClients(clients));

it('Apollo Client sends only the hash of a registered document, with the site ID alone, and a site runs only those when asked', async () => {
  const viewer = apolloClient({ 'x-service-client-id': site.siteId });
  const entry = manifestEntry(viewer.client, PAGE);
  const registered = await rest(stack, 'POST', '/graphql/documents', { headers: site.admin, body: manifest([entry]) });
  expect(registered.status).toBe(201);
  expect(registered.body).toEqual({ operations: 1, added: 1, ids: [entry.id] });
  // The same manifest again keeps what is there.
  expect((await rest(stack, 'POST', '/graphql/documents', { headers: site.admin, body: manifest([entry]) })).body).toEqual({
    operations: 1,
    added: 0,
    ids: [entry.id],
  });

  expect((await setOnly(site, true)).body).toEqual({ trustedDocumentsOnly: true, documents: 1 });
  expect((await graphql(stack, '{ site { trustedDocumentsOnly } }', {}, site.admin)).body).toEqual({ data: { site: { trustedDocumentsOnly: true } } });
  const answer = await viewer.client.query({ query: PAGE, variables: { id: channelId }, fetchPolicy: 'no-cache' });
  expect(answer.data).toEqual({ page: { __typename: 'Page', id: channelId, slug: `page-${channelId}` } });
  expect(viewer.sent).toHaveLength(1);
  expect(viewer.sent[0].query).toBeUndefined();
  expect(viewer.sent[0].extensions?.persistedQuery?.sha256Hash).toBe(entry.id);

  // A document the site did not register: refused for a caller without D, even when the link sends it whole.
  const refused = await viewer.client.query({ query: PAGE_TYPE, variables: { id: channelId }, fetchPolicy: 'no-cache' }).catch((error: unknown) => error);
  if (!ServerError.is(refused)) throw new Error(`expected a ServerError, got ${String(refused)}`);
  expect(refused.statusCode).toBe(400);
  expect(JSON.parse(refused.bodyText).errors[0]).toMatchObject({
    message: expect.stringContaining('only its trusted documents'),
    extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
  });
  // The link sent the hash, heard PERSISTED_QUERY_NOT_FOUND, and sent the whole document once.
  expect(viewer.sent.slice(1).map((sent) => typeof sent.query)).toEqual(['undefined', 'string']);
  const whole = await graphql(stack, print(PAGE_TYPE), { id: channelId }, { 'x-service-client-id': site.siteId });
  expect(whole.status).toBe(400);
  expect(whole.body.errors?.[0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  const unknownHash = await rest(stack, 'POST', '/graphql', {
    headers: { 'x-service-client-id': site.siteId },
    body: { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('query { site { id } }') } } },
  });
  expect(unknownHash.status).toBe(400);
  expect(unknownHash.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');

  // A developer key runs anything.
  const admin = await graphql(stack, print(PAGE_TYPE), { id: channelId }, site.admin);
  expect(admin.body).toEqual({ data: { page: { id: channelId, type: 'channel' } } });

  // Off again: the unregistered document runs, the link falling back to sending it whole.
  expect((await setOnly(site, false)).body).toEqual({ trustedDocumentsOnly: false, documents: 1 });
  const fresh = apolloClient({ 'x-service-client-id': site.siteId });
  const typed = await fresh.client.query({ query: PAGE_TYPE, variables: { id: channelId }, fetchPolicy: 'no-cache' });
  expect(typed.data).toEqual({ page: { __typename: 'Page', id: channelId, type: 'channel' } });
});

it('documentId runs the registered body; another site’s id is not found there', async () => {
  const body = 'query SiteName { site { name } }';
  const id = sha256(body);
  expect(
    (await rest(stack, 'POST', '/graphql/documents', { headers: site.admin, body: manifest([{ id, name: 'SiteName', type: 'query', body }]) })).status,
  ).toBe(201);

  const byId = await rest(stack, 'POST', '/graphql', { headers: site.admin, body: { documentId: id } });
  expect(byId.body).toEqual({ data: { site: { name: 'Trusted' } } });
  const elsewhere = await rest(stack, 'POST', '/graphql', { headers: other.admin, body: { documentId: id } });
  expect(elsewhere.status).toBe(400);
  expect(elsewhere.body.errors[0]).toMatchObject({
    message: expect.stringContaining('no trusted document'),
    extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
  });
  const listed = await rest(stack, 'GET', '/graphql/documents', { headers: other.admin });
  expect(listed.body).toEqual([]);
  const mine = await rest(stack, 'GET', '/graphql/documents', { headers: site.admin });
  expect(mine.body).toEqual(expect.arrayContaining([{ id, name: 'SiteName', type: 'query', body, created: expect.any(Number) }]));
});

it('refuses a malformed manifest naming the entry, and stores nothing of it', async () => {
  const good = { id: sha256('query A { site { id } }'), name: 'A', type: 'query', body: 'query A { site { id } }' };
  const wrongHash = { id: sha256('something else'), name: 'B', type: 'query', body: 'query B { site { name } }' };
  const cases: [unknown, RegExp][] = [
    [manifest([good, wrongHash]), /operations\[1\]\.id is not the sha256 hex of its body/],
    [manifest([good, { ...good, type: 'fragment' }]), /operations\[1\]\.type/],
    [manifest([{ ...good, id: 'abc' }]), /operations\[0\]\.id/],
    [manifest([{ id: sha256('query {'), type: 'query', body: 'query {' }]), /operations\[0\]\.body is not a GraphQL document/],
    [{ format: 'something', version: 1, operations: [good] }, /format/],
    [manifest([]), /operations/],
  ];
  for (const [body, message] of cases) {
    const reply = await rest(stack, 'POST', '/graphql/documents', { headers: other.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, message: expect.stringMatching(message) });
  }
  expect((await rest(stack, 'GET', '/graphql/documents', { headers: other.admin })).body).toEqual([]);
  // C + D: the site ID alone, or a signed-in account without a developer key, may not register.
  expect((await rest(stack, 'POST', '/graphql/documents', { headers: { 'x-service-client-id': other.siteId }, body: manifest([good]) })).status).toBe(401);
  const token = await other.token([{ pageId: [], scope: '*', write: true }]);
  expect(
    (
      await rest(stack, 'POST', '/graphql/documents', {
        headers: { 'x-service-client-id': other.siteId, authorization: `Bearer ${token}` },
        body: manifest([good]),
      })
    ).status,
  ).toBe(401);
});

it('with trusted documents only, the REST bridge and the embed’s live subscription still work', async () => {
  await setOnly(site, true);
  try {
    const page = await rest(stack, 'GET', `/page/v2/${channelId}`, { headers: { 'x-service-client-id': site.siteId } });
    expect(page.status).toBe(200);
    expect(page.body._id).toBe(channelId);

    const client = await connectedClient(stack, { 'x-service-client-id': site.siteId }, clients);
    const events: unknown[] = [];
    const subscribed = client.subscribe(
      {
        // The embed's own document (embed/overlays.ts).
        query: /* GraphQL */ `subscription EmbedOverlays($channelId: ID) {
  overlayBroadcasts(channelId: $channelId) { kind broadcastId channelId remainingSeconds streamSecond overlay { id name type contents cta { type data } duration } }
}`,
        variables: { channelId },
      },
      { next: (result) => events.push(result), error: (error) => events.push({ error }), complete: () => undefined },
    );
    const overlay = await rest(stack, 'POST', '/overlay/v1', {
      headers: site.admin,
      body: { name: 'Score', type: 'instance', contents: { text: '1-0' }, duration: 30 },
    });
    // Broadcast until the subscription is live and the viewer has it (a subscription starts asynchronously).
    await eventually(async () => {
      if (events.length === 0) await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: site.admin, body: { channelId } });
      return events.length > 0;
    }, 'the embed subscription receives a broadcast');
    expect(events[0]).toMatchObject({ data: { overlayBroadcasts: { kind: 'SHOW', channelId, overlay: { id: overlay.body._id } } } });
    subscribed();
  } finally {
    await setOnly(site, false);
  }
});

let manifestDir = '';
afterAll(() => rmSync(manifestDir, { recursive: true, force: true }));

it('the CLI registers a manifest file the same way', async () => {
  const dir = (manifestDir = mkdtempSync(join(tmpdir(), 'stagegraph-manifest-')));
  const body = 'query Overlays { overlays { id } }';
  const file = join(dir, 'manifest.json');
  writeFileSync(file, JSON.stringify(manifest([{ id: sha256(body), name: 'Overlays', type: 'query', body }])));
  const cli = (args: string[]) => runCli(args, { ...process.env, DATABASE_URL: stack.config.databaseUrl, DATA_DIR: stack.config.dataDir, ...TEST_SECRETS });
  const { stdout } = await cli(['documents', 'add', '--site', other.siteId, '--file', file]);
  expect(JSON.parse(stdout)).toEqual({ operations: 1, added: 1, ids: [sha256(body)] });
  const byHash = await rest(stack, 'POST', '/graphql', {
    headers: other.admin,
    body: { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(body) } } },
  });
  expect(byHash.body).toEqual({ data: { overlays: [] } });

  writeFileSync(file, JSON.stringify(manifest([{ id: sha256('x'), type: 'query', body }])));
  await expect(cli(['documents', 'add', '--site', other.siteId, '--file', file])).rejects.toMatchObject({
    stderr: expect.stringContaining('operations[0].id'),
  });
});

it('another instance of the deployment knows the documents and the setting', async () => {
  // Without REDIS_URL the two instances share the first's in-process bus; with it, Redis carries the change.
  const second = await startTestStack({ sameDeploymentAs: stack, bus: process.env.REDIS_URL ? undefined : stack.bus });
  const body = 'query SiteId { site { id } }';
  const id = sha256(body);
  expect((await rest(stack, 'POST', '/graphql/documents', { headers: site.admin, body: manifest([{ id, name: 'SiteId', type: 'query', body }]) })).status).toBe(
    201,
  );
  expect((await rest(second, 'POST', '/graphql', { headers: site.admin, body: { documentId: id } })).body).toEqual({ data: { site: { id: site.siteId } } });

  const viewerHeaders = { 'x-service-client-id': site.siteId };
  const untrusted = () => graphql(second, print(PAGE_TYPE), { id: channelId }, viewerHeaders);
  // The second instance has read (and kept) the setting while it was off.
  expect((await untrusted()).status).toBe(200);
  await setOnly(site, true);
  try {
    // The change reaches the other instance through the bus, not through a cache's expiry.
    await eventually(async () => (await untrusted()).status === 400, 'the other instance refuses untrusted documents');
  } finally {
    await setOnly(site, false);
  }
});
