/**
 * Simulcast on real parts (docs/show.md, "Simulcast"): the reference provider relays a live test pattern to a
 * second nginx standing in for another platform, which records what it receives — ffprobe finds the source's
 * codecs (copied, not re-encoded). A second target on a port nothing listens on goes failed with a reason and is
 * retried with doubling waits, while the first stays live and the show stays LIVE; admins read and are pushed the
 * targets' states, never a key. Bad input is 400 naming the target's field with nothing stored, and a contract
 * without setSimulcastTargets is 409 naming it.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { freePort } from '../../scripts/services';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import { connectClient } from '../helpers/viewer';
import { eventually, until } from '../helpers/wait';
import {
  pushTestPattern,
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopChild,
  stopReferenceProviders,
  type ReferenceProviderPorts,
  type RunningReferenceProvider,
} from '../helpers/referenceProvider';
import { startRtmpTarget, type RtmpTarget } from '../helpers/rtmpTarget';

const run = promisify(execFile);

let stack: Stack;
let site: TestSite;
let ports: ReferenceProviderPorts;
let provider: RunningReferenceProvider;
let target: RtmpTarget;
let deadPort: number;
let contractId: string;
let channelId: string;
let admin: Client;
/** Every answer and push an admin got: no key may be in any of them. */
const seen: string[] = [];

const KEY_A = 'platform-a-secret-key-0123456789';
const KEY_B = 'platform-b-secret-key-9876543210';

beforeAll(async () => {
  [ports, target, deadPort] = await Promise.all([referenceProviderPorts({ PROVIDER_SIMULCAST_RETRY_BASE_MS: '300' }), startRtmpTarget(), freePort()]);
  stack = await startTestStack({
    env: {
      OUTBOUND_ALLOW_PRIVATE: 'false',
      OUTBOUND_ALLOW_HOSTS: [ports.httpPort, target.port, deadPort].map((port) => `127.0.0.1:${port}`).join(','),
      STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/fallback.png',
    },
  });
  site = await createTestSite(stack, 'Simulcast site');
  channelId = await createChannel(stack, site.siteId);
  admin = connectClient(stack, site.admin);
  const registered = await registerReferenceProvider(ports, { service: stack.url, siteId: site.siteId, developerKey: site.developerKey });
  contractId = JSON.parse(registered.stdout).contractId;
  provider = await serveReferenceProvider(ports);
}, 60_000);
afterAll(async () => {
  await admin?.dispose();
  await stopReferenceProviders();
  await target?.stop();
  await stopAll();
}, 60_000);

const call = async (method: string, path: string, body?: unknown) => {
  const reply = await rest(stack, method, path, { headers: site.admin, body });
  seen.push(JSON.stringify(reply.body));
  return reply;
};
const streamOf = async (id: string) => (await call('GET', `/stream/v1/${id}`)).body;

