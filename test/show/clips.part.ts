/**
 * Clips on real parts (docs/show.md "Clips"): the reference provider, registered with signed playback, takes a
 * test pattern from ffmpeg over RTMP into a gated channel; POST /video/v3/clips cuts one clip from the live window
 * while the show runs and one from its delivered recording after it, both without re-encoding. Each clip's
 * length (ffprobe) is within one fragment of what was asked, it lists as a Video of the channel with its source's
 * entitlements, the pass holder's URL is signed and plays while the plain one is 403, and it deletes like any
 * video. Every bad input is 400 naming its field with nothing cut, another site's source 404, a provider without
 * a clip URL 409, and one that fails 502 naming the contract, with nothing stored.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Stack } from '../../stack';
import { unsignedPath } from '../../shared/playbackSigning';
import { rest } from '../helpers/http';
import { pushTestPattern, stopChild, type ReferenceProviderPorts } from '../helpers/referenceProvider';
import { readStatus } from '../helpers/show';
import { gatedChannel, startSignedShow, stopSignedShow } from '../helpers/signedShow';
import { createTestSite, type TestSite } from '../helpers/stack';
import { until } from '../helpers/wait';

const run = promisify(execFile);

let stack: Stack;
let site: TestSite;
let other: TestSite;
let ports: ReferenceProviderPorts;
let contractId: string;
let holder: { accountId: string; token: string };
let channelId: string;
let recordingId: string;
const clips: { live?: string; recording?: string } = {};

/** A fragment of the show (HLS_FRAGMENT_SECONDS=1) and what a cut may differ by: a keyframe each second. */
const FRAGMENT_SECONDS = 1;

beforeAll(async () => {
  ({ stack, site, ports, contractId, holder } = await startSignedShow('Clips', {
    PROVIDER_IDLE_AFTER_MS: '2000',
    HLS_FRAGMENT_SECONDS: String(FRAGMENT_SECONDS),
    // A live window of a few seconds (the rewind window, docs/show.md), so the show's start leaves it within the test.
    PROVIDER_DVR_SECONDS: '5',
  }));
  other = await createTestSite(stack, 'Another site');
}, 180_000);
afterAll(stopSignedShow, 60_000);

const holderHeaders = () => ({ 'x-service-client-id': site.siteId, authorization: `Bearer ${holder.token}`, 'x-service-device-id': 'tv' });
const clip = (body: object, headers = site.admin) => rest(stack, 'POST', '/video/v3/clips', { headers, body });
/** The provider's VOD folders: a refused clip leaves none behind. */
const vodFolders = () => readdirSync(join(ports.stateDir, 'vod')).sort();
const listing = async (headers: Record<string, string>) =>
  (await rest(stack, 'GET', `/video/v3/?channelId=${channelId}`, { headers })).body.results as {
    _id: string;
    url: string | null;
    subscriptions: { sku: string }[];
  }[];

/** The length ffprobe reads from a playlist URL, in seconds. */
async function probedSeconds(url: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', url]);
  return Number(stdout.trim());
}

/** Each body is 400 naming `field`, and the provider cut nothing. */
async function expectRefused(cases: [object, string][]) {
  const before = vodFolders();
  for (const [body, field] of cases) {
    const answer = await clip(body);
    expect({ body, status: answer.status, success: answer.body.success, names: String(answer.body.message).includes(field) }).toEqual({
      body,
      status: 400,
      success: false,
      names: true,
    });
  }
  expect(vodFolders()).toEqual(before);
}

/** The holder's URL of the clip is signed and plays (playlist and a fragment); the plain one is 403. */
async function expectSignedPlayback(videoId: string) {
  const mine = (await listing(holderHeaders())).find((video) => video._id === videoId);
  const signed = mine?.url;
  expect(unsignedPath(new URL(signed!).pathname)).not.toBeNull();
  const playlist = await fetch(signed!);
  expect(playlist.status).toBe(200);
  const fragment = (await playlist.text()).split('\n').find((line) => line && !line.startsWith('#'));
  expect((await fetch(new URL(fragment!, signed!))).status).toBe(200);
  const plain = (await listing(site.admin)).find((video) => video._id === videoId)!.url!;
  expect(unsignedPath(new URL(plain).pathname)).toBeNull();
  expect((await fetch(plain)).status).toBe(403);
  // A viewer without the pass gets no URL at all.
  const stranger = await site.signIn([]);
  const theirs = (await listing({ 'x-service-client-id': site.siteId, authorization: `Bearer ${stranger.token}` })).find((video) => video._id === videoId);
  expect(theirs?.url).toBeNull();
  return signed!;
}

