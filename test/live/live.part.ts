/** Live viewers over the real graphql-ws client: routing, isolation, late joiners, clears, expiry. */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import { connectClient, watch, type Viewer } from '../helpers/viewer';
import { until } from '../helpers/wait';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let overlayId: string;
let otherOverlayId: string;
/** Channels (pages) of the sites. */
let stage: string;
let lobby: string;
let otherStage: string;
const viewers: Viewer[] = [];

async function viewer(options: Parameters<typeof watch>[1]): Promise<Viewer> {
  const opened = await watch(stack, options);
  viewers.push(opened);
  return opened;
}

const broadcast = (owner: TestSite, id: string, body: object = {}) => rest(stack, 'POST', `/overlay/v1/broadcast/${id}`, { headers: owner.admin, body });

/**
 * "Nothing else arrived", without a clock: a broadcast of the viewer's own site to its channel, sent after
 * whatever it must not get, has to be the next event it receives (what it must not get would have come first).
 */
async function nextIsMarker(watcher: Viewer, channelId?: string): Promise<void> {
  const marker = await broadcast(site, overlayId, channelId ? { channelId } : {});
  expect(marker.status).toBe(200);
  expect((await watcher.next()).broadcastId).toBe(marker.body.broadcastId);
}

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  [stage, lobby, otherStage] = await Promise.all([createChannel(stack, site.siteId), createChannel(stack, site.siteId), createChannel(stack, other.siteId)]);
  const body = { name: 'Lower third', type: 'template', contents: { html: '<p>${name}</p>' }, duration: 20, cta: { type: 'social_share', data: null } };
  overlayId = (await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body })).body._id;
  otherOverlayId = (await rest(stack, 'POST', '/overlay/v1', { headers: other.admin, body })).body._id;
});
afterEach(async () => {
  await Promise.all(viewers.splice(0).map((opened) => opened.close()));
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: other.admin });
});
afterAll(stopAll);

it('a viewer of a channel gets that channel’s broadcast with the variables filled', async () => {
  const watcher = await viewer({ siteId: site.siteId, channelId: stage });
  const sent = await broadcast(site, overlayId, { channelId: stage, variables: { name: 'Ada' } });
  const event = await watcher.next();
  expect(event).toMatchObject({
    kind: 'SHOW',
    broadcastId: sent.body.broadcastId,
    channelId: stage,
    tagId: null,
    variables: { name: 'Ada' },
    overlay: { id: overlayId, name: 'Lower third', type: 'template', duration: 20, cta: { type: 'social_share', data: null } },
  });
  expect(event.overlay.contents.html).toBe('<p>Ada</p>');
  expect(event.expiresAt).toBe(sent.body.expiresAt);
  expect(event.remainingSeconds).toBeGreaterThan(15);
});

it('routes by channel: site-wide broadcasts reach every channel, a channel’s only its own viewers', async () => {
  const onStage = await viewer({ siteId: site.siteId, channelId: stage });
  const inLobby = await viewer({ siteId: site.siteId, channelId: lobby });
  const siteLevel = await viewer({ siteId: site.siteId });

  await broadcast(site, overlayId, { channelId: stage });
  expect((await onStage.next()).channelId).toBe(stage);

  // Also the marker: had the stage's broadcast reached the lobby or the site level, it would come first.
  const everywhere = await broadcast(site, overlayId, {});
  for (const watcher of [onStage, inLobby, siteLevel]) {
    const event = await watcher.next();
    expect(event.broadcastId).toBe(everywhere.body.broadcastId);
    expect(event.channelId).toBeNull();
  }
});

it('never shows one site’s broadcasts to another site’s viewers', async () => {
  const mine = await viewer({ siteId: site.siteId, channelId: stage });
  const theirs = await viewer({ siteId: other.siteId, channelId: otherStage });
  await broadcast(other, otherOverlayId, { channelId: otherStage });
  expect((await theirs.next()).overlay.id).toBe(otherOverlayId);
  await nextIsMarker(mine, stage);
});

it('a viewer who joins mid-broadcast gets it at once with the time left', async () => {
  // Long enough to be live still when a loaded machine gets round to the joiner.
  const sent = await broadcast(site, overlayId, { channelId: stage, duration: 120 });
  // A second into the broadcast (how much later the joiner really asks is measured below, never assumed).
  await until(
    () => Date.now(),
    (now) => now >= sent.body.startedAt + 1000,
    'a second into the broadcast',
  );
  const joining = Date.now();
  const late = await viewer({ siteId: site.siteId, channelId: stage });
  const event = await late.next(15_000);
  const received = Date.now();
  expect(event.broadcastId).toBe(sent.body.broadcastId);
  expect(event.kind).toBe('SHOW');
  // The time left is taken when the joiner subscribes: between its asking and its receiving.
  const expiresAt = new Date(sent.body.expiresAt).getTime();
  expect(event.remainingSeconds).toBeLessThanOrEqual((expiresAt - joining) / 1000);
  expect(event.remainingSeconds).toBeGreaterThanOrEqual((expiresAt - received) / 1000);
  expect(event.remainingSeconds).toBeLessThanOrEqual(119);
  // A viewer of another channel does not get it.
  const elsewhere = await viewer({ siteId: site.siteId, channelId: lobby });
  await nextIsMarker(elsewhere, lobby);
});

