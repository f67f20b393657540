/**
 * Live chat at viewers over real graphql-ws sockets: the first event (system block and the last 50
 * messages), messages in the room's one order, sending on the viewer's own socket, deletions and ban
 * clears reaching connected viewers, settings changes, afterSeq reconnects without gap or duplicate,
 * tenancy, a recording's replay by stream second (the channel named by the renderer, else the channel
 * whose sidebar lists the panel), and two instances sharing one database (PostgreSQL + Redis when set)
 * showing every message once in one order and applying a settings change made on the other at once.
 */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createChatPanel, onSocket, range, sendChat, sendMany, startChatFleet, watchChat } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import { createChannel, startTwoSiteStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

let stack: Stack;
let site: TestSite;
let other: TestSite;
const clients: Client[] = [];

beforeAll(async () => {
  ({ stack, site, other } = await startTwoSiteStack('Live chat site'));
});
afterAll(() => stopAllWithClients(clients));

/** Test data: `count` messages of one account stored straight into the room (the send path is tested on its own). */
async function seedMessages(on: Stack, owner: TestSite, panelId: string, count: number): Promise<void> {
  const { accountId } = await owner.signIn([]);
  const now = Date.now();
  await on.database.prisma.chatMessage.createMany({
    data: range(1, count).map((seq) => ({
      id: `seed-${panelId}-${seq}`,
      siteId: owner.siteId,
      panelId,
      seq,
      accountId,
      text: `seeded ${seq}`,
      createdAt: new Date(now - (count - seq) * 1000),
    })),
  });
  await on.database.prisma.chatRoom.create({ data: { panelId, siteId: owner.siteId, lastSeq: count } });
}

describe('a viewer of a room', () => {
  it('gets the system block and the last 50 messages first, then new messages in seq order, once each', async () => {
    const panelId = await createChatPanel(stack, site, {
      rules_link_url: 'https://example.com/rules',
      login_button_text: 'Sign in to chat',
      slow_mode_seconds: 0,
      allow_non_admin_links: false,
    });
    await seedMessages(stack, site, panelId, 60);
    const watcher = watchChat(stack, site.siteId, panelId, clients);
    const first = await watcher.until(() => true);
    expect(first.kind).toBe('MESSAGES');
    expect(first.messages.map((message: { seq: number }) => message.seq)).toEqual(range(11, 60));
    expect(first.system).toEqual({
      name: 'Stage',
      image: null,
      welcomeMessage: 'Welcome!',
      rulesLinkUrl: 'https://example.com/rules',
      loginButtonText: 'Sign in to chat',
      allowLinks: false,
      slowModeSeconds: 0,
    });
    await sendMany(stack, site, panelId, 30, 'live');
    const seqs = await watcher.untilSeqs((got) => got.length >= 80);
    expect(seqs).toEqual(range(11, 90));
    // Batched: 30 messages sent at once arrive in far fewer events.
    expect(watcher.events.length).toBeLessThan(20);
    const last = watcher.events.at(-1).messages.at(-1);
    expect(last).toMatchObject({ panelId, author: { admin: false, name: expect.any(String) }, streamSecond: null });
  });

  it('sends on its own socket, and sees deletions and a ban’s clear of the account’s recent messages', async () => {
    const panelId = await createChatPanel(stack, site);
    const { accountId, token } = await site.signIn([]);
    const watcher = watchChat(stack, site.siteId, panelId, clients, { jwt: token });
    await watcher.until(() => true);
    const sent = await onSocket(
      watcher.client,
      /* GraphQL */ `mutation ($panelId: ID!, $text: String!) { sendChatMessage(panelId: $panelId, text: $text) { id seq text } }`,
      { panelId, text: 'from my socket' },
    );
    expect(sent.data.sendChatMessage).toMatchObject({ seq: 1, text: 'from my socket' });
    const someoneElse = await site.token([]);
    const kept = await sendChat(stack, site, someoneElse, panelId, 'kept');
    const gone = await sendChat(stack, site, someoneElse, panelId, 'to delete');
    await watcher.untilSeqs((seqs) => seqs.length === 3);
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${gone.body.id}`, { headers: site.admin })).status).toBe(200);
    const deleted = await watcher.until((event) => event.kind === 'DELETED');
    expect(deleted).toMatchObject({ ids: [gone.body.id], messages: [], accountId: null, system: null });
    expect((await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId, durationSeconds: 30 } })).status).toBe(201);
    const cleared = await watcher.until((event) => event.kind === 'CLEARED');
    expect(cleared).toMatchObject({ accountId, ids: [], messages: [] });
    // A viewer joining now sees neither the deleted nor the cleared message.
    const late = watchChat(stack, site.siteId, panelId, clients);
    const lateFirst = await late.until(() => true);
    expect(lateFirst.messages.map((message: { id: string }) => message.id)).toEqual([kept.body.id]);
  });

  it('gets a SYSTEM event when the panel’s settings change', async () => {
    const panelId = await createChatPanel(stack, site);
    const watcher = watchChat(stack, site.siteId, panelId, clients);
    await watcher.until(() => true);
    expect(
      (
        await rest(stack, 'PATCH', `/panel/v3/${panelId}`, {
          headers: site.admin,
          body: { renderer: { slow_mode_seconds: 15, system_welcome_message: 'Be kind' } },
        })
      ).status,
    ).toBe(200);
    const event = await watcher.until((candidate) => candidate.kind === 'SYSTEM');
    expect(event.system).toMatchObject({ slowModeSeconds: 15, welcomeMessage: 'Be kind' });
  });

  it('reconnects with afterSeq and gets exactly what it missed, then goes on', async () => {
    const panelId = await createChatPanel(stack, site);
    const watcher = watchChat(stack, site.siteId, panelId, clients);
    await watcher.until(() => true);
    await sendMany(stack, site, panelId, 5, 'before');
    await watcher.untilSeqs((seqs) => seqs.length === 5);
    await watcher.client.dispose();
    await sendMany(stack, site, panelId, 7, 'missed');
    const back = watchChat(stack, site.siteId, panelId, clients, { afterSeq: 5 });
    const first = await back.until(() => true);
    expect(first.messages.map((message: { seq: number }) => message.seq)).toEqual(range(6, 12));
    await sendMany(stack, site, panelId, 3, 'after');
    expect(await back.untilSeqs((seqs) => seqs.length >= 10)).toEqual(range(6, 15));
    // Ahead of what was sent: nothing twice.
    const ahead = watchChat(stack, site.siteId, panelId, clients, { afterSeq: 15 });
    expect((await ahead.until(() => true)).messages).toEqual([]);
    await sendMany(stack, site, panelId, 2, 'later');
    expect(await ahead.untilSeqs((seqs) => seqs.length >= 2)).toEqual([16, 17]);
  });

  it('reconnects from further back than the room keeps in memory without gap', async () => {
    const panelId = await createChatPanel(stack, site);
    await seedMessages(stack, site, panelId, 700);
    const live = watchChat(stack, site.siteId, panelId, clients);
    await live.until(() => true);
    const back = watchChat(stack, site.siteId, panelId, clients, { afterSeq: 100 });
    const first = await back.until(() => true);
    expect(first.messages.map((message: { seq: number }) => message.seq)).toEqual(range(101, 700));
  });

  it('is NOT_FOUND for another site’s viewer, an unknown room and a panel that is no chat', async () => {
    const panelId = await createChatPanel(stack, site);
    const stranger = watchChat(stack, other.siteId, panelId, clients);
    await expect(stranger.until(() => true)).rejects.toThrow(/NOT_FOUND|not found/);
    const unknown = watchChat(stack, site.siteId, 'no-such-panel', clients);
    await expect(unknown.until(() => true)).rejects.toThrow(/not found/);
    const store = await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: site.siteId, renderer: { panel_type: 'store' } } });
    const notChat = watchChat(stack, site.siteId, store.body._id, clients);
    await expect(notChat.until(() => true)).rejects.toThrow(/not found/);
  });
});

describe('replay', () => {
  let provider: FakeStreamProvider;
  beforeAll(async () => {
    provider = await startFakeStreamProvider();
  });
  afterAll(() => provider.close());

  it('stamps messages sent while the channel records with their stream second and replays them in stream order', async () => {
    const channelId = await createChannel(stack, site.siteId);
    const registered = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: 'Chat provider', urls: provider.urls(), accountCredentials: {}, useAccount: false },
    });
    const stream = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: channelId, contractId: registered.body.id, fallbackImageUrl: 'https://img.fake.test/x.png' },
    });
    const panelId = await createChatPanel(stack, site, { panel_type: 'live-stream chat', channel: channelId });
    const token = await site.token([]);
    expect((await sendChat(stack, site, token, panelId, 'before the show')).body.streamSecond).toBeNull();
    const started = await rest(stack, 'POST', `/stream/v1/${stream.body._id}/start`, { headers: site.admin });
    expect(started.status).toBe(200);
    const liveBroadcastId = started.body.liveBroadcastId as string;
    const during = await sendChat(stack, site, token, panelId, 'during 1');
    expect(during.body.streamSecond).toEqual(expect.any(Number));
    const second = await sendChat(stack, site, await site.token([]), panelId, 'during 2');
    const replay = await rest(stack, 'GET', `/chat/v1/${panelId}/replay?liveBroadcastId=${liveBroadcastId}`, { headers: viewer(site) });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('access-control-allow-origin')).toBe('*');
    expect(replay.body.map((message: { text: string }) => message.text)).toEqual(['during 1', 'during 2']);
    const windowed = await rest(stack, 'GET', `/chat/v1/${panelId}/replay?liveBroadcastId=${liveBroadcastId}&fromSecond=${second.body.streamSecond + 1}`, {
      headers: viewer(site),
    });
    expect(windowed.body).toEqual([]);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/replay?liveBroadcastId=${liveBroadcastId}`, { headers: viewer(other) })).status).toBe(404);
  });

  it('takes the channel from the channel page whose sidebar lists the panel when the renderer names none', async () => {
    const panelId = await createChatPanel(stack, site, { panel_type: 'live-stream chat' });
    const channel = await rest(stack, 'POST', '/pages/v3', {
      headers: site.admin,
      body: {
        slug: `channel-${panelId}`,
        type: 'channel',
        data: { name: 'Listing channel' },
        renderers: { sidebar: { items: [{ array_id: 'chat', id: panelId }] } },
      },
    });
    expect(channel.status).toBe(200);
    const registered = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: 'Listing provider', urls: provider.urls(), accountCredentials: {}, useAccount: false },
    });
    const stream = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: channel.body._id, contractId: registered.body.id, fallbackImageUrl: 'https://img.fake.test/x.png' },
    });
    expect((await sendChat(stack, site, await site.token([]), panelId, 'before the show')).body.streamSecond).toBeNull();
    const started = await rest(stack, 'POST', `/stream/v1/${stream.body._id}/start`, { headers: site.admin });
    expect(started.status).toBe(200);
    const liveBroadcastId = started.body.liveBroadcastId as string;
    const during = await sendChat(stack, site, await site.token([]), panelId, 'channel records');
    expect(during.body.streamSecond).toEqual(expect.any(Number));
    const replay = await rest(stack, 'GET', `/chat/v1/${panelId}/replay?liveBroadcastId=${liveBroadcastId}`, { headers: viewer(site) });
    expect(replay.body.map((message: { text: string }) => message.text)).toEqual(['channel records']);
    // Off the channel's sidebar, the panel has no channel any more: the next message is not stamped.
    expect((await rest(stack, 'PUT', `/pages/v3/${channel.body._id}`, { headers: site.admin, body: { renderers: { sidebar: { items: [] } } } })).status).toBe(
      200,
    );
    expect((await sendChat(stack, site, await site.token([]), panelId, 'off the sidebar')).body.streamSecond).toBeNull();
  });
});