it('cuts a clip from the live window while the show runs', async () => {
  const show = await gatedChannel({ stack, site, contractId }, 'clipped-show');
  channelId = show.channelId;
  const encoder = pushTestPattern(show.stream.ingestUrl, show.stream.streamKey);
  expect((await rest(stack, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin })).status).toBe(200);

  // Not live yet: a channel whose show is not on air has no live window.
  const live = await until(
    () => readStatus(stack, site.siteId, channelId),
    (status) => status.live === true && status.streamSecond >= 9,
    'nine seconds of the show',
  );
  const now = live.streamSecond as number;
  const cut = await clip({ channelId, startSecond: now - 4, durationSeconds: 2, title: 'The live moment' });
  expect([cut.status, cut.body.type, cut.body.title]).toEqual([201, 'vod', 'The live moment']);
  expect(cut.body.subscriptions).toEqual([{ sku: 'pass' }]);
  clips.live = cut.body._id;

  await expectRefused([
    [{ channelId, startSecond: now + 30, durationSeconds: 2, title: 'Later' }, 'startSecond'],
    [{ channelId, startSecond: now - 1, durationSeconds: 30, title: 'Past now' }, 'durationSeconds'],
    // The live window holds the last few fragments (nginx's playlist): the show's first second is gone from it.
    [{ channelId, startSecond: 0, durationSeconds: 2, title: 'Too early' }, 'startSecond'],
  ]);
  const signed = await expectSignedPlayback(clips.live!);
  expect(Math.abs((await probedSeconds(signed)) - 2)).toBeLessThanOrEqual(FRAGMENT_SECONDS);

  // The show ends: the provider's idle stops the recording, which is delivered as the channel's recording.
  await stopChild(encoder);
  const ended = await until(
    () => readStatus(stack, site.siteId, channelId),
    (status) => status.recordingVideoId !== null,
    'the recording delivered',
  );
  recordingId = ended.recordingVideoId;
  expect(recordingId).not.toBe(clips.live);
});