it('clearing sends CLEAR to the viewers who saw the broadcast, and late joiners no longer get it', async () => {
  const watcher = await viewer({ siteId: site.siteId, channelId: stage });
  const sent = await broadcast(site, overlayId, { channelId: stage });
  await watcher.next();
  const cleared = await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${stage}`, { headers: site.admin });
  expect(cleared.body.cleared).toBe(1);
  const event = await watcher.next();
  expect(event).toMatchObject({ kind: 'CLEAR', broadcastId: sent.body.broadcastId, channelId: stage, remainingSeconds: 0 });
  const late = await viewer({ siteId: site.siteId, channelId: stage });
  await nextIsMarker(late, stage);
});

it('a broadcast expires after its duration: CLEAR then, and nothing for late joiners', async () => {
  const watcher = await viewer({ siteId: site.siteId, channelId: stage });
  const sent = await broadcast(site, overlayId, { channelId: stage, duration: 1 });
  expect((await watcher.next()).kind).toBe('SHOW');
  const cleared = await watcher.next(15_000);
  expect(cleared).toMatchObject({ kind: 'CLEAR', broadcastId: sent.body.broadcastId });
  expect(Date.now()).toBeGreaterThanOrEqual(sent.body.expiresAt - 50);
  const late = await viewer({ siteId: site.siteId, channelId: stage });
  await nextIsMarker(late, stage);
});

it('a tag-targeted broadcast reaches only viewers whose account carries the tag', async () => {
  const vip = await viewer({ siteId: site.siteId, channelId: stage, token: await site.token([], ['vip']) });
  const regular = await viewer({ siteId: site.siteId, channelId: stage, token: await site.token([], ['fan']) });
  const anonymous = await viewer({ siteId: site.siteId, channelId: stage });
  const sent = await rest(stack, 'POST', `/broadcast/${overlayId}/tag/vip`, { headers: site.admin, body: { channelId: stage } });
  expect((await vip.next()).broadcastId).toBe(sent.body.broadcastId);
  // An untagged broadcast is the marker: the tagged one would have reached the others before it.
  const marker = await broadcast(site, overlayId, { channelId: stage });
  for (const watcher of [vip, regular, anonymous]) expect((await watcher.next()).broadcastId).toBe(marker.body.broadcastId);
});

it('viewers with different selections each get their own shape', async () => {
  const client = connectClient(stack, { 'x-service-client-id': site.siteId });
  const received = new Promise<unknown>((resolve, reject) => {
    client.subscribe(
      { query: `subscription { overlayBroadcasts(channelId: "${stage}") { kind overlay { name } } }` },
      { next: (value) => resolve(value.data), error: reject, complete: () => undefined },
    );
  });
  const watcher = await viewer({ siteId: site.siteId, channelId: stage });
  await broadcast(site, overlayId, { channelId: stage });
  await watcher.next();
  expect(await received).toEqual({ overlayBroadcasts: { kind: 'SHOW', overlay: { name: 'Lower third' } } });
  await client.dispose();
});

describe('connection rules', () => {
  const closeCodeOf = (params: Record<string, unknown>) =>
    new Promise<number>((resolve) => {
      createClient({
        url: `${stack.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: params,
        lazy: false,
        retryAttempts: 0,
        on: { closed: (event) => resolve((event as { code: number }).code) },
        onNonLazyError: () => undefined,
      });
    });

  it('rejects an unknown site and a missing site ID with 4403', async () => {
    expect(await closeCodeOf({ 'x-service-client-id': 'not-a-site' })).toBe(4403);
    expect(await closeCodeOf({})).toBe(4403);
  });

  it('rejects a token of another site', async () => {
    const token = await other.token([]);
    expect(await closeCodeOf({ 'x-service-client-id': site.siteId, Authorization: `Bearer ${token}` })).toBe(4403);
  });

  it('answers invalid subscriptions with a GraphQL error', async () => {
    const client = connectClient(stack, { 'x-service-client-id': site.siteId });
    const error = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: 'subscription { overlayBroadcasts { nope } }' }, { next: () => undefined, error: resolve, complete: () => undefined });
    });
    expect((error as { message: string }[])[0].message).toMatch(/Cannot query field "nope"/);
    await client.dispose();
  });

  it('runs queries sent over the socket through the gateway', async () => {
    const client = connectClient(stack, { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey });
    const result = await new Promise<unknown>((resolve, reject) => {
      client.subscribe(
        { query: '{ overlay(id: "' + overlayId + '") { name } }' },
        { next: (value) => resolve(value), error: reject, complete: () => undefined },
      );
    });
    expect(result).toEqual({ data: { overlay: { name: 'Lower third' } } });
    await client.dispose();
  });

  it('refuses a socket without the graphql-transport-ws subprotocol', async () => {
    const socket = new WebSocket(`${stack.url.replace('http', 'ws')}/graphql`);
    const code = await new Promise<number>((resolve) => socket.on('close', (closeCode) => resolve(closeCode)));
    expect(code).toBe(4406);
  });

  it('closes a socket whose ConnectionInit never comes with 4408, and not one whose ConnectionInit came', async () => {
    const silent = new WebSocket(`${stack.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const introduced = new WebSocket(`${stack.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    introduced.once('open', () => introduced.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-client-id': site.siteId } })));
    const acked = new Promise<void>((resolve) => introduced.once('message', () => resolve()));
    const silentClose = await new Promise<{ code: number; reason: string }>((resolve) =>
      silent.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    expect(silentClose).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
    await acked;
    // Both sockets opened together: the introduced one is still open past the silent one's timeout.
    expect(introduced.readyState).toBe(WebSocket.OPEN);
    introduced.close();
  });
});
