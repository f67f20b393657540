/**
 * The reference provider on real parts: its own processes (register, then serve, which runs nginx with
 * the RTMP module), a stagegraph stack that reaches it only through OUTBOUND_ALLOW_HOSTS, and ffmpeg
 * pushing a test pattern over RTMP. The service sees connected then active, the playback URL serves HLS
 * fragments, a recording started and stopped through the service comes back as a Video whose URL ffprobe
 * plays, the encoder leaving gives disconnected then idle, deleteStream refuses the key (and drops a
 * publishing encoder), deleteVod removes the files, and a restarted provider keeps its streams. A second
 * provider registered with a fake service (a real server that records every call) shows the retries of
 * refused webhooks (exponential backoff, the same event again, nothing of the stream overtaking it) and
 * an encoder reconnecting mid-recording (no idle between, one VOD with a discontinuity).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from 'graphql-ws';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { startFakeStreamService, providerWithStream, type FakeStreamService } from '../helpers/fakeStreamService';
import { graphql, rest } from '../helpers/http';
import { connectClient } from '../helpers/viewer';
import { eventually, until } from '../helpers/wait';
import {
  exitOf,
  pushTestPattern,
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopChild,
  stopReferenceProviders,
  type ReferenceProviderPorts,
  type RunningReferenceProvider,
} from '../helpers/referenceProvider';
import type { Stack } from '../../stack';

const ffprobe = promisify(execFile);

let stack: Stack;
let site: TestSite;
let ports: ReferenceProviderPorts;
let provider: RunningReferenceProvider;
let contractId: string;
let channelId: string;
let admin: Client;

beforeAll(async () => {
  ports = await referenceProviderPorts();
  stack = await startTestStack({
    env: {
      OUTBOUND_ALLOW_PRIVATE: 'false',
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${ports.httpPort}`,
      STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/fallback.png',
    },
  });
  site = await createTestSite(stack, 'Show site');
  channelId = await createChannel(stack, site.siteId);
  admin = connectClient(stack, { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey });
}, 60_000);
afterAll(async () => {
  await admin?.dispose();
  await stopReferenceProviders();
  await stopAll();
}, 60_000);

const register = () => registerReferenceProvider(ports, { service: stack.url, siteId: site.siteId, developerKey: site.developerKey });
const providerCall = (operation: string, body: unknown, token?: string) =>
  fetch(`${provider.url}/v1/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
const token = () => JSON.parse(readFileSync(join(ports.stateDir, 'registration.json'), 'utf8')).authorization as string;
const streamOf = async (id: string) => (await rest(stack, 'GET', `/stream/v1/${id}`, { headers: site.admin })).body;

/** Webhook changes the admin subscription sees for a stream, in arrival order; resolves once it listens. */
async function watchChanges(streamId: string): Promise<string[]> {
  const changes: string[] = [];
  const before = stack.gateway.live.stats().subscriptions;
  admin.subscribe(
    { query: /* GraphQL */ `subscription W($id: ID) { streamStateChanged(streamId: $id) { change } }`, variables: { id: streamId } },
    {
      next: (result) => changes.push((result.data as { streamStateChanged: { change: string } }).streamStateChanged.change),
      error: () => undefined,
      complete: () => undefined,
    },
  );
  await eventually(() => stack.gateway.live.stats().subscriptions > before, 'the admin subscription listens');
  return changes;
}
const webhookTypes = (changes: string[]) => changes.filter((change) => ['connected', 'active', 'disconnected', 'idle'].includes(change));

