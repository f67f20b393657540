/**
 * Deleting a recording (docs/design.md "Paid video stays paid"): `DELETE /video/v3/{id}` (C + D) asks the
 * provider's deleteVod for a delivered VOD and removes the video from the check, the listings, one video
 * by ID and channelStatus; the seed's test trigger does the same. A provider that refuses, fails (5xx, a
 * dropped connection) or is down gives 502 naming it and leaves the video as it was; another site's video is 404 and a viewer's key is refused; GraphQL answers alike.
 */
import type { Stack } from '../../stack';
import { graphql, rest } from '../helpers/http';
import { readStatus, registerShowProvider, showChannel, type ShowChannel } from '../helpers/show';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let provider: FakeStreamProvider;
let contract: { id: string; authorization: string; name: string };

beforeAll(async () => {
  stack = await startTestStack({ env: { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png', PROVIDER_RETRIES: '0' } });
  site = await createTestSite(stack, 'Deleting site');
  other = await createTestSite(stack, 'Other site');
  provider = await startFakeStreamProvider();
  contract = await registerShowProvider(stack, site, provider);
});
afterAll(async () => {
  await provider.close();
  await stopAll();
});

let vods = 0;

/** A channel that offers its recording, after one show whose VOD was delivered. */
async function recordedShow(at: { id: string; authorization: string } = contract): Promise<{ show: ShowChannel; videoId: string; vodId: string; url: string }> {
  const show = await showChannel(stack, site, at, { content: { offline: { kind: 'recording' } } });
  const started = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin });
  await show.hook('connected', 10);
  await show.hook('active', 20);
  await rest(stack, 'POST', `/stream/v1/${show.stream._id}/stop`, { headers: site.admin });
  const vodId = `deleted-vod-${(vods += 1)}-${Date.now()}`;
  const url = `https://cdn.fake.test/${vodId}.m3u8`;
  const body = { durationSeconds: 30, liveBroadcastId: started.body.liveBroadcastId, vodId, streamId: show.stream.providerStreamId, url };
  const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${at.authorization}` }, body });
  expect(delivered.status).toBe(200);
  await show.hook('disconnected', 30);
  await show.hook('idle', 40);
  return { show, videoId: delivered.body.videoId, vodId, url };
}

const check = (channelId: string) =>
  rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { 'x-service-client-id': site.siteId, 'x-service-device-id': 'tv' } });
const listing = (channelId: string) => rest(stack, 'GET', `/video/v3/?channelId=${channelId}`, { headers: site.admin });
const deleteVodCalls = () => provider.callsOf('deleteVod').map((call) => (call.body as { id: string }).id);

/** The video is gone everywhere a viewer or admin could find it. */
async function expectGone(channelId: string, videoId: string, url: string) {
  const checked = await check(channelId);
  expect(checked.body.canIPlayResponse.contentCheck.video.video).toBeNull();
  expect(JSON.stringify(checked.body)).not.toContain(url);
  expect((await listing(channelId)).body.results).toEqual([]);
  expect((await readStatus(stack, site.siteId, channelId)).recordingVideoId).toBeNull();
  const one = await graphql(stack, /* GraphQL */ `query One($id: ID!) { video(id: $id) { id } }`, { id: videoId }, site.admin);
  expect(one.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
}

it('deletes a delivered recording at its provider, then everywhere; a second delete is 404', async () => {
  const { show, videoId, vodId, url } = await recordedShow();
  expect((await check(show.channelId)).body.canIPlayResponse.contentCheck.video.video).toMatchObject({ _id: videoId, url });
  expect((await readStatus(stack, site.siteId, show.channelId)).recordingVideoId).toBe(videoId);

  const deleted = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: site.admin });
  expect(deleted.status).toBe(200);
  expect(deleted.body).toMatchObject({ success: true });
  expect(deleteVodCalls().filter((id) => id === vodId)).toHaveLength(1);
  await expectGone(show.channelId, videoId, url);

  const again = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: site.admin });
  expect(again.status).toBe(404);
  expect(again.body).toEqual({ success: false, message: expect.any(String) });
});

it('the seed’s test trigger removes the video too', async () => {
  const { show, videoId, vodId, url } = await recordedShow();
  const triggered = await rest(stack, 'POST', `/streamprovider/v1/test/delete-vod/${vodId}`, { headers: site.admin });
  expect(triggered.status).toBe(200);
  expect(deleteVodCalls()).toContain(vodId);
  await expectGone(show.channelId, videoId, url);
  // Asked again, the provider is not asked a second time.
  expect((await rest(stack, 'POST', `/streamprovider/v1/test/delete-vod/${vodId}`, { headers: site.admin })).status).toBe(200);
  expect(deleteVodCalls().filter((id) => id === vodId)).toHaveLength(1);
});

it('keeps the video when the provider refuses, and deletes it over GraphQL once the provider agrees', async () => {
  const { show, videoId, vodId, url } = await recordedShow();
  provider.answer('deleteVod', { status: 403, body: { message: 'not now' } });
  const refused = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: site.admin });
  expect(refused.status).toBe(502);
  expect(refused.body).toEqual({ success: false, message: expect.any(String) });
  expect((await listing(show.channelId)).body.results).toEqual([expect.objectContaining({ _id: videoId, url })]);
  expect((await check(show.channelId)).body.canIPlayResponse.contentCheck.video.video).toMatchObject({ _id: videoId });

  const viaGraphql = await graphql(stack, /* GraphQL */ `mutation Delete($id: ID!) { deleteVideo(id: $id) { id success } }`, { id: videoId }, site.admin);
  expect(viaGraphql.body).toEqual({ data: { deleteVideo: { id: videoId, success: true } } });
  expect(deleteVodCalls().filter((id) => id === vodId)).toHaveLength(2);
  await expectGone(show.channelId, videoId, url);
});

/** The video is still everywhere it was: listed, offered by the check, and readable by ID. */
async function expectKept(channelId: string, videoId: string, url: string) {
  expect((await listing(channelId)).body.results).toEqual([expect.objectContaining({ _id: videoId, url })]);
  expect((await check(channelId)).body.canIPlayResponse.contentCheck.video.video).toMatchObject({ _id: videoId, url });
  expect((await readStatus(stack, site.siteId, channelId)).recordingVideoId).toBe(videoId);
}

it('answers 502 naming the provider when its deleteVod fails (5xx, or a dropped connection), and removes nothing', async () => {
  const { show, videoId, vodId, url } = await recordedShow();
  for (const failure of [{ status: 500, body: { message: 'disk on fire' } }, { status: 503 }, 'drop' as const]) {
    provider.answer('deleteVod', failure);
    const failed = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: site.admin });
    expect({ failure, status: failed.status, body: failed.body }).toEqual({
      failure,
      status: 502,
      body: { success: false, message: expect.stringContaining(`the streaming provider "${contract.name}"'s deleteVod call failed`) },
    });
    await expectKept(show.channelId, videoId, url);
  }
  expect(deleteVodCalls().filter((id) => id === vodId)).toHaveLength(3);
});

