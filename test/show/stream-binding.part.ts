/**
 * One stream, one channel (docs/design.md "Paid video stays paid"): a clone carries no stream of its original and
 * does not go live with it; naming a stream another channel of the site holds is refused with 409 (REST)
 * and CONFLICT (GraphQL), nothing written; deleting a channel asks the provider's deleteStream only for its
 * own stream.
 */
import type { Stack } from '../../stack';
import { graphql, rest } from '../helpers/http';
import { readStatus, registerShowProvider, showChannel } from '../helpers/show';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let provider: FakeStreamProvider;
let contract: { id: string; authorization: string };

beforeAll(async () => {
  stack = await startTestStack({ env: { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png' } });
  site = await createTestSite(stack, 'Binding site');
  other = await createTestSite(stack, 'Other site');
  provider = await startFakeStreamProvider();
  contract = await registerShowProvider(stack, site, provider);
});
afterAll(async () => {
  await provider.close();
  await stopAll();
});

const check = (channelId: string) =>
  rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { 'x-service-client-id': site.siteId, 'x-service-device-id': 'tv' } });
const deletedStreams = () => provider.callsOf('deleteStream').map((call) => (call.body as { id: string }).id);

it('clones a channel without its stream: the clone does not go live with the original, and deleting it leaves the stream alone', async () => {
  const show = await showChannel(stack, site, contract);
  const clone = await rest(stack, 'POST', `/page/v2/clone/${show.channelId}`, { headers: site.admin });
  expect(clone.status).toBe(200);
  expect(clone.body.renderers.livestream).not.toHaveProperty('stream_id');

  await show.hook('connected', 10);
  await show.hook('active', 20);
  const original = (await check(show.channelId)).body.canIPlayResponse.contentCheck;
  expect(original).toMatchObject({ live: true, video: { video: { type: 'live', url: show.stream.playbackUrl } } });
  const copy = await check(clone.body._id);
  expect(JSON.stringify(copy.body)).not.toContain(show.stream.playbackUrl);
  expect(copy.body.canIPlayResponse.contentCheck.video.video).toBeNull();
  const copyStatus = await readStatus(stack, site.siteId, clone.body._id);
  expect(copyStatus).toMatchObject({ liveBroadcastId: null, playbackUrl: null });
  expect(copyStatus.state).not.toBe('STARTING');

  const before = deletedStreams().length;
  expect((await rest(stack, 'DELETE', `/pages/v3/${clone.body._id}`, { headers: site.admin })).status).toBe(200);
  expect(deletedStreams()).toHaveLength(before);
  expect((await check(show.channelId)).body.canIPlayResponse.contentCheck.live).toBe(true);

  // Deleting the original asks for its own stream, once.
  expect((await rest(stack, 'DELETE', `/pages/v3/${show.channelId}`, { headers: site.admin })).status).toBe(200);
  expect(deletedStreams().slice(before)).toEqual([show.stream.providerStreamId]);
});

it('refuses to bind a stream another channel holds (409, CONFLICT), and writes nothing', async () => {
  const holder = await showChannel(stack, site, contract);
  const taker = await showChannel(stack, site, contract);
  const takerBefore = await rest(stack, 'GET', `/pages/v2/${taker.channelId}`, { headers: site.admin });

  const put = await rest(stack, 'PUT', `/pages/v3/${taker.channelId}`, {
    headers: site.admin,
    body: { renderers: { livestream: { livestream_published: true, stream_id: holder.stream._id } } },
  });
  expect(put.status).toBe(409);
  expect(put.body).toEqual({ success: false, message: expect.stringContaining(holder.stream._id) });
  expect((await rest(stack, 'GET', `/pages/v2/${taker.channelId}`, { headers: site.admin })).body).toEqual(takerBefore.body);

  const created = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: { slug: `taker-${Date.now()}`, type: 'channel', data: { name: 'Taker' }, renderers: { livestream: { stream_id: holder.stream._id } } },
  });
  expect(created.status).toBe(409);
  expect(created.body.success).toBe(false);

  const fresh = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: { slug: `fresh-${Date.now()}`, type: 'channel', data: { name: 'Fresh' } },
  });
  const attach = await graphql(
    stack,
    /* GraphQL */ `mutation Attach($channelId: ID!, $streamId: ID!) { attachChannelStream(channelId: $channelId, streamId: $streamId) { id } }`,
    { channelId: fresh.body._id, streamId: holder.stream._id },
    site.admin,
  );
  expect(attach.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  expect((await rest(stack, 'GET', `/pages/v2/${fresh.body._id}`, { headers: site.admin })).body.renderers).toBeNull();

  // The holder may write its own stream again; another site's page naming the same ID is that site's business.
  const again = await rest(stack, 'PUT', `/pages/v3/${holder.channelId}`, {
    headers: site.admin,
    body: { renderers: { livestream: { livestream_published: true, stream_id: holder.stream._id } } },
  });
  expect(again.status).toBe(200);
  const elsewhere = await rest(stack, 'POST', '/pages/v3', {
    headers: other.admin,
    body: { slug: 'elsewhere', type: 'channel', data: { name: 'Elsewhere' }, renderers: { livestream: { stream_id: holder.stream._id } } },
  });
  expect(elsewhere.status).toBe(200);
});