/** The fragment names a live manifest lists now. */
async function fragmentsOf(playbackUrl: string): Promise<string[]> {
  const response = await fetch(playbackUrl);
  if (!response.ok) return [];
  return (await response.text()).split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

describe('registration', () => {
  it('registers once with the site, prints one JSON line, keeps the token 0600; a second register is refused', async () => {
    const first = await register();
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    contractId = JSON.parse(lines[0]).contractId;
    const contract = await stack.database.prisma.streamProviderContract.findUniqueOrThrow({ where: { id: contractId } });
    expect(contract).toMatchObject({ siteId: site.siteId, useAccount: false });
    expect(contract.urls).toEqual({
      createStream: `http://127.0.0.1:${ports.httpPort}/v1/createStream`,
      startStream: `http://127.0.0.1:${ports.httpPort}/v1/startStream`,
      stopStream: `http://127.0.0.1:${ports.httpPort}/v1/stopStream`,
      deleteStream: `http://127.0.0.1:${ports.httpPort}/v1/deleteStream`,
      deleteVod: `http://127.0.0.1:${ports.httpPort}/v1/deleteVod`,
      activateStream: `http://127.0.0.1:${ports.httpPort}/v1/activateStream`,
      createClip: `http://127.0.0.1:${ports.httpPort}/v1/createClip`,
      setSimulcastTargets: `http://127.0.0.1:${ports.httpPort}/v1/setSimulcastTargets`,
    });
    expect(statSync(join(ports.stateDir, 'registration.json')).mode & 0o777).toBe(0o600);
    expect(first.stdout + first.stderr).not.toContain(token());

    const second = await register();
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('already registered');
    expect(await stack.database.prisma.streamProviderContract.count({ where: { siteId: site.siteId } })).toBe(1);
    provider = await serveReferenceProvider(ports);
  }, 60_000);

  it('answers the service only with its token, 400 naming the field for bad input, 404 for an unknown id', async () => {
    expect((await providerCall('createStream', { title: 't', fallbackImageUrl: 'https://i.example.test/f.png' })).status).toBe(401);
    expect(
      (await providerCall('createStream', { title: 't', fallbackImageUrl: 'https://i.example.test/f.png' }, '00000000-0000-4000-8000-000000000000')).status,
    ).toBe(401);
    const bad = await providerCall('createStream', { title: 't', fallbackImageUrl: 'ftp://x' }, token());
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ success: false, message: expect.stringContaining('fallbackImageUrl') });
    const noId = await providerCall('startStream', { liveBroadcastId: 'b' }, token());
    expect(noId.status).toBe(400);
    expect(((await noId.json()) as { message: string }).message).toContain('id');
    for (const operation of ['startStream', 'stopStream', 'deleteStream', 'activateStream', 'deleteVod']) {
      expect((await providerCall(operation, { id: 'no-such-id', liveBroadcastId: 'b' }, token())).status).toBe(404);
    }
    // createClip (ours, docs/show.md "Clips"): an unknown source is 404, a range out of bounds 400 naming the field.
    for (const source of [{ id: 'no-such-id' }, { sourceVodId: 'no-such-id' }])
      expect((await providerCall('createClip', { ...source, startSecond: 0, durationSeconds: 1 }, token())).status).toBe(404);
    const long = await providerCall('createClip', { id: 'no-such-id', startSecond: 0, durationSeconds: 301 }, token());
    expect([long.status, ((await long.json()) as { message: string }).message]).toEqual([400, expect.stringContaining('durationSeconds')]);
    expect(
      (
        await fetch(`${provider.url}/v1/createStream`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
          body: '{',
        })
      ).status,
    ).toBe(400);
  });
});