describe('simulcast', () => {
  let stream: { _id: string; ingestUrl: string; streamKey: string };
  let encoder: ChildProcess;
  const pushed: { name: string; state: string }[][] = [];

  it('refuses bad targets with 400 naming the field, storing nothing; a provider that does not simulcast is 409', async () => {
    const good = { name: 'Platform A', url: target.url, streamKey: KEY_A };
    const cases: [unknown[], string][] = [
      [[good, { name: 'B', url: `http://127.0.0.1:${target.port}/live`, streamKey: 'k' }], 'simulcastTargets[1].url must be rtmp:// or rtmps://'],
      [[{ name: 'Private', url: 'rtmp://10.1.2.3/live', streamKey: 'k' }], 'simulcastTargets[0].url must be a public address'],
      [[{ name: 'Loopback', url: `rtmp://127.1:${target.port}/live`, streamKey: 'k' }], 'simulcastTargets[0].url must be a public address'],
      [[good, { ...good, streamKey: 'other' }], 'simulcastTargets[1].name "Platform A" names another target'],
      [Array.from({ length: 6 }, (_, index) => ({ ...good, name: `T${index}` })), 'simulcastTargets must hold at most 5 targets'],
      [[{ name: 'No key', url: target.url }], 'simulcastTargets[0].streamKey is required'],
      [[{ ...good, name: 'x'.repeat(61) }], 'simulcastTargets[0].name must be 1 to 60 characters'],
    ];
    for (const [simulcastTargets, message] of cases) {
      const refused = await call('POST', '/stream/v1/', { pageId: channelId, contractId, simulcastTargets });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ success: false, message: expect.stringContaining(message) });
    }
    expect(await stack.database.prisma.stream.count({ where: { siteId: site.siteId } })).toBe(0);
    expect(await stack.database.prisma.simulcastTarget.count({ where: { siteId: site.siteId } })).toBe(0);

    // A provider registered without the operation: the stream is refused before anything is created.
    const base = `http://127.0.0.1:${ports.httpPort}/v1`;
    const urls = Object.fromEntries(['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream'].map((name) => [name, `${base}/${name}`]));
    const plain = await call('POST', '/streamprovider/v1/register', { name: 'No simulcast', urls, useAccount: false });
    expect(plain.status).toBe(201);
    const conflict = await call('POST', '/stream/v1/', { pageId: channelId, contractId: plain.body.id, simulcastTargets: [good] });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toContain('"No simulcast" does not simulcast');
    expect(await stack.database.prisma.stream.count({ where: { siteId: site.siteId } })).toBe(0);
  }, 60_000);

  it('creates a stream with a target and adds a second by PUT; the named target keeps its key, none is returned', async () => {
    const created = await call('POST', '/stream/v1/', {
      pageId: channelId,
      contractId,
      simulcastTargets: [{ name: 'Platform A', url: target.url, streamKey: KEY_A }],
    });
    expect(created.status).toBe(201);
    stream = created.body;
    expect(created.body.simulcastTargets).toEqual([{ name: 'Platform A', url: target.url, state: 'idle', reason: null, stateChanged: null }]);

    const tooMany = await call('PUT', `/stream/v1/${stream._id}`, {
      simulcastTargets: Array.from({ length: 6 }, (_, index) => ({ name: `T${index}`, url: target.url, streamKey: 'k' })),
    });
    expect(tooMany.status).toBe(400);
    expect((await streamOf(stream._id)).simulcastTargets.map((entry: { name: string }) => entry.name)).toEqual(['Platform A']);

    const updated = await call('PUT', `/stream/v1/${stream._id}`, {
      simulcastTargets: [
        { name: 'Platform A', url: target.url },
        { name: 'Platform B', url: `rtmp://127.0.0.1:${deadPort}/live`, streamKey: KEY_B },
      ],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.simulcastTargets.map((entry: { name: string; state: string }) => [entry.name, entry.state])).toEqual([
      ['Platform A', 'idle'],
      ['Platform B', 'idle'],
    ]);
    admin.subscribe(
      {
        query: /* GraphQL */ `subscription S($id: ID) { streamStateChanged(streamId: $id) { change simulcastTargets { name url state reason } } }`,
        variables: { id: stream._id },
      },
      {
        next: (result) => {
          seen.push(JSON.stringify(result));
          const event = (result.data as { streamStateChanged: { simulcastTargets: { name: string; state: string }[] | null } }).streamStateChanged;
          if (event.simulcastTargets) pushed.push(event.simulcastTargets);
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
  });

  it('relays the live show to the working target without re-encoding; the failing one goes failed, the show stays LIVE', async () => {
    encoder = pushTestPattern(stream.ingestUrl, stream.streamKey);
    const live = await until(
      () => streamOf(stream._id),
      (got) => got.simulcastTargets[0].state === 'live' && got.simulcastTargets[1].state === 'failed' && got.liveCheck.show === 'LIVE',
      'Platform A live, Platform B failed, the show LIVE',
    );
    expect(live.simulcastTargets[1].reason).toEqual(expect.any(String));
    expect(live.simulcastTargets[1].reason.length).toBeGreaterThan(0);
    // What the platform received: frames of the source's codecs, copied.
    const probed = await until(
      async () => {
        const { stdout } = await run('ffprobe', [
          '-v',
          'error',
          '-count_packets',
          '-show_entries',
          'stream=codec_name,width,nb_read_packets',
          '-of',
          'json',
          target.recordingOf(KEY_A),
        ]);
        return JSON.parse(stdout).streams as { codec_name: string; width?: number; nb_read_packets: string }[];
      },
      (streams) => streams.length === 2 && streams.every((entry) => Number(entry.nb_read_packets) >= 25),
      'the platform recorded a second of both streams',
    );
    expect(probed.map((entry) => entry.codec_name).sort()).toEqual(['aac', 'h264']);
    expect(probed.find((entry) => entry.codec_name === 'h264')?.width).toBe(320);
    // The failing target is retried with doubling waits, and stays failed, while A and the show go on.
    const retries = () =>
      provider
        .output()
        .split('\n')
        .filter((line) => line.includes('"target":"Platform B"'))
        .map((line) => (JSON.parse(line) as { retryInMs: number }).retryInMs);
    await until(retries, (waits) => waits.length >= 3, 'Platform B tried three times');
    expect(retries().slice(0, 3)).toEqual([300, 600, 1200]);
    const later = await streamOf(stream._id);
    expect(later.simulcastTargets.map((entry: { state: string }) => entry.state)).toEqual(['live', 'failed']);
    expect(later.state).toMatchObject({ ingestConnected: true, playbackLive: true });
    await eventually(
      () => pushed.some((targets) => targets[0].state === 'live') && pushed.some((targets) => targets[1]?.state === 'failed'),
      'the admin is pushed both states',
    );
  }, 60_000);

  it('goes idle when the encoder leaves; no key ever appears in an answer, a push or the provider log', async () => {
    await stopChild(encoder, 'SIGKILL');
    await until(
      () => streamOf(stream._id),
      (got) => got.simulcastTargets.every((entry: { state: string }) => entry.state === 'idle'),
      'both targets idle',
    );
    const listed = await call('GET', `/stream/v1/?pageId=${channelId}`);
    expect(listed.body.results[0].simulcastTargets).toHaveLength(2);
    for (const text of [...seen, provider.output()]) {
      expect(text).not.toContain(KEY_A);
      expect(text).not.toContain(KEY_B);
    }
    const rows = await stack.database.prisma.simulcastTarget.findMany({ where: { streamId: stream._id } });
    expect(rows.map((row) => row.streamKeyEncrypted).join()).not.toContain(KEY_A);
  }, 60_000);
});
