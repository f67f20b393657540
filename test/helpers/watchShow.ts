/**
 * A channel's show as the watch page tests stage it, through the public paths: a fake streaming provider
 * registered with the site (its streams play from `playbackUrl`), a stream of the channel, recording,
 * broadcasts at measured seconds, the provider's webhooks and its VOD delivery.
 */
import type { Stack } from '../../stack';
import { rest } from './http';
import type { TestSite } from './stack';
import type { FakeStreamProvider } from './streamProvider';

export interface ShowStream {
  /** The stream's ID at stagegraph. */
  id: string;
  providerStreamId: string;
  /** The provider's Bearer for its calls to stagegraph (webhooks, VOD delivery). */
  authorization: string;
}

async function expectStatus(reply: Promise<{ status: number; body: any }>, status: number, what: string) {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Registers `provider` with the site and creates the channel's stream, which plays from `playbackUrl`. */
export async function createShowStream(
  stack: Stack,
  site: TestSite,
  provider: FakeStreamProvider,
  channelId: string,
  playbackUrl = 'https://cdn.fake.test/live/index.m3u8',
): Promise<ShowStream> {
  const registered = await expectStatus(
    rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: `Provider of ${channelId}`, urls: provider.urls(), accountCredentials: {}, useAccount: false },
    }),
    201,
    'register',
  );
  const providerStreamId = `stream-${channelId}`;
  provider.answer('createStream', {
    status: 200,
    body: { ingestUrl: 'rtmp://ingest.fake.test/live', streamKey: `key-${channelId}`, playbackUrl, providerStreamId },
  });
  const stream = await expectStatus(
    rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: channelId, contractId: registered.id, fallbackImageUrl: 'https://img.fake.test/back-soon.png' },
    }),
    201,
    'create stream',
  );
  return { id: stream._id, providerStreamId: stream.providerStreamId, authorization: registered.authorization };
}

/** `startStream`: recording from now; the live broadcast's ID. */
export async function startRecording(stack: Stack, site: TestSite, stream: ShowStream): Promise<string> {
  return (await expectStatus(rest(stack, 'POST', `/stream/v1/${stream.id}/start`, { headers: site.admin }), 200, 'start')).liveBroadcastId;
}

export async function stopRecording(stack: Stack, site: TestSite, stream: ShowStream): Promise<void> {
  await expectStatus(rest(stack, 'POST', `/stream/v1/${stream.id}/stop`, { headers: site.admin }), 200, 'stop');
}

/** The provider delivers the recording of `liveBroadcastId` at `url`; the Video's ID. */
export async function deliverRecording(stack: Stack, stream: ShowStream, liveBroadcastId: string, url: string, durationSeconds: number): Promise<string> {
  const body = { streamId: stream.providerStreamId, liveBroadcastId, vodId: `vod-${liveBroadcastId}`, url, durationSeconds };
  return (await expectStatus(rest(stack, 'POST', '/video/v3/vod', { headers: { authorization: `Bearer ${stream.authorization}` }, body }), 200, 'deliver VOD'))
    .videoId;
}

export type WebhookType = 'connected' | 'active' | 'disconnected' | 'idle';

/** The provider's stream-state webhook (seed 000), at `time` (Unix ms; now by default). */
export async function sendWebhook(stack: Stack, stream: ShowStream, type: WebhookType, time = Date.now()): Promise<void> {
  await expectStatus(
    rest(stack, 'POST', '/stream/v1/webhook', {
      headers: { authorization: `Bearer ${stream.authorization}` },
      body: { type, id: stream.providerStreamId, time },
    }),
    200,
    `webhook ${type}`,
  );
}

/** Broadcasts `overlayId` to the channel; its broadcast ID and second of the recording. */
export async function broadcastTo(
  stack: Stack,
  site: TestSite,
  overlayId: string,
  channelId: string,
): Promise<{ broadcastId: string; streamSecond: number | null }> {
  const body = await expectStatus(rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, { headers: site.admin, body: { channelId } }), 200, 'broadcast');
  return { broadcastId: body.broadcastId, streamSecond: body.streamSecond };
}

/** A template overlay shown for `duration` seconds; its ID. */
export async function createOverlay(stack: Stack, site: TestSite, name: string, duration: number): Promise<string> {
  const body = await expectStatus(
    rest(stack, 'POST', '/overlay/v1', {
      headers: site.admin,
      body: { name, type: 'template', duration, contents: { html: `<p class="sg-test">${name}</p>` } },
    }),
    200,
    'overlay',
  );
  return body._id;
}
