/**
 * A show on real parts across two instances of one deployment (PostgreSQL + Redis in CI's second pass; one
 * database and a shared in-process bus otherwise): ffmpeg pushes a test pattern over RTMP to the reference
 * provider (nginx with its RTMP module), whose webhooks reach the first instance; the second instance's
 * channelStatus viewer sees the show start, go live, reconnect and end; its content check gives a live URL
 * whose manifest lists segments that download; the recording the provider delivers is what the check offers
 * after the show, and its timeline carries the overlay broadcast while it was recorded.
 */
import type { Client } from 'graphql-ws';
import { createMemoryBus } from '../../shared/bus/memory';
import type { Stack } from '../../stack';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import {
  pushTestPattern,
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopChild,
  stopReferenceProviders,
} from '../helpers/referenceProvider';
import { STATUS_SUBSCRIPTION } from '../helpers/show';
import { createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { connectedClient } from '../helpers/viewer';
import { until } from '../helpers/wait';

const clients: Client[] = [];
let first: Stack;
let second: Stack;
let site: TestSite;
let contractId: string;

beforeAll(async () => {
  const ports = await referenceProviderPorts({ PROVIDER_IDLE_AFTER_MS: '3000' });
  // Exactly the provider's port is reachable from the service: no OUTBOUND_ALLOW_PRIVATE.
  const env = { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${ports.httpPort}`, STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/back-soon.png' };
  const bus = usingRedis ? undefined : createMemoryBus();
  first = await startTestStack({ bus, env });
  second = await startTestStack({ sameDeploymentAs: first, bus, env });
  site = await createTestSite(first, 'Show on real parts');
  const registered = await registerReferenceProvider(ports, { service: first.url, siteId: site.siteId, developerKey: site.developerKey });
  if (registered.code !== 0) throw new Error(`register failed: ${registered.stderr}`);
  contractId = JSON.parse(registered.stdout.trim()).contractId;
  await serveReferenceProvider(ports);
}, 180_000);

afterAll(async () => {
  await stopReferenceProviders();
  await stopAllWithClients(clients);
}, 60_000);

it(`goes live for viewers on both instances from real RTMP, reconnects, ends and offers its recording with its overlays (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
  const channel = await rest(first, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'real-show',
      type: 'channel',
      data: { name: 'Real show', content: { offline: { kind: 'recording' } } },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  expect(channel.status).toBeLessThan(300);
  const channelId = channel.body._id as string;
  const stream = await rest(first, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channelId, contractId } });
  expect(stream.status).toBe(201);

  // A viewer of the second instance, on the channel's status.
  const viewerHeaders = { 'x-service-client-id': site.siteId };
  const client = await connectedClient(second, viewerHeaders, clients);
  const states: { state: string; live: boolean; playbackUrl: string | null; recordingVideoId: string | null }[] = [];
  client.subscribe(
    { query: STATUS_SUBSCRIPTION, variables: { channelId } },
    {
      next: (result) => void states.push(result.data?.channelStatus as (typeof states)[number]),
      error: (error) => void states.push({ state: `error ${JSON.stringify(error)}`, live: false, playbackUrl: null, recordingVideoId: null }),
      complete: () => undefined,
    },
  );
  const reached = (state: string) =>
    until(
      () => states.map((one) => one.state),
      (seen) => seen.includes(state),
      `channelStatus ${state} on the second instance`,
      90_000,
    );
  await reached('OFFLINE');

  const encoder = pushTestPattern(stream.body.ingestUrl, stream.body.streamKey);
  await reached('LIVE');
  expect(shows(states)).toEqual(['OFFLINE', 'STARTING', 'LIVE']);
  const live = states.find((one) => one.state === 'LIVE') as (typeof states)[number];
  // An open channel: the push itself carries the URL; the content check of the second instance gives the same.
  expect(live.live).toBe(true);
  const check = await rest(second, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { ...viewerHeaders, 'x-service-device-id': 'real-show-device' } });
  expect(check.body.canIPlayResponse.contentCheck).toMatchObject({ live: true, video: { video: { type: 'live', url: live.playbackUrl } } });
  const segments = async () =>
    (await (await fetch(live.playbackUrl as string)).text()).split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const segment = (await segments())[0];
  expect(segment).toBeDefined();
  const media = await fetch(new URL(segment, live.playbackUrl as string));
  expect(media.status).toBe(200);
  expect((await media.arrayBuffer()).byteLength).toBeGreaterThan(0);

  // Recorded: an overlay broadcast during the recording is on its timeline.
  expect((await rest(first, 'POST', `/stream/v1/${stream.body._id}/start`, { headers: site.admin })).status).toBe(200);
  const overlay = await rest(first, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Goal', type: 'instance', contents: { text: 'Goal!' }, duration: 5 },
  });
  const sent = await rest(first, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, { headers: site.admin, body: { channelId } });
  expect(sent.status).toBe(200);
  expect(sent.body.streamSecond).toEqual(expect.any(Number));
  // Something is recorded: a segment the live manifest did not list when the recording started.
  const listedAtStart = new Set(await segments());
  await until(segments, (now) => now.some((name) => !listedAtStart.has(name)), 'a segment recorded after startStream', 60_000);
  expect((await rest(first, 'POST', `/stream/v1/${stream.body._id}/stop`, { headers: site.admin })).status).toBe(200);

  // The encoder vanishes: reconnecting, then ended once the provider's manifest is dead.
  await stopChild(encoder, 'SIGKILL');
  await reached('ENDED');
  expect(shows(states)).toEqual(['OFFLINE', 'STARTING', 'LIVE', 'RECONNECTING', 'ENDED']);
  expect(states.at(-1)).toMatchObject({ state: 'ENDED', live: false, playbackUrl: null });

  // After the show the check offers the recording the provider delivered, and its timeline has the overlay.
  const recordingId = (await until(
    () => readRecordingId(channelId),
    (id) => id !== null,
    'the recording among the channel videos',
    90_000,
  )) as string;
  const after = await until(
    () => rest(second, 'GET', `/pages/v2/content/id/${channelId}`, { headers: { ...viewerHeaders, 'x-service-device-id': 'real-show-device' } }),
    (reply) => reply.body.canIPlayResponse?.contentCheck?.video?.video?.type === 'vod',
    'the recording offered by the content check',
  );
  expect(after.body.canIPlayResponse.contentCheck).toMatchObject({
    live: false,
    video: { video: { _id: recordingId, type: 'vod', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/vod\//) } },
  });
  const recording = await fetch(after.body.canIPlayResponse.contentCheck.video.video.url);
  expect(recording.status).toBe(200);
  expect(await recording.text()).toContain('#EXT-X-ENDLIST');
  const timeline = await rest(second, 'GET', `/overlay/v1/timeline?videoId=${recordingId}`, { headers: viewerHeaders });
  expect(timeline.status).toBe(200);
  expect(timeline.body).toEqual([expect.objectContaining({ second: sent.body.streamSecond, overlay: expect.objectContaining({ name: 'Goal' }) })]);
}, 240_000);

/** The show's states in the order they came, each once: a recording starting is a change within LIVE. */
const shows = (events: { state: string }[]) => events.map((one) => one.state).filter((state, index, all) => index === 0 || all[index - 1] !== state);

/** The channel's newest video, as `GET /video/v3/?channelId=` lists them. */
async function readRecordingId(channelId: string): Promise<string | null> {
  const videos = await rest(second, 'GET', `/video/v3/?channelId=${channelId}`, { headers: { 'x-service-client-id': site.siteId } });
  return videos.body.results?.[0]?._id ?? null;
}
