/** Contracts other subgraphs build on: an account's entitlements, and a delivered recording becoming a Video. */
import { createTestSite, grantEntitlement, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
});
afterAll(stopAll);

it('lists the signed-in account’s entitlements (community) through the gateway', async () => {
  const { accountId, token } = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, accountId, 'season-pass');
  const reply = await graphql(
    stack,
    '{ me { id subscriptions { status grantedMethod entitlement { sku prices { currency value default } } } } }',
    {},
    {
      'x-service-client-id': site.siteId,
      authorization: `Bearer ${token}`,
    },
  );
  expect(reply.body.errors).toBeUndefined();
  expect(reply.body.data.me).toEqual({
    id: accountId,
    subscriptions: [{ status: 'active', grantedMethod: 'admin', entitlement: { sku: 'season-pass', prices: [{ currency: 'USD', value: 10, default: true }] } }],
  });
});

it('records a VOD as a Video of its channel once per vodId, and refuses an unknown channel', async () => {
  const now = new Date();
  const pageId = 'a'.repeat(24);
  await stack.database.prisma.page.create({
    data: { id: pageId, siteId: site.siteId, slug: 'main-stage', type: 'channel', document: {}, tags: [], createdAt: now, updatedAt: now },
  });
  const record = /* GraphQL */ `mutation($input: RecordVodInput!) { recordVod(input: $input) { id pageId type url durationSeconds } }`;
  const input = { pageId, vodId: 'vod-1', url: 'https://cdn.example/vod-1.m3u8', durationSeconds: 3600, liveBroadcastId: 'lb-1' };
  const first = await graphql(stack, record, { input }, site.admin);
  expect(first.body.data.recordVod).toMatchObject({ pageId, type: 'vod', url: input.url, durationSeconds: 3600 });
  const again = await graphql(stack, record, { input: { ...input, url: 'https://cdn.example/other.m3u8' } }, site.admin);
  expect(again.body.data.recordVod).toEqual(first.body.data.recordVod);
  const unknown = await graphql(stack, record, { input: { ...input, vodId: 'vod-2', pageId: 'b'.repeat(24) } }, site.admin);
  expect(unknown.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
});
