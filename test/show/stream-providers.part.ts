/**
 * Streaming providers as partners use them, against a real fake provider (an HTTP server that records
 * every call): contract registration and modification, stream control from the service, outbound call
 * behaviour (Bearer, retries, timeouts, 502), webhooks, VOD delivery, admin subscriptions, tenancy.
 */
import { createHash } from 'node:crypto';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { connectClient } from '../helpers/viewer';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let provider: FakeStreamProvider;
let channelId: string;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FALLBACK = 'https://images.fake.test/fallback.png';

beforeAll(async () => {
  // A partner here runs in the test's own event loop: a timeout of seconds, so a stall of the loaded machine is
  // never taken for a partner that did not answer (which the tests show with partners that never answer).
  stack = await startTestStack({ env: { PROVIDER_TIMEOUT_MS: '2000', PROVIDER_RETRIES: '2', STREAM_FALLBACK_IMAGE_URL: FALLBACK } });
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  provider = await startFakeStreamProvider();
  channelId = await createChannel(stack, site.siteId);
});
afterAll(async () => {
  await provider.close();
  await stopAll();
});

let names = 0;
async function registerContract(owner: TestSite = site, extra: object = {}) {
  const body = { name: `Provider ${(names += 1)}`, urls: provider.urls(), accountCredentials: {}, useAccount: false, ...extra };
  const reply = await rest(stack, 'POST', '/streamprovider/v1/register', { headers: owner.admin, body });
  expect(reply.status).toBe(201);
  return reply.body as { id: string; authorization: string };
}

async function createStream(contractId: string, extra: object = {}, owner: TestSite = site, pageId = channelId) {
  const reply = await rest(stack, 'POST', '/stream/v1/', { headers: owner.admin, body: { pageId, contractId, ...extra } });
  expect(reply.status).toBe(201);
  return reply.body;
}

const bearer = (authorization: string) => ({ Authorization: `Bearer ${authorization}` });

describe('contract registration', () => {
  it('answers { id, authorization } with a GUID that is stored only as a hash', async () => {
    const contract = await registerContract();
    expect(contract.id).toMatch(/^[0-9a-f]{24}$/);
    expect(contract.authorization).toMatch(GUID);
    const row = await stack.database.prisma.streamProviderContract.findUniqueOrThrow({ where: { id: contract.id } });
    expect(row.authorizationHash).toBe(createHash('sha256').update(contract.authorization).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(contract.authorization);
  });

  it('keeps names unique per site (409), but another site may use the same name', async () => {
    await registerContract(site, { name: 'Unique name' });
    const again = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: 'Unique name', urls: provider.urls(), useAccount: false },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, message: expect.stringContaining('Unique name') });
    await registerContract(other, { name: 'Unique name' });
  });

  it('refuses URLs that are not http(s), missing required URLs, and useAccount without its needs (400)', async () => {
    const cases: [object, string][] = [
      [{ urls: { ...provider.urls(), createStream: 'ftp://provider.test/create' } }, 'urls.createStream'],
      [{ urls: { ...provider.urls(), stopStream: 'javascript:alert(1)' } }, 'urls.stopStream'],
      [{ urls: { ...provider.urls(), deleteVod: 'not a url' } }, 'urls.deleteVod'],
      [{ urls: provider.urls(['startStream']) }, 'startStream'],
      [{ useAccount: true, urls: provider.urls(['verifyAccount']), accountCredentials: { apiKey: 'API key' } }, 'verifyAccount'],
      [{ useAccount: true, accountCredentials: {} }, 'accountCredentials'],
    ];
    for (const [extra, field] of cases) {
      const body = { name: 'Invalid', urls: provider.urls(), accountCredentials: {}, useAccount: false, ...extra };
      const reply = await rest(stack, 'POST', '/streamprovider/v1/register', { headers: site.admin, body });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain(field);
    }
    expect(await stack.database.prisma.streamProviderContract.count({ where: { siteId: site.siteId, name: 'Invalid' } })).toBe(0);
  });

  it('needs the site ID and developer key', async () => {
    const reply = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: { 'x-service-client-id': site.siteId },
      body: { name: 'x', urls: provider.urls(), useAccount: false },
    });
    expect(reply.status).toBe(401);
  });
});