describe('two instances sharing one database', () => {
  let first: Stack;
  let second: Stack;
  let shared: TestSite;
  beforeAll(async () => {
    ({ first, second, shared } = await startChatFleet('Fleet chat'));
  });

  it(`show every message once, in one order, on both (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
    const panelId = await createChatPanel(first, shared);
    const watchers = [
      watchChat(first, shared.siteId, panelId, clients),
      watchChat(second, shared.siteId, panelId, clients),
      watchChat(second, shared.siteId, panelId, clients),
    ];
    await Promise.all(watchers.map((watcher) => watcher.until(() => true)));
    const [a, b] = await Promise.all([sendMany(first, shared, panelId, 60, 'first'), sendMany(second, shared, panelId, 60, 'second')]);
    expect([...a, ...b].map((message) => message.seq).sort((x, y) => x - y)).toEqual(range(1, 120));
    for (const watcher of watchers) expect(await watcher.untilSeqs((seqs) => seqs.length >= 120, 10_000)).toEqual(range(1, 120));
    const texts = watchers.map((watcher) => watcher.events.flatMap((event) => event.messages.map((message: { text: string }) => message.text)));
    expect(texts[1]).toEqual(texts[0]);
    expect(texts[2]).toEqual(texts[0]);
    expect(await first.database.prisma.chatMessage.count({ where: { panelId } })).toBe(120);
  });

  it('apply a settings change made on one at once on the other: its viewers get SYSTEM, and its sends obey the new rules', async () => {
    const panelId = await createChatPanel(first, shared);
    const token = await shared.token([]);
    // The other instance reads the room first, so the old settings are in its cache when they change.
    expect((await sendChat(second, shared, token, panelId, 'gosh, before')).status).toBe(201);
    const watcher = watchChat(second, shared.siteId, panelId, clients);
    await watcher.until(() => true);
    const changed = await rest(first, 'PATCH', `/panel/v3/${panelId}`, {
      headers: shared.admin,
      body: { renderer: { filtered_words: 'gosh', slow_mode_seconds: 30 } },
    });
    expect(changed.status).toBe(200);
    // The change reached the other instance on the bus when its viewer got SYSTEM; its cache was dropped by then.
    expect((await watcher.until((event) => event.kind === 'SYSTEM', 15_000)).system.slowModeSeconds).toBe(30);
    const filtered = await sendChat(second, shared, await shared.token([]), panelId, 'gosh, after');
    expect([filtered.status, filtered.body.message]).toEqual([400, expect.stringContaining('gosh')]);
    const fresh = await shared.token([]);
    expect((await sendChat(second, shared, fresh, panelId, 'once')).status).toBe(201);
    // Limits are shared through Redis; on the embedded defaults (one instance) each process counts alone.
    const slowed = await sendChat(usingRedis ? first : second, shared, fresh, panelId, 'twice');
    expect([slowed.status, slowed.headers.get('retry-after')]).toEqual([429, expect.stringMatching(/^\d+$/)]);
  });
});