describe('a show through the reference provider', () => {
  let stream: { _id: string; ingestUrl: string; streamKey: string; playbackUrl: string; providerStreamId: string };
  let changes: string[];
  let encoder: ChildProcess;
  let vodUrl: string;
  let vodId: string;

  it('creates a stream for the channel: an rtmp ingest URL, a key and the HLS playback URL', async () => {
    const created = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channelId, contractId } });
    expect(created.status).toBe(201);
    stream = created.body;
    expect(stream).toMatchObject({
      ingestUrl: `rtmp://127.0.0.1:${ports.rtmpPort}/live`,
      streamKey: expect.stringMatching(/^[0-9a-f]{32}$/),
      playbackUrl: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:${ports.playbackPort}/hls/[0-9a-f]{24}\\.m3u8$`)),
      providerStreamId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    });
    // The playback URL is public: it must not carry the key that lets one publish.
    expect(stream.playbackUrl).not.toContain(stream.streamKey);
    changes = await watchChanges(stream._id);
  });

  it('refuses an encoder with an unknown key, or with the public playback name', async () => {
    expect(await exitOf(pushTestPattern(stream.ingestUrl, 'not-a-stream-key'))).not.toBe(0);
    const playbackName = stream.playbackUrl.split('/').at(-1)!.replace('.m3u8', '');
    expect(await exitOf(pushTestPattern(stream.ingestUrl, playbackName))).not.toBe(0);
  });

  it('goes connected then active when ffmpeg publishes, and the playback URL serves fragments', async () => {
    encoder = pushTestPattern(stream.ingestUrl, stream.streamKey);
    await until(
      () => streamOf(stream._id),
      (got) => got.state.ingestConnected && got.state.playbackLive,
      'the service sees the stream connected and active',
    );
    await eventually(() => webhookTypes(changes).length === 2, 'two webhooks pushed');
    expect(webhookTypes(changes)).toEqual(['connected', 'active']);
    const manifest = await fetch(stream.playbackUrl);
    expect(manifest.headers.get('content-type')).toMatch(/^application\/vnd\.apple\.mpegurl/);
    expect(await manifest.text()).not.toContain(stream.streamKey);
    expect(manifest.headers.get('access-control-allow-origin')).toBe('*');
    // Served by nginx: the live manifest is asked again by players, never cached.
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    const fragments = await fragmentsOf(stream.playbackUrl);
    expect(fragments.length).toBeGreaterThan(0);
    const fragment = await fetch(new URL(fragments[0], stream.playbackUrl));
    expect(fragment.status).toBe(200);
    expect(fragment.headers.get('content-type')).toBe('video/mp2t');
    const bytes = Buffer.from(await fragment.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(1000);
    expect(bytes[0]).toBe(0x47); // MPEG-TS sync byte
    // A second encoder on the same key is refused; the first goes on (the webhooks checked below show no trace of it).
    expect(await exitOf(pushTestPattern(stream.ingestUrl, stream.streamKey))).not.toBe(0);
    expect(encoder.exitCode).toBeNull();
  }, 60_000);

  it('records between start and stop and delivers the recording, which the service keeps as a playable Video', async () => {
    const started = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    expect(started.status).toBe(200);
    const atStart = new Set(await fragmentsOf(stream.playbackUrl));
    // Three fragments that did not exist at the start: about three seconds recorded.
    await until(
      () => fragmentsOf(stream.playbackUrl),
      (names) => names.filter((name) => !atStart.has(name)).length >= 3,
      'three new live fragments',
    );
    expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/stop`, { headers: site.admin })).status).toBe(200);
    const broadcast = (
      await until(
        () => streamOf(stream._id),
        (got) => Boolean(got.broadcasts?.[0]?.videoId),
        'the VOD delivered',
      )
    ).broadcasts[0];
    expect(broadcast).toMatchObject({ liveBroadcastId: started.body.liveBroadcastId, vodId: expect.any(String), vodDeleted: false });
    vodId = broadcast.vodId;
    const video = await graphql(
      stack,
      /* GraphQL */ `query V($id: ID!) { video(id: $id) { pageId type url durationSeconds } }`,
      { id: broadcast.videoId },
      site.admin,
    );
    expect(video.body.data.video).toMatchObject({ pageId: channelId, type: 'vod', url: `http://127.0.0.1:${ports.playbackPort}/vod/${vodId}/index.m3u8` });
    vodUrl = video.body.data.video.url;
    expect(video.body.data.video.durationSeconds).toBeGreaterThanOrEqual(2);
    const playlist = await (await fetch(vodUrl)).text();
    expect(playlist).toContain('#EXT-X-ENDLIST');
    const { stdout } = await ffprobe('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', vodUrl]);
    const probed = JSON.parse(stdout);
    expect(Number(probed.format.duration)).toBeGreaterThanOrEqual(2);
    expect(probed.streams.map((entry: { codec_name: string }) => entry.codec_name).sort()).toEqual(['aac', 'h264']);
  }, 60_000);

  it('goes disconnected then idle, in that order, when the encoder vanishes', async () => {
    await stopChild(encoder, 'SIGKILL');
    await until(
      () => streamOf(stream._id),
      (got) => !got.state.ingestConnected && !got.state.playbackLive,
      'the service sees the stream disconnected and idle',
    );
    await eventually(() => webhookTypes(changes).length === 4, 'four webhooks pushed');
    expect(webhookTypes(changes)).toEqual(['connected', 'active', 'disconnected', 'idle']);
  }, 60_000);

  it('deleteStream refuses the key and drops a publishing encoder; activateStream lets it in again', async () => {
    expect((await rest(stack, 'POST', `/streamprovider/v1/test/delete-stream/${stream._id}`, { headers: site.admin })).status).toBe(200);
    expect(await exitOf(pushTestPattern(stream.ingestUrl, stream.streamKey))).not.toBe(0);
    expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin })).status).toBe(200);
    encoder = pushTestPattern(stream.ingestUrl, stream.streamKey);
    await until(
      () => streamOf(stream._id),
      (got) => got.state.ingestConnected,
      'connected again after activateStream',
    );
    expect((await rest(stack, 'POST', `/streamprovider/v1/test/delete-stream/${stream._id}`, { headers: site.admin })).status).toBe(200);
    // nginx asks the provider every second while an encoder publishes; the answer now drops it.
    expect(await exitOf(encoder)).not.toBe(0);
    await until(
      () => streamOf(stream._id),
      (got) => !got.state.ingestConnected,
      'disconnected after deleteStream',
    );
  }, 60_000);

  it('deleteVod removes the recording: its URL answers 404 and its folder is gone', async () => {
    expect((await fetch(vodUrl)).status).toBe(200);
    expect((await rest(stack, 'POST', `/streamprovider/v1/test/delete-vod/${vodId}`, { headers: site.admin })).status).toBe(200);
    expect((await fetch(vodUrl)).status).toBe(404);
    expect(existsSync(join(ports.stateDir, 'vod', vodId))).toBe(false);
  });

  it('keeps its streams across a restart', async () => {
    await stopChild(provider.process);
    provider = await serveReferenceProvider(ports);
    expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin })).status).toBe(200);
    encoder = pushTestPattern(stream.ingestUrl, stream.streamKey);
    await until(
      () => streamOf(stream._id),
      (got) => got.state.ingestConnected && got.state.playbackLive,
      'live again after the restart',
    );
    await stopChild(encoder, 'SIGKILL');
  }, 60_000);
});