it('cuts a clip from a delivered recording, with the recording’s entitlements', async () => {
  const recording = (await listing(site.admin)).find((video) => video._id === recordingId)!;
  expect(recording.subscriptions).toEqual([]);
  expect((await rest(stack, 'PUT', `/video/v3/${recordingId}`, { headers: site.admin, body: { subscriptions: ['pass'] } })).status).toBe(200);
  const cut = await clip({ sourceVideoId: recordingId, startSecond: 2, durationSeconds: 3, title: 'From the recording' });
  expect([cut.status, cut.body.type, cut.body.subscriptions]).toEqual([201, 'vod', [{ sku: 'pass' }]]);
  clips.recording = cut.body._id;
  const signed = await expectSignedPlayback(clips.recording!);
  expect(Math.abs((await probedSeconds(signed)) - 3)).toBeLessThanOrEqual(FRAGMENT_SECONDS);

  // Both clips list as the channel's videos; the recording stays the channel's recording.
  const ids = (await listing(site.admin)).map((video) => video._id);
  expect(ids).toEqual(expect.arrayContaining([recordingId, clips.live, clips.recording]));
  expect((await readStatus(stack, site.siteId, channelId)).recordingVideoId).toBe(recordingId);

  const length = Number(
    (await rest(stack, 'GET', `/video/v3/?channelId=${channelId}`, { headers: site.admin })).body.results.find(
      (video: { _id: string }) => video._id === recordingId,
    ).durationSeconds,
  );
  await expectRefused([
    [{ startSecond: 0, durationSeconds: 2, title: 'No source' }, 'sourceVideoId'],
    [{ sourceVideoId: recordingId, channelId, startSecond: 0, durationSeconds: 2, title: 'Both' }, 'channelId'],
    [{ sourceVideoId: recordingId, startSecond: 0, durationSeconds: 0, title: 'Empty' }, 'durationSeconds'],
    [{ sourceVideoId: recordingId, startSecond: 0, durationSeconds: 301, title: 'Too long' }, 'durationSeconds'],
    [{ sourceVideoId: recordingId, startSecond: -1, durationSeconds: 2, title: 'Negative' }, 'startSecond'],
    [{ sourceVideoId: recordingId, startSecond: 1.5, durationSeconds: 2, title: 'Fraction' }, 'startSecond'],
    [{ sourceVideoId: recordingId, startSecond: 0, durationSeconds: 2.5, title: 'Fraction' }, 'durationSeconds'],
    [{ sourceVideoId: recordingId, startSecond: '1', durationSeconds: 2, title: 'Text' }, 'startSecond'],
    [{ sourceVideoId: recordingId, startSecond: 0, durationSeconds: 2, title: '' }, 'title'],
    [{ sourceVideoId: recordingId, startSecond: 0, durationSeconds: 2, title: 'x'.repeat(201) }, 'title'],
    [{ sourceVideoId: recordingId, startSecond: Math.ceil(length) + 1, durationSeconds: 2, title: 'After the end' }, 'startSecond'],
    [{ sourceVideoId: recordingId, startSecond: 1, durationSeconds: Math.ceil(length) + 2, title: 'Past the end' }, 'durationSeconds'],
    // The show has ended: the channel has no live window.
    [{ channelId, startSecond: 0, durationSeconds: 2, title: 'Not live' }, 'channelId'],
  ]);
  // Another site's recording or channel is none of this one's.
  expect((await clip({ sourceVideoId: recordingId, startSecond: 0, durationSeconds: 2, title: 'Theirs' }, other.admin)).status).toBe(404);
  expect((await clip({ channelId, startSecond: 0, durationSeconds: 2, title: 'Theirs' }, other.admin)).status).toBe(404);
});

it('deletes a clip at its provider like any video', async () => {
  const vodOf = async (id: string) => new URL((await listing(site.admin)).find((video) => video._id === id)!.url!).pathname.split('/')[2];
  const vodId = await vodOf(clips.recording!);
  expect(vodFolders()).toContain(vodId);
  expect((await rest(stack, 'DELETE', `/video/v3/${clips.recording}`, { headers: site.admin })).status).toBe(200);
  expect(vodFolders()).not.toContain(vodId);
  expect((await listing(site.admin)).map((video) => video._id)).not.toContain(clips.recording);
});

it('answers 409 for a provider that cuts no clips and 502 naming the contract for one that fails, storing nothing', async () => {
  const { authorization } = JSON.parse(readFileSync(join(ports.stateDir, 'registration.json'), 'utf8'));
  const provider = { 'x-service-client-id': site.siteId, authorization: `Bearer ${authorization}` };
  const setClipUrl = (url: string | null) => rest(stack, 'PUT', `/streamprovider/v1/${contractId}`, { headers: provider, body: { urls: { createClip: url } } });
  const videos = (await listing(site.admin)).length;
  const before = vodFolders();
  const body = { sourceVideoId: recordingId, startSecond: 0, durationSeconds: 2, title: 'Nowhere' };
  const removed = await setClipUrl(null);
  expect([removed.status, removed.body.urls.createClip ?? null]).toEqual([200, null]);
  const name = removed.body.name as string;
  const refused = await clip(body);
  expect([refused.status, refused.body]).toEqual([409, { success: false, message: `the streaming provider "${name}" does not cut clips` }]);

  // A URL where the provider answers no clip (404 "no such path"): the provider's failure, not the caller's.
  expect((await setClipUrl(`http://127.0.0.1:${ports.httpPort}/v1/noSuchOperation`)).status).toBe(200);
  const failed = await clip(body);
  expect([failed.status, failed.body.success]).toEqual([502, false]);
  expect(failed.body.message).toContain(`"${name}"`);
  expect(failed.body.message).toContain('createClip');
  expect((await listing(site.admin)).length).toBe(videos);
  expect(vodFolders()).toEqual(before);
});
