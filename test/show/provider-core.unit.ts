/**
 * The reference provider's cores in process, fast: its configuration, the live manifest parser, the token
 * check nginx asks before each playback file (what it answers for each shape of path), and its calls to the service against a real local server — strict order per stream, streams independent of
 * each other, and undelivered calls kept in the state folder across a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../shared/logger';
import { parseFragments } from '../../provider/broadcasts';
import { loadProviderConfig } from '../../provider/config';
import { ServiceDeliveries } from '../../provider/deliveries';
import { playbackVerdict } from '../../provider/playbackCheck';
import { ProviderState, type ProviderStream, type Registration } from '../../provider/state';
import { newPlaybackKey, signPlaybackUrl } from '../../shared/playbackSigning';
import { eventually } from '../helpers/wait';

describe('configuration', () => {
  it('has the documented defaults and refuses bad values, naming the variable', () => {
    expect(loadProviderConfig({})).toMatchObject({
      port: 4200,
      playbackPort: 4201,
      rtmpPort: 1935,
      publicHost: '127.0.0.1',
      hlsFragmentSeconds: 1,
      stateDir: expect.stringMatching(/data\/provider$/),
    });
    expect(() => loadProviderConfig({ RTMP_PORT: '0' })).toThrow(/RTMP_PORT/);
    expect(() => loadProviderConfig({ PROVIDER_PORT: 'x' })).toThrow(/PROVIDER_PORT/);
    // nginx cannot be handed port 0: the playback URLs must carry the port it serves on.
    expect(() => loadProviderConfig({ PROVIDER_PLAYBACK_PORT: '0' })).toThrow(/PROVIDER_PLAYBACK_PORT/);
    expect(() => loadProviderConfig({ PROVIDER_PLAYBACK_PORT: '70000' })).toThrow(/PROVIDER_PLAYBACK_PORT/);
    expect(() => loadProviderConfig({ PROVIDER_PUBLIC_HOST: 'a/b' })).toThrow(/PROVIDER_PUBLIC_HOST/);
    expect(loadProviderConfig({ PROVIDER_PUBLIC_HOST: '[::1]' }).publicHost).toBe('[::1]');
  });
});

it('tells nginx which file a playback path plays, or why not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'provider-check-'));
  try {
    const state = await ProviderState.open(dir);
    const stream = (id: string, playbackName: string, signedOnly: boolean) => ({ id, streamKey: `key-of-${id}`, playbackName, signedOnly }) as ProviderStream;
    state.data.streams = { paid: stream('paid', 'a'.repeat(24), true), open: stream('open', 'b'.repeat(24), false) };
    state.data.vods = { v1: { id: 'v1', streamId: 'paid', liveBroadcastId: 'l', durationSeconds: 1, createdAt: 0 } };
    const playbackKey = newPlaybackKey();
    const deps = { state, registration: () => ({ playbackKey }) as Registration };
    const now = Date.now();
    const inAMinute = Math.floor(now / 1000) + 60;
    const signed = (path: string) => new URL(signPlaybackUrl(`http://p.test${path}`, playbackKey, inAMinute)).pathname;
    const segmentOf = (playlist: string, file: string) => playlist.replace(/[^/]+$/, file);
    const paidPlaylist = signed(`/hls/${'a'.repeat(24)}.m3u8`);
    const verdict = (path: string) => playbackVerdict(deps, path, now);

    expect(verdict(paidPlaylist)).toEqual({ file: 'key-of-paid.m3u8', streamKey: 'key-of-paid', playbackName: 'a'.repeat(24) });
    expect(verdict(segmentOf(paidPlaylist, `${'a'.repeat(24)}-17.ts`))).toMatchObject({ file: 'key-of-paid-17.ts' });
    expect(verdict(`/hls/${'b'.repeat(24)}-3.ts`)).toMatchObject({ file: 'key-of-open-3.ts' });
    expect(verdict(signed('/vod/v1/index.m3u8'))).toEqual({ file: 'v1/index.m3u8' });
    expect(verdict(segmentOf(signed('/vod/v1/index.m3u8'), 'seg-2.ts'))).toEqual({ file: 'v1/seg-2.ts' });
    // Names of nothing: a file nginx answers 404 for.
    expect(verdict(`/hls/${'c'.repeat(24)}.m3u8`)).toEqual({ file: '-' });
    expect(verdict('/hls/../registration.json')).toEqual({ file: '-' });
    // Refused (403): plain for a signed-only stream; a token expired, altered, of another stream, of the
    // playlist's path for another file kind, in another shape, or on a path that names no file.
    const refused = { refusal: expect.any(String) };
    expect(verdict(`/hls/${'a'.repeat(24)}.m3u8`)).toEqual(refused);
    expect(verdict('/vod/v1/index.m3u8')).toEqual(refused);
    expect(playbackVerdict(deps, paidPlaylist, (inAMinute + 1) * 1000)).toEqual(refused);
    expect(verdict(paidPlaylist.replace(/\.(.)([^./]*)\//, (_all, first: string, rest: string) => `.${first === 'A' ? 'B' : 'A'}${rest}/`))).toEqual(refused);
    expect(verdict(segmentOf(paidPlaylist, `${'b'.repeat(24)}.m3u8`))).toEqual(refused);
    expect(verdict(signed('/vod/v2/index.m3u8').replace('/v2/', '/v1/'))).toEqual(refused);
    for (const shape of ['/hls/t/x/a.m3u8', `/hls/t/${'x'.repeat(200)}/${'a'.repeat(24)}.m3u8`, '/hls/t/', '/vod/v1/t/%2F/index.m3u8', '/anything/t/x/y']) {
      expect({ shape, verdict: verdict(shape) }).toEqual({ shape, verdict: refused });
    }
    // No key kept (a registration without signed playback): no token is valid.
    expect(playbackVerdict({ state, registration: () => null }, paidPlaylist, now)).toEqual(refused);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('reads the fragments of a live manifest with their durations', () => {
  const manifest = '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:3\n#EXT-X-DISCONTINUITY\n#EXTINF:1.000,\nkey-3.ts\n#EXTINF:0.573,\nkey-4.ts\n';
  expect(parseFragments(manifest)).toEqual([
    { name: 'key-3.ts', durationSeconds: 1 },
    { name: 'key-4.ts', durationSeconds: 0.573 },
  ]);
  expect(parseFragments('')).toEqual([]);
});

describe('calls to the service', () => {
  const calls: { id: string; type: string; status: number }[] = [];
  /** Whether the service refuses a call of this stream now. */
  let refuse: (id: string) => boolean = () => false;
  let service: Server;
  let registration: Registration;
  const dirs: string[] = [];
  const logger = createLogger('silent');
  const settings = { retryBaseMs: 20, retryMaxMs: 100, callTimeoutMs: 2000 };

  beforeAll(async () => {
    service = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const body = JSON.parse(text) as { id: string; type: string };
        const status = request.headers.authorization !== 'Bearer token' ? 401 : refuse(body.id) ? 500 : 200;
        calls.push({ id: body.id, type: body.type, status });
        response.writeHead(status).end('{}');
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    registration = { serviceUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`, siteId: 's', contractId: 'c', authorization: 'token' };
  });
  afterAll(async () => {
    await new Promise((resolve) => service.close(resolve));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const stateDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'provider-core-'));
    dirs.push(dir);
    return dir;
  };
  const delivered = (id: string) => calls.filter((call) => call.id === id && call.status === 200).map((call) => call.type);

  it('keeps each stream in order while another stream goes on', async () => {
    const deliveries = new ServiceDeliveries(await ProviderState.open(stateDir()), () => registration, settings, logger);
    // The stuck stream's calls are refused at least once, and until the other stream is through: were
    // the two queued together, neither would end.
    refuse = (id) => id === 'stuck' && (delivered('free').length < 2 || !calls.some((call) => call.id === 'stuck'));
    await deliveries.webhook('stuck', 'connected', 1);
    await deliveries.webhook('stuck', 'active', 2);
    await deliveries.webhook('free', 'connected', 3);
    await deliveries.webhook('free', 'active', 4);
    await eventually(() => delivered('free').length === 2, 'the free stream delivered');
    await eventually(() => deliveries.pending === 0, 'everything delivered');
    expect(delivered('free')).toEqual(['connected', 'active']);
    const stuck = calls.filter((call) => call.id === 'stuck').map((call) => `${call.type} ${call.status}`);
    expect(stuck[0]).toBe('connected 500');
    expect(stuck.slice(-2)).toEqual(['connected 200', 'active 200']);
    expect(new Set(stuck.slice(0, -2))).toEqual(new Set(['connected 500']));
    deliveries.close();
  });

  it('keeps undelivered calls in the state folder: a restarted provider sends them', async () => {
    const dir = stateDir();
    // Not registered yet: the attempt fails and the next is planned a minute later.
    const first = new ServiceDeliveries(await ProviderState.open(dir), () => null, { ...settings, retryBaseMs: 60_000 }, logger);
    await first.webhook('kept', 'connected', 5);
    await eventually(async () => (await ProviderState.open(dir)).data.outbox[0]?.attempts === 1, 'the failed attempt saved');
    first.close();

    const state = await ProviderState.open(dir);
    expect(state.data.outbox).toEqual([expect.objectContaining({ streamId: 'kept', body: { type: 'connected', id: 'kept', time: 5 } })]);
    state.data.outbox[0].nextAttemptAt = 0; // the minute has passed
    const restarted = new ServiceDeliveries(state, () => registration, settings, logger);
    restarted.kick();
    await eventually(() => delivered('kept').length === 1, 'the kept call delivered');
    await eventually(() => restarted.pending === 0, 'nothing left');
    restarted.close();
  });
});
