/**
 * The show across two instances of one deployment (one database; Redis when REDIS_URL is set, else one
 * shared in-process bus): a webhook accepted by one instance reaches channelStatus viewers of the other
 * (graphql-ws and multipart HTTP), the other's content check sees the change at once, and the show's
 * metrics record it.
 */
import type { Client } from 'graphql-ws';
import { createMemoryBus } from '../../shared/bus/memory';
import type { Stack } from '../../stack';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import { closeHttpViewers, openHttpViewer } from '../helpers/httpViewer';
import { scrape, total } from '../helpers/metrics';
import { registerShowProvider, showChannel, STATUS_SUBSCRIPTION } from '../helpers/show';
import { createTestSite, startTestStack, stopAllWithClients } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';
import { connectedClient } from '../helpers/viewer';
import { until } from '../helpers/wait';

const env = { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png' };
const clients: Client[] = [];
let provider: FakeStreamProvider;
let first: Stack;
let second: Stack;

beforeAll(async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  first = await startTestStack({ bus, env });
  second = await startTestStack({ sameDeploymentAs: first, bus, env });
  provider = await startFakeStreamProvider();
});
afterAll(async () => {
  closeHttpViewers();
  await provider.close();
  await stopAllWithClients(clients);
});

it(`pushes a webhook taken by one instance to the other's viewers on every transport (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
  const site = await createTestSite(first);
  const contract = await registerShowProvider(first, site, provider);
  const show = await showChannel(first, site, contract);
  const headers = { 'x-service-client-id': site.siteId };

  const client = await connectedClient(second, headers, clients);
  const events: any[] = [];
  client.subscribe(
    { query: STATUS_SUBSCRIPTION, variables: { channelId: show.channelId } },
    {
      next: (result) => void events.push(result.data?.channelStatus ?? result.errors),
      error: (error) => void events.push(error),
      complete: () => undefined,
    },
  );
  const multipart = await openHttpViewer(second, 'multipart', { query: STATUS_SUBSCRIPTION, variables: { channelId: show.channelId }, headers });
  await until(
    () => events.length,
    (count) => count === 1,
    'the first event over graphql-ws',
  );
  expect(events[0]).toMatchObject({ state: 'OFFLINE', live: false });
  await multipart.until((viewer) => viewer.results.length === 1);
  // The content check on the second instance is read (and kept) before the show starts.
  const check = () => rest(second, 'GET', `/pages/v2/content/id/${show.channelId}`, { headers: { ...headers, 'x-service-device-id': 'd1' } });
  expect((await check()).body.canIPlayResponse.contentCheck.live).toBe(false);

  const before = total(await scrape(second), 'stagegraph_show_webhook_to_viewer_seconds_count');
  await show.hook('connected', 1);
  await until(
    () => events.at(-1)?.state,
    (state) => state === 'STARTING',
    'STARTING on the other instance',
  );
  await show.hook('active', 2);
  await until(
    () => events.at(-1)?.state,
    (state) => state === 'LIVE',
    'LIVE on the other instance',
  );
  expect(events.at(-1)).toMatchObject({ live: true, playbackUrl: show.stream.playbackUrl, startedAt: 2 });
  await multipart.until((viewer) => viewer.results.at(-1)?.data?.channelStatus?.state === 'LIVE');
  expect((await check()).body.canIPlayResponse.contentCheck).toMatchObject({ live: true, video: { video: { type: 'live', url: show.stream.playbackUrl } } });

  const samples = await scrape(second);
  expect(total(samples, 'stagegraph_show_webhook_to_viewer_seconds_count')).toBeGreaterThan(before);
  expect(total(samples, 'stagegraph_channels_live')).toBeGreaterThanOrEqual(1);

  // A provider retrying one webhook at both instances at once moves the show once: one change, one event.
  const bearer = { Authorization: `Bearer ${contract.authorization}` };
  const body = { type: 'disconnected', id: show.stream.providerStreamId, time: 3 };
  const replies = await Promise.all(
    [first, second, first, second, first, second].map((stack) => rest(stack, 'POST', '/stream/v1/webhook', { headers: bearer, body })),
  );
  expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(replies.filter((reply) => reply.body.changed)).toHaveLength(1);
  await until(
    () => events.at(-1)?.state,
    (state) => state === 'RECONNECTING',
    'RECONNECTING on the other instance',
  );
  await show.hook('idle', 4);
  await until(
    () => events.at(-1)?.state,
    (state) => state === 'ENDED',
    'ENDED on the other instance',
  );
  expect(events.map((event) => event.state)).toEqual(['OFFLINE', 'STARTING', 'LIVE', 'RECONNECTING', 'ENDED']);
});