describe('contract modification (PUT /streamprovider/v1/{id}, Bearer)', () => {
  it('lets the provider change its contract with its own token', async () => {
    const contract = await registerContract();
    const reply = await rest(stack, 'PUT', `/streamprovider/v1/${contract.id}`, {
      headers: bearer(contract.authorization),
      body: { name: 'Renamed provider', urls: { activateStream: null, stopStream: `${provider.url}/stopStream?v=2` } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ _id: contract.id, siteId: site.siteId, name: 'Renamed provider', useAccount: false });
    expect(reply.body.urls).toMatchObject({ stopStream: `${provider.url}/stopStream?v=2`, createStream: `${provider.url}/createStream`, activateStream: null });
    expect(JSON.stringify(reply.body)).not.toContain(contract.authorization);
  });

  it('answers 401 without or with a wrong token, 404 for another contract, 400 for a bad URL', async () => {
    const contract = await registerContract();
    const second = await registerContract();
    const path = `/streamprovider/v1/${contract.id}`;
    expect((await rest(stack, 'PUT', path, { body: { name: 'x' } })).status).toBe(401);
    expect((await rest(stack, 'PUT', path, { headers: bearer('00000000-0000-4000-8000-000000000000'), body: { name: 'x' } })).status).toBe(401);
    expect((await rest(stack, 'PUT', path, { headers: { Authorization: contract.authorization }, body: { name: 'x' } })).status).toBe(401);
    expect((await rest(stack, 'PUT', path, { headers: bearer(second.authorization), body: { name: 'x' } })).status).toBe(404);
    const bad = await rest(stack, 'PUT', path, { headers: bearer(contract.authorization), body: { urls: { createStream: 'file:///etc/passwd' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('urls.createStream');
  });
});

describe('stream control', () => {
  it('creates a stream for a channel through the provider’s createStream, with the contract’s Bearer', async () => {
    const contract = await registerContract();
    const before = provider.calls.length;
    const stream = await createStream(contract.id, { fallbackImageUrl: 'https://images.fake.test/channel.png' });
    const call = provider.calls[before];
    expect(call).toMatchObject({ operation: 'createStream', authorization: `Bearer ${contract.authorization}`, contentType: 'application/json' });
    expect(call.body).toEqual({ title: stream.title, fallbackImageUrl: 'https://images.fake.test/channel.png' });
    expect(stream).toMatchObject({
      siteId: site.siteId,
      pageId: channelId,
      contractId: contract.id,
      ingestUrl: 'rtmp://ingest.fake.test/live',
      streamKey: expect.stringMatching(/^key-/),
      playbackUrl: expect.stringMatching(/^https:\/\/cdn\.fake\.test\//),
      providerStreamId: expect.stringMatching(GUID),
      state: { ingestEnabled: true, ingestConnected: false, playbackLive: false, recording: false, ingestChangedAt: null, playbackChangedAt: null },
    });
    const second = await createStream(contract.id);
    expect(second.title).not.toBe(stream.title);
    expect(provider.calls[provider.calls.length - 1].body.fallbackImageUrl).toBe(FALLBACK);
    const got = await rest(stack, 'GET', `/stream/v1/${stream._id}`, { headers: site.admin });
    expect(got.status).toBe(200);
    // The read adds whether the channel plays the stream: a channel created with neither switch does not.
    const switchesOff = ['active_renderers.livestream', 'renderers.livestream.livestream_published'];
    expect(got.body).toEqual({
      ...stream,
      liveCheck: { show: 'OFFLINE', streamOnAir: false, channelLive: false, switchesOff, channelNamesStream: true, reason: null },
    });
  });

  it('answers 404 for an unknown or foreign channel or contract, 400 for a landing page', async () => {
    const contract = await registerContract();
    const theirs = await registerContract(other);
    const theirChannel = await createChannel(stack, other.siteId);
    const landing = await createChannel(stack, site.siteId, 'landing');
    const calls = provider.calls.length;
    for (const [body, status] of [
      [{ pageId: 'f'.repeat(24), contractId: contract.id }, 404],
      [{ pageId: theirChannel, contractId: contract.id }, 404],
      [{ pageId: channelId, contractId: theirs.id }, 404],
      [{ pageId: channelId, contractId: 'f'.repeat(24) }, 404],
      [{ pageId: landing, contractId: contract.id }, 400],
      [{ pageId: channelId, contractId: contract.id, fallbackImageUrl: 'ftp://x.test/a.png' }, 400],
      [{ pageId: channelId, contractId: contract.id, accountCredentials: { apiKey: 'k' } }, 400],
    ] as const) {
      const reply = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body });
      expect(reply.status).toBe(status);
    }
    expect(provider.calls.length).toBe(calls);
  });

  it('starts recording with a new liveBroadcastId, refuses a second start, stops, and refuses a second stop', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const started = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    expect(started.status).toBe(200);
    expect(started.body.liveBroadcastId).toMatch(GUID);
    expect(started.body.state.recording).toBe(true);
    expect(provider.callsOf('startStream').at(-1)).toMatchObject({
      authorization: `Bearer ${contract.authorization}`,
      body: { id: stream.providerStreamId, liveBroadcastId: started.body.liveBroadcastId },
    });
    expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin })).status).toBe(409);

    const stopped = await rest(stack, 'POST', `/stream/v1/${stream._id}/stop`, { headers: site.admin });
    expect(stopped.status).toBe(200);
    expect(stopped.body.state.recording).toBe(false);
    expect(stopped.body.broadcasts[0]).toMatchObject({ liveBroadcastId: started.body.liveBroadcastId, stopped: expect.any(Number), vodId: null });
    expect(provider.callsOf('stopStream').at(-1)?.body).toEqual({ id: stream.providerStreamId });
    expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/stop`, { headers: site.admin })).status).toBe(409);

    const again = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    expect(again.body.liveBroadcastId).not.toBe(started.body.liveBroadcastId);
  });

  it('undoes a start the provider refuses', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    provider.answer('startStream', { status: 400, body: { message: 'stream not ready' } });
    const refused = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    expect(refused.status).toBe(502);
    expect(refused.body.message).toContain('stream not ready');
    const got = await rest(stack, 'GET', `/stream/v1/${stream._id}`, { headers: site.admin });
    expect(got.body.state.recording).toBe(false);
    expect(got.body.broadcasts).toEqual([]);
  });

  it('activates through activateStream, and says so when the contract has no such URL (409)', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const activated = await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin });
    expect(activated.status).toBe(200);
    expect(provider.callsOf('activateStream').at(-1)?.body).toEqual({ id: stream.providerStreamId });

    const bare = await registerContract(site, { urls: provider.urls(['activateStream']) });
    const bareStream = await createStream(bare.id);
    const refused = await rest(stack, 'POST', `/stream/v1/${bareStream._id}/activate`, { headers: site.admin });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('activateStream');
  });

  it('test triggers call deleteStream and deleteVod', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const deleted = await rest(stack, 'POST', `/streamprovider/v1/test/delete-stream/${stream._id}`, { headers: site.admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body.state.ingestEnabled).toBe(false);
    expect(provider.callsOf('deleteStream').at(-1)).toMatchObject({ authorization: `Bearer ${contract.authorization}`, body: { id: stream.providerStreamId } });
    const activated = await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin });
    expect(activated.body.state.ingestEnabled).toBe(true);

    const { body: started } = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    await rest(stack, 'POST', `/stream/v1/${stream._id}/stop`, { headers: site.admin });
    const vod = {
      liveBroadcastId: started.liveBroadcastId,
      vodId: 'vod-to-delete',
      streamId: stream.providerStreamId,
      url: 'https://cdn.fake.test/vod.m3u8',
      durationSeconds: 12,
    };
    expect((await rest(stack, 'POST', '/video/v3/vod', { headers: bearer(contract.authorization), body: vod })).status).toBe(200);
    const vodDeleted = await rest(stack, 'POST', '/streamprovider/v1/test/delete-vod/vod-to-delete', { headers: site.admin });
    expect(vodDeleted.status).toBe(200);
    expect(vodDeleted.body).toEqual({ success: true, vodId: 'vod-to-delete' });
    expect(provider.callsOf('deleteVod').at(-1)?.body).toEqual({ id: 'vod-to-delete' });
    expect((await rest(stack, 'POST', '/streamprovider/v1/test/delete-vod/no-such-vod', { headers: site.admin })).status).toBe(404);
    expect((await rest(stack, 'POST', '/streamprovider/v1/test/delete-vod/vod-to-delete', { headers: other.admin })).status).toBe(404);
  });
});

describe('customer accounts (useAccount)', () => {
  const accountContract = () => registerContract(site, { useAccount: true, accountCredentials: { apiKey: 'API Key', accountId: 'Account ID' } });

  it('sends the customer’s credentials to createStream; the provider’s 401 and 403 reach the caller clearly', async () => {
    const contract = await accountContract();
    const credentials = { apiKey: 'k-1', accountId: 'acc-1' };
    const stream = await createStream(contract.id, { accountCredentials: credentials });
    expect(provider.callsOf('createStream').at(-1)?.body).toEqual({ title: stream.title, fallbackImageUrl: FALLBACK, accountCredentials: credentials });

    provider.answer('createStream', { status: 401, body: { message: 'invalid api key' } });
    const rejected = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: channelId, contractId: contract.id, accountCredentials: credentials },
    });
    expect(rejected.status).toBe(400);
    expect(rejected.body.message).toMatch(/rejected accountCredentials.*401.*invalid api key/);

    provider.answer('createStream', { status: 403, body: { message: 'stream limit reached' } });
    const limited = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: channelId, contractId: contract.id, accountCredentials: credentials },
    });
    expect(limited.status).toBe(403);
    expect(limited.body.message).toMatch(/403.*stream limit reached/);
    // Neither refusal was retried: 4xx is the provider's answer.
    expect(provider.callsOf('createStream').filter((call) => call.body.accountCredentials?.apiKey === 'k-1')).toHaveLength(3);
  });

  it('checks the credentials against the contract’s keys before calling the provider', async () => {
    const contract = await accountContract();
    const calls = provider.calls.length;
    for (const accountCredentials of [undefined, { apiKey: 'k' }, { apiKey: 'k', accountId: 'a', extra: 'x' }]) {
      const reply = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channelId, contractId: contract.id, accountCredentials } });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain('accountCredentials');
    }
    expect(provider.calls.length).toBe(calls);
  });

  it('verifies an account: 200 valid, 401 invalid; a contract without useAccount is 409', async () => {
    const contract = await accountContract();
    const credentials = { apiKey: 'k', accountId: 'a' };
    const valid = await rest(stack, 'POST', `/streamprovider/v1/${contract.id}/verify-account`, {
      headers: site.admin,
      body: { accountCredentials: credentials },
    });
    expect(valid.status).toBe(200);
    expect(valid.body).toMatchObject({ success: true, valid: true });
    expect(provider.callsOf('verifyAccount').at(-1)).toMatchObject({
      authorization: `Bearer ${contract.authorization}`,
      body: { accountCredentials: credentials },
    });
    provider.answer('verifyAccount', { status: 401 });
    const invalid = await rest(stack, 'POST', `/streamprovider/v1/${contract.id}/verify-account`, {
      headers: site.admin,
      body: { accountCredentials: credentials },
    });
    expect(invalid.status).toBe(200);
    expect(invalid.body).toMatchObject({ success: true, valid: false });
    const plain = await registerContract();
    expect(
      (await rest(stack, 'POST', `/streamprovider/v1/${plain.id}/verify-account`, { headers: site.admin, body: { accountCredentials: credentials } })).status,
    ).toBe(409);
  });
});

describe('outbound calls', () => {
  it('retries 5xx with backoff and succeeds when the provider recovers', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    provider.answer('startStream', { status: 503 }, { status: 500 });
    const before = provider.callsOf('startStream').length;
    const reply = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    expect(reply.status).toBe(200);
    const calls = provider.callsOf('startStream').slice(before);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((call) => call.body.liveBroadcastId)).size).toBe(1);
  });

  it('retries dropped connections, never 4xx', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    provider.answer('activateStream', 'drop', 'drop');
    const before = provider.callsOf('activateStream').length;
    expect((await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin })).status).toBe(200);
    expect(provider.callsOf('activateStream').length - before).toBe(3);

    provider.answer('activateStream', { status: 404, body: { error: 'no such stream' } });
    const refused = await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin });
    expect(refused.status).toBe(502);
    expect(refused.body.message).toContain('no such stream');
    expect(provider.callsOf('activateStream').length - before).toBe(4);
  });

  it('gives 502 with a message when the provider keeps failing or never answers — without hanging', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    provider.answer('activateStream', { status: 503 }, { status: 503 }, { status: 503 });
    const failing = await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin });
    expect(failing.status).toBe(502);
    expect(failing.body).toEqual({ success: false, message: expect.stringMatching(/activateStream.*503.*3 attempt/) });

    provider.answer('activateStream', 'hang', 'hang', 'hang');
    const silent = await rest(stack, 'POST', `/stream/v1/${stream._id}/activate`, { headers: site.admin });
    expect(silent.status).toBe(502);
    expect(silent.body.message).toMatch(/no answer within 2000 ms/);
  });

  it('gives 502 when createStream answers without the stream’s fields, and keeps no stream', async () => {
    const contract = await registerContract();
    provider.answer('createStream', { status: 200, body: { ingestUrl: 'rtmp://x' } });
    const reply = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channelId, contractId: contract.id } });
    expect(reply.status).toBe(502);
    expect(reply.body.message).toContain('streamKey');
    expect(await stack.database.prisma.stream.count({ where: { contractId: contract.id } })).toBe(0);
  });
});

describe('webhooks (POST /stream/v1/webhook)', () => {
  it('applies state changes in order, ignores repeats and older deliveries, and shows the state over REST and GraphQL', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const hook = (type: string, time: number) =>
      rest(stack, 'POST', '/stream/v1/webhook', { headers: bearer(contract.authorization), body: { type, id: stream.providerStreamId, time } });

    const connected = await hook('connected', 1_000);
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ success: true, changed: true, state: { ingestConnected: true, playbackLive: false, ingestChangedAt: 1_000 } });
    const repeated = await hook('connected', 1_000);
    expect(repeated.status).toBe(200);
    expect(repeated.body.changed).toBe(false);
    expect((await hook('active', 2_000)).body.state).toMatchObject({ ingestConnected: true, playbackLive: true });
    expect((await hook('disconnected', 3_000)).body.state.ingestConnected).toBe(false);
    // A late delivery of the earlier "connected" does not move the state back.
    const late = await hook('connected', 1_500);
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ changed: false, state: { ingestConnected: false, ingestChangedAt: 3_000 } });
    expect((await hook('idle', 4_000)).body.state.playbackLive).toBe(false);
    expect((await hook('active', 3_500)).body.state.playbackLive).toBe(false);

    const got = await rest(stack, 'GET', `/stream/v1/${stream._id}`, { headers: site.admin });
    expect(got.body.state).toEqual({
      ingestEnabled: true,
      ingestConnected: false,
      playbackLive: false,
      recording: false,
      ingestChangedAt: 3_000,
      playbackChangedAt: 4_000,
    });
    const viaGraphql = await graphql(
      stack,
      /* GraphQL */ `query S($id: ID!) { stream(id: $id) { state { ingestConnected playbackLive recording } } }`,
      { id: stream._id },
      site.admin,
    );
    expect(viaGraphql.body.data.stream.state).toEqual({ ingestConnected: false, playbackLive: false, recording: false });
  });

  it('answers 401 without or with a wrong Bearer, 400 for a bad type, 404 for a stream not of that contract', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const otherContract = await registerContract();
    const otherStream = await createStream(otherContract.id);
    const body = { type: 'connected', id: stream.providerStreamId, time: 10 };
    expect((await rest(stack, 'POST', '/stream/v1/webhook', { body })).status).toBe(401);
    expect((await rest(stack, 'POST', '/stream/v1/webhook', { headers: bearer('11111111-1111-4111-8111-111111111111'), body })).status).toBe(401);
    const badType = await rest(stack, 'POST', '/stream/v1/webhook', { headers: bearer(contract.authorization), body: { ...body, type: 'exploded' } });
    expect(badType.status).toBe(400);
    expect(badType.body.message).toContain('type');
    expect((await rest(stack, 'POST', '/stream/v1/webhook', { headers: bearer(contract.authorization), body: { ...body, time: 'soon' } })).status).toBe(400);
    const unknown = await rest(stack, 'POST', '/stream/v1/webhook', { headers: bearer(contract.authorization), body: { ...body, id: 'no-such-stream' } });
    expect(unknown.status).toBe(404);
    const foreign = await rest(stack, 'POST', '/stream/v1/webhook', {
      headers: bearer(contract.authorization),
      body: { ...body, id: otherStream.providerStreamId },
    });
    expect(foreign.status).toBe(404);
    const untouched = await rest(stack, 'GET', `/stream/v1/${otherStream._id}`, { headers: site.admin });
    expect(untouched.body.state.ingestConnected).toBe(false);
  });

  it('lets admins subscribe to stream state changes; a viewer without admin credentials cannot', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const events: any[] = [];
    const admin = connectClient(stack, { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey });
    const before = stack.gateway.live.stats().subscriptions;
    const received = new Promise<void>((resolve, reject) => {
      admin.subscribe(
        {
          query: /* GraphQL */ `subscription W($id: ID) { streamStateChanged(streamId: $id) { streamId pageId change time state { ingestConnected playbackLive recording } } }`,
          variables: { id: stream._id },
        },
        {
          next: (result) => {
            events.push(result.data?.streamStateChanged);
            if (events.length === 2) resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    while (stack.gateway.live.stats().subscriptions <= before) await new Promise((resolve) => setTimeout(resolve, 5));
    await rest(stack, 'POST', '/stream/v1/webhook', {
      headers: bearer(contract.authorization),
      body: { type: 'connected', id: stream.providerStreamId, time: 5 },
    });
    await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    await received;
    expect(events).toEqual([
      { streamId: stream._id, pageId: channelId, change: 'connected', time: 5, state: { ingestConnected: true, playbackLive: false, recording: false } },
      {
        streamId: stream._id,
        pageId: channelId,
        change: 'started',
        time: expect.any(Number),
        state: { ingestConnected: true, playbackLive: false, recording: true },
      },
    ]);
    await admin.dispose();

    const viewer = connectClient(stack, { 'x-service-client-id': site.siteId });
    const refused = await new Promise<unknown>((resolve) => {
      viewer.subscribe(
        { query: /* GraphQL */ `subscription { streamStateChanged { streamId } }` },
        { next: () => undefined, error: resolve, complete: () => resolve(null) },
      );
    });
    expect(JSON.stringify(refused)).toContain('developer-key');
    await viewer.dispose();
  });
});

describe('VOD delivery (POST /video/v3/vod)', () => {
  async function recordedStream() {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    const { body: started } = await rest(stack, 'POST', `/stream/v1/${stream._id}/start`, { headers: site.admin });
    await rest(stack, 'POST', `/stream/v1/${stream._id}/stop`, { headers: site.admin });
    return { contract, stream, liveBroadcastId: started.liveBroadcastId as string };
  }

  it('makes the recording a Video of the channel, once per vodId', async () => {
    const { contract, stream, liveBroadcastId } = await recordedStream();
    const vod = {
      durationSeconds: 3600,
      liveBroadcastId,
      vodId: 'vod-1-' + liveBroadcastId,
      streamId: stream.providerStreamId,
      url: 'https://cdn.fake.test/vod-1.m3u8',
    };
    const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: bearer(contract.authorization), body: vod });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual({ success: true, vodId: vod.vodId, liveBroadcastId, videoId: expect.any(String) });
    const video = await graphql(
      stack,
      /* GraphQL */ `query V($id: ID!) { video(id: $id) { id pageId type url durationSeconds } }`,
      { id: delivered.body.videoId },
      site.admin,
    );
    expect(video.body.data.video).toEqual({ id: delivered.body.videoId, pageId: channelId, type: 'vod', url: vod.url, durationSeconds: 3600 });

    const repeated = await rest(stack, 'POST', '/video/v3/vod', { headers: bearer(contract.authorization), body: vod });
    expect(repeated.status).toBe(200);
    expect(repeated.body.videoId).toBe(delivered.body.videoId);
    const got = await rest(stack, 'GET', `/stream/v1/${stream._id}`, { headers: site.admin });
    expect(got.body.broadcasts[0]).toMatchObject({
      liveBroadcastId,
      vodId: vod.vodId,
      videoId: delivered.body.videoId,
      durationSeconds: 3600,
      vodDeleted: false,
    });

    const otherVod = await rest(stack, 'POST', '/video/v3/vod', { headers: bearer(contract.authorization), body: { ...vod, vodId: 'another-vod' } });
    expect(otherVod.status).toBe(409);
  });

  it('refuses a liveBroadcastId the service did not start for that stream, and bad credentials or input', async () => {
    const first = await recordedStream();
    const second = await recordedStream();
    const vod = {
      durationSeconds: 10,
      liveBroadcastId: first.liveBroadcastId,
      vodId: 'vod-checks',
      streamId: first.stream.providerStreamId,
      url: 'https://cdn.fake.test/v.m3u8',
    };
    const auth = bearer(first.contract.authorization);
    expect((await rest(stack, 'POST', '/video/v3/vod', { body: vod })).status).toBe(401);
    expect(
      (await rest(stack, 'POST', '/video/v3/vod', { headers: auth, body: { ...vod, liveBroadcastId: '22222222-2222-4222-8222-222222222222' } })).status,
    ).toBe(404);
    // Another contract's broadcast is unknown to this one.
    expect((await rest(stack, 'POST', '/video/v3/vod', { headers: auth, body: { ...vod, liveBroadcastId: second.liveBroadcastId } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/video/v3/vod', { headers: auth, body: { ...vod, streamId: 'unknown' } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/video/v3/vod', { headers: auth, body: { ...vod, url: 'ftp://cdn/v' } })).status).toBe(400);
    expect((await rest(stack, 'POST', '/video/v3/vod', { headers: auth, body: { ...vod, vodId: undefined } })).status).toBe(400);

    // A broadcast of the same contract but another stream: a conflict, not a Video.
    const sibling = await createStream(first.contract.id);
    const conflicting = await rest(stack, 'POST', '/video/v3/vod', { headers: auth, body: { ...vod, streamId: sibling.providerStreamId } });
    expect(conflicting.status).toBe(409);
    expect(await stack.database.prisma.video.count({ where: { externalId: 'vod-checks' } })).toBe(0);
  });
});

describe('tenancy', () => {
  it('hides one site’s contracts and streams from another', async () => {
    const contract = await registerContract();
    const stream = await createStream(contract.id);
    for (const [method, path] of [
      ['GET', `/stream/v1/${stream._id}`],
      ['POST', `/stream/v1/${stream._id}/start`],
      ['POST', `/stream/v1/${stream._id}/stop`],
      ['POST', `/stream/v1/${stream._id}/activate`],
      ['POST', `/streamprovider/v1/test/delete-stream/${stream._id}`],
    ] as const) {
      expect((await rest(stack, method, path, { headers: other.admin })).status).toBe(404);
    }
    expect(
      (await rest(stack, 'POST', `/streamprovider/v1/${contract.id}/verify-account`, { headers: other.admin, body: { accountCredentials: {} } })).status,
    ).toBe(404);
    const list = await rest(stack, 'GET', '/stream/v1/', { headers: other.admin });
    expect(list.body.results.map((item: { _id: string }) => item._id)).not.toContain(stream._id);
    const contracts = await graphql(stack, /* GraphQL */ `query { streamProviderContracts { id } }`, {}, other.admin);
    expect(contracts.body.data.streamProviderContracts.map((item: { id: string }) => item.id)).not.toContain(contract.id);
    const unchanged = await rest(stack, 'GET', `/stream/v1/${stream._id}`, { headers: site.admin });
    expect(unchanged.body.state.recording).toBe(false);
  });
});