describe('against a fake service (a real server that records every call)', () => {
  let service: FakeStreamService;
  beforeAll(async () => {
    service = await startFakeStreamService();
  });
  afterAll(() => service.close());

  it("retries with exponential backoff, in order: a stream's later webhooks wait for the refused one", async () => {
    const { created, of } = await providerWithStream(service, { PROVIDER_RETRY_BASE_MS: '200' });
    service.refuse(2); // the service is briefly unavailable
    const pushing = pushTestPattern(created.ingestUrl, created.streamKey);
    await eventually(() => of().some((entry) => entry.body.type === 'active'), 'active delivered');
    await stopChild(pushing, 'SIGKILL');
    await eventually(() => of().some((entry) => entry.body.type === 'idle'), 'idle delivered', 60_000);

    const hooks = of();
    expect(hooks.map((entry) => `${entry.body.type} ${entry.status}`)).toEqual([
      'connected 503',
      'connected 503',
      'connected 200',
      'active 200',
      'disconnected 200',
      'idle 200',
    ]);
    expect(hooks.every((entry) => entry.path === '/stream/v1/webhook' && entry.authorization === `Bearer ${service.authorization}`)).toBe(true);
    // The same event each time (its time is when the encoder connected), sent after 200 ms, then 400 ms.
    expect(new Set(hooks.slice(0, 3).map((entry) => entry.body.time)).size).toBe(1);
    expect(hooks[1].at - hooks[0].at).toBeGreaterThanOrEqual(199); // a timer may fire a millisecond early
    expect(hooks[2].at - hooks[1].at).toBeGreaterThanOrEqual(399);
    expect(hooks.map((entry) => entry.body.time)).toEqual([...hooks.map((entry) => entry.body.time)].sort((a, b) => a! - b!));
  }, 90_000);

  it('an encoder that reconnects mid-recording: connected and active again without idle, one VOD with a discontinuity', async () => {
    // idle only long after the encoder left, so the reconnect below always comes first.
    const { call, created, of, types } = await providerWithStream(service, { PROVIDER_IDLE_AFTER_MS: '60000' });
    const liveFragments = async () => fragmentsOf(`${created.playbackUrl}`);
    let encoder = pushTestPattern(created.ingestUrl, created.streamKey);
    await eventually(() => types().includes('active'), 'active delivered');
    await call('startStream', { id: created.providerStreamId, liveBroadcastId: 'broadcast-1' });
    const atStart = new Set(await liveFragments());
    await until(liveFragments, (names) => names.filter((name) => !atStart.has(name)).length >= 2, 'two recorded fragments');
    await stopChild(encoder, 'SIGKILL');
    await eventually(() => types().includes('disconnected'), 'disconnected delivered');
    encoder = pushTestPattern(created.ingestUrl, created.streamKey);
    await eventually(() => types().filter((type) => type === 'active').length === 2, 'active again');
    const beforeStop = new Set(await liveFragments());
    await until(liveFragments, (names) => names.filter((name) => !beforeStop.has(name)).length >= 2, 'two more fragments');
    await call('stopStream', { id: created.providerStreamId });
    const vod = await until(() => of().find((entry) => entry.path === '/video/v3/vod'), Boolean, 'the VOD delivered');
    await stopChild(encoder, 'SIGKILL');

    expect(types().slice(0, 5)).toEqual(['connected', 'active', 'disconnected', 'connected', 'active']);
    expect(vod!.body).toMatchObject({ liveBroadcastId: 'broadcast-1', streamId: created.providerStreamId, vodId: expect.any(String) });
    const playlist = await (await fetch(vod!.body.url!)).text();
    expect(playlist.match(/#EXT-X-DISCONTINUITY/g)).toHaveLength(1);
    expect(playlist.trim().endsWith('#EXT-X-ENDLIST')).toBe(true);
    const { stdout } = await ffprobe('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', vod!.body.url!]);
    expect(Number(stdout.trim())).toBeCloseTo(vod!.body.durationSeconds!, 0);
  }, 90_000);
});