it('answers 502 naming the provider when the provider is down, and removes nothing', async () => {
  const gone = await startFakeStreamProvider();
  const goneContract = await registerShowProvider(stack, site, gone);
  const { show, videoId, url } = await recordedShow(goneContract);
  await gone.close();
  const failed = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: site.admin });
  expect(failed.status).toBe(502);
  expect(failed.body).toEqual({ success: false, message: expect.stringContaining(`the streaming provider "${goneContract.name}"'s deleteVod call failed`) });
  // The provider was not reached at all: nothing says why better than the connection's own error.
  expect(failed.body.message).toMatch(/ECONNREFUSED|fetch failed/);
  await expectKept(show.channelId, videoId, url);
});

it('answers 404 for another site’s video and refuses a viewer, deleting nothing', async () => {
  const { show, videoId, vodId, url } = await recordedShow();
  const theirs = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: other.admin });
  expect(theirs.status).toBe(404);
  expect(theirs.body.success).toBe(false);
  const viewer = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: { 'x-service-client-id': site.siteId } });
  expect(viewer.status).toBe(401);
  const { token } = await site.signIn([]);
  const signedIn = await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${token}` } });
  // The route is C + D (the REST table's SITE_ADMIN): a viewer's JWT is not a developer key.
  expect(signedIn.status).toBe(401);
  expect(deleteVodCalls()).not.toContain(vodId);
  expect((await listing(show.channelId)).body.results).toEqual([expect.objectContaining({ _id: videoId, url })]);
});

it('removes a video no provider delivered without asking one', async () => {
  const channel = await showChannel(stack, site, contract);
  const recorded = await graphql(
    stack,
    /* GraphQL */ `mutation Record($input: RecordVodInput!) { recordVod(input: $input) { id } }`,
    { input: { pageId: channel.channelId, vodId: `admin-vod-${Date.now()}`, url: 'https://cdn.fake.test/admin.m3u8' } },
    site.admin,
  );
  const videoId = recorded.body.data.recordVod.id;
  const calls = deleteVodCalls().length;
  expect((await rest(stack, 'DELETE', `/video/v3/${videoId}`, { headers: site.admin })).status).toBe(200);
  expect(deleteVodCalls()).toHaveLength(calls);
  expect((await listing(channel.channelId)).body.results).toEqual([]);
});
