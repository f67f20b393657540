/**
 * The seed's reconnect and the end of a show (docs/design.md "Paid video stays paid"): from RECONNECTING, the
 * encoder's `connected` with no `idle` between is LIVE again (a provider that keeps its HLS up on the
 * fallback image sends no fresh `active`); a show that ends (`idle`) while recording stops its recording
 * (the service calls stopStream), so the VOD arrives without an admin; the liveBroadcastId is cleared once
 * the recording has stopped. A failing stopStream answers the webhook with an error, and the provider's
 * retry of it stops the recording.
 */
import type { Stack } from '../../stack';
import { rest } from '../helpers/http';
import { readStatus, registerShowProvider, showChannel } from '../helpers/show';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

let stack: Stack;
let site: TestSite;
let provider: FakeStreamProvider;
let contract: { id: string; authorization: string };

beforeAll(async () => {
  stack = await startTestStack({ env: { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png', PROVIDER_RETRIES: '0' } });
  site = await createTestSite(stack, 'Show end site');
  provider = await startFakeStreamProvider();
  contract = await registerShowProvider(stack, site, provider);
});
afterAll(async () => {
  await provider.close();
  await stopAll();
});

const check = (channelId: string) =>
  rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { 'x-service-client-id': site.siteId, 'x-service-device-id': 'tv' } });
const stopCalls = (providerStreamId: string) => provider.callsOf('stopStream').filter((call) => (call.body as { id: string }).id === providerStreamId);

it('is LIVE again when the encoder reconnects before any idle, with no fresh active', async () => {
  const show = await showChannel(stack, site, contract);
  await show.hook('connected', 100);
  await show.hook('active', 200);
  await show.hook('disconnected', 300);
  expect(await readStatus(stack, site.siteId, show.channelId)).toMatchObject({ state: 'RECONNECTING', live: true });
  const back = await show.hook('connected', 400);
  expect(back.body).toMatchObject({ success: true, changed: true });
  expect(await readStatus(stack, site.siteId, show.channelId)).toMatchObject({ state: 'LIVE', live: true, startedAt: 200 });
  expect((await check(show.channelId)).body.canIPlayResponse.contentCheck).toMatchObject({ live: true, video: { video: { type: 'live' } } });
  // An older connected (from before the disconnect) does not bring it back; the seed's order still holds after.
  await show.hook('disconnected', 500);
  await show.hook('connected', 450);
  expect((await readStatus(stack, site.siteId, show.channelId)).state).toBe('RECONNECTING');
  await show.hook('idle', 600);
  expect((await readStatus(stack, site.siteId, show.channelId)).state).toBe('ENDED');
  await show.hook('connected', 700);
  expect((await readStatus(stack, site.siteId, show.channelId)).state).toBe('STARTING');
});

it('stops the recording when the show ends, clears liveBroadcastId, and takes the VOD without an admin', async () => {
  const show = await showChannel(stack, site, contract, { content: { offline: { kind: 'recording' } } });
  const started = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin });
  const { liveBroadcastId } = started.body;
  await show.hook('connected', 100);
  await show.hook('active', 200);
  expect(await readStatus(stack, site.siteId, show.channelId)).toMatchObject({ liveBroadcastId });
  await show.hook('disconnected', 300);
  expect(stopCalls(show.stream.providerStreamId)).toHaveLength(0);

  const ended = await show.hook('idle', 400);
  expect(ended.status).toBe(200);
  expect(stopCalls(show.stream.providerStreamId)).toHaveLength(1);
  const stream = await rest(stack, 'GET', `/stream/v1/${show.stream._id}`, { headers: site.admin });
  expect(stream.body).toMatchObject({ state: { recording: false }, liveBroadcastId: null });
  expect(await readStatus(stack, site.siteId, show.channelId)).toMatchObject({ state: 'ENDED', liveBroadcastId: null, streamSecond: null });
  // A repeated idle stops nothing twice.
  await show.hook('idle', 400);
  expect(stopCalls(show.stream.providerStreamId)).toHaveLength(1);

  // The provider delivers the VOD of the stopped broadcast; the channel offers it.
  const vod = {
    durationSeconds: 12,
    liveBroadcastId,
    vodId: `ended-${Date.now()}`,
    streamId: show.stream.providerStreamId,
    url: 'https://cdn.fake.test/ended.m3u8',
  };
  const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${contract.authorization}` }, body: vod });
  expect(delivered.status).toBe(200);
  expect((await check(show.channelId)).body.canIPlayResponse.contentCheck.video.video).toMatchObject({ _id: delivered.body.videoId, url: vod.url });

  // An admin's stop clears it too, and the next show records under a new broadcast.
  const next = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin });
  expect(next.body.liveBroadcastId).not.toBe(liveBroadcastId);
  const stopped = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/stop`, { headers: site.admin });
  expect(stopped.body).toMatchObject({ state: { recording: false }, liveBroadcastId: null });
});

it('answers the idle with an error when stopStream fails, and stops the recording on the provider’s retry', async () => {
  const show = await showChannel(stack, site, contract);
  const started = await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin });
  await show.hook('connected', 100);
  await show.hook('active', 200);
  provider.answer('stopStream', { status: 500, body: { message: 'busy' } });
  const failed = await show.hook('idle', 300);
  expect(failed.status).toBe(502);
  expect(failed.body).toEqual({ success: false, message: expect.any(String) });
  expect((await rest(stack, 'GET', `/stream/v1/${show.stream._id}`, { headers: site.admin })).body).toMatchObject({
    state: { recording: true },
    liveBroadcastId: started.body.liveBroadcastId,
  });
  const retried = await show.hook('idle', 300);
  expect(retried.status).toBe(200);
  expect(stopCalls(show.stream.providerStreamId)).toHaveLength(2);
  expect((await rest(stack, 'GET', `/stream/v1/${show.stream._id}`, { headers: site.admin })).body).toMatchObject({
    state: { recording: false },
    liveBroadcastId: null,
  });
});
