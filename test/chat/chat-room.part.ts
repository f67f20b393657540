/**
 * What a chat room gives its viewers beyond messages (docs/design.md "Chat that moderators can run"): replies
 * (replyTo with the answered message's author and first words; a reply to a deleted or another room's
 * message refused with nothing stored), pins and announcements (one per room, in system.pinned and
 * PINNED / UNPINNED events; moderators only; refusals), reactions (the room's emoji only, rate limited,
 * counted exactly and pushed as counts at most once a second, never one by one), the room's viewer count,
 * and two instances sharing one database (PostgreSQL + Redis when set) counting reactions and viewers
 * together.
 */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createChatPanel, reactionTotals, sendChat, startChatFleet, watchChat, type ChatWatcher } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { graphql, rest, type Reply } from '../helpers/http';
import { createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';

const ROOM_SUBSCRIPTION = /* GraphQL */ `
  subscription Room($panelId: ID!, $afterSeq: Int) {
    chatMessages(panelId: $panelId, afterSeq: $afterSeq) {
      kind ids viewers
      messages { id seq text author { accountId name } replyTo { id accountId name excerpt } }
      system { name reactions pinned { messageId text author { accountId name } pinnedAt } }
      pinned { messageId text author { name } }
      reactions { emoji count }
    }
  }
`;

const MODERATOR = [{ pageId: [], scope: 'Panels', write: true }];
let stack: Stack;
let site: TestSite;
let other: TestSite;
let moderator: string;
const clients: Client[] = [];

beforeAll(async () => {
  // A reaction window no loaded machine outlives while the test spends the limit (the default 10 s once passed meanwhile).
  stack = await startTestStack({ env: { CHAT_OCCUPANCY_MS: '200', CHAT_REACTION_RATE_WINDOW_SECONDS: '600' } });
  site = await createTestSite(stack, 'Room site');
  other = await createTestSite(stack, 'Other site');
  moderator = await site.token(MODERATOR);
});
afterAll(() => stopAllWithClients(clients));

const moderatorHeaders = () => viewer(site, moderator);
const pin = (on: Pick<Stack, 'url'>, _owner: TestSite, panelId: string, body: unknown, headers: Record<string, string>): Promise<Reply> =>
  rest(on, 'POST', `/chat/v1/${panelId}/pin`, { headers, body });
const react = (on: Pick<Stack, 'url'>, owner: TestSite, jwt: string | undefined, panelId: string, emoji: unknown): Promise<Reply> =>
  rest(on, 'POST', `/chat/v1/${panelId}/reactions`, { headers: viewer(owner, jwt), body: { emoji } });
const watchRoom = (on: Pick<Stack, 'url'>, owner: TestSite, panelId: string): ChatWatcher =>
  watchChat(on, owner.siteId, panelId, clients, { query: ROOM_SUBSCRIPTION });

describe('replies', () => {
  it('carry the answered message’s ID, author name and first 80 characters, on the answer, in history and live', async () => {
    const panelId = await createChatPanel(stack, site);
    const watcher = watchRoom(stack, site, panelId);
    await watcher.until(() => true);
    const author = await site.signIn([]);
    const long = `${'a'.repeat(70)} ${'b'.repeat(40)}`;
    const answered = await sendChat(stack, site, author.token, panelId, long);
    const reply = await rest(stack, 'POST', `/chat/v1/${panelId}/messages`, {
      headers: viewer(site, await site.token([])),
      body: { text: 'agreed', replyTo: answered.body.id },
    });
    expect(reply.status).toBe(201);
    const excerpt = `${'a'.repeat(70)} ${'b'.repeat(8)}…`;
    expect(reply.body.replyTo).toEqual({ id: answered.body.id, name: author.accountId, excerpt });
    expect(answered.body.replyTo).toBeNull();
    const history = await rest(stack, 'GET', `/chat/v1/${panelId}/messages`, { headers: viewer(site) });
    expect(history.body.results[1].replyTo).toEqual({ id: answered.body.id, name: author.accountId, excerpt });
    const live = await watcher.until((event) => event.messages.some((message: { text: string }) => message.text === 'agreed'));
    expect(live.messages.at(-1).replyTo).toEqual({ id: answered.body.id, accountId: author.accountId, name: author.accountId, excerpt });
  });

  it('to a deleted message, another room’s, another site’s or none is 400 naming replyTo, and nothing is stored', async () => {
    const panelId = await createChatPanel(stack, site);
    const elsewhere = await createChatPanel(stack, site);
    const foreign = await createChatPanel(stack, other);
    const token = await site.token([]);
    const deleted = await sendChat(stack, site, token, panelId, 'soon gone');
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${deleted.body.id}`, { headers: site.admin })).status).toBe(200);
    const otherRoom = await sendChat(stack, site, token, elsewhere, 'other room');
    const otherSite = await sendChat(stack, other, await other.token([]), foreign, 'other site');
    for (const replyTo of [deleted.body.id, otherRoom.body.id, otherSite.body.id, 'no-such-message']) {
      const refused = await rest(stack, 'POST', `/chat/v1/${panelId}/messages`, {
        headers: viewer(site, await site.token([])),
        body: { text: 'a reply', replyTo },
      });
      expect([refused.status, refused.body.success]).toEqual([400, false]);
      expect(refused.body.message).toMatch(/replyTo/);
    }
    expect(await stack.database.prisma.chatMessage.count({ where: { panelId, text: 'a reply' } })).toBe(0);
  });
});

describe('pins and announcements', () => {
  it('pin a message then an announcement in its place: one pin per room, in system.pinned and PINNED / UNPINNED events', async () => {
    const panelId = await createChatPanel(stack, site);
    const author = await site.signIn([]);
    const message = await sendChat(stack, site, author.token, panelId, 'pin me');
    const watcher = watchRoom(stack, site, panelId);
    expect((await watcher.until(() => true)).system.pinned).toBeNull();

    const pinned = await pin(stack, site, panelId, { messageId: message.body.id }, moderatorHeaders());
    expect(pinned.status).toBe(200);
    expect(pinned.body).toEqual({
      messageId: message.body.id,
      text: 'pin me',
      author: { accountId: author.accountId, name: author.accountId, admin: false },
      pinnedAt: expect.any(Number),
    });
    const event = await watcher.until((candidate) => candidate.kind === 'PINNED');
    expect(event.pinned).toEqual({ messageId: message.body.id, text: 'pin me', author: { name: author.accountId } });
    expect(event.system.pinned.messageId).toBe(message.body.id);

    const announced = await pin(stack, site, panelId, { text: '  Show starts at 8  ' }, site.admin);
    expect([announced.status, announced.body.text, announced.body.author, announced.body.messageId]).toEqual([200, 'Show starts at 8', null, null]);
    await watcher.until((candidate) => candidate.kind === 'PINNED' && candidate.pinned.text === 'Show starts at 8');
    expect(await stack.database.prisma.chatPin.count({ where: { panelId } })).toBe(1);

    // A viewer who joins now gets the pin in the first event's system block.
    const late = watchRoom(stack, site, panelId);
    expect((await late.until(() => true)).system.pinned).toMatchObject({ messageId: null, text: 'Show starts at 8', author: null });

    const unpinned = await rest(stack, 'DELETE', `/chat/v1/${panelId}/pin`, { headers: moderatorHeaders() });
    expect([unpinned.status, unpinned.body]).toEqual([200, { success: true, panelId }]);
    expect((await watcher.until((candidate) => candidate.kind === 'UNPINNED')).system.pinned).toBeNull();
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/pin`, { headers: moderatorHeaders() })).status).toBe(404);
  });

  it('unpins a pinned message a moderator deletes', async () => {
    const panelId = await createChatPanel(stack, site);
    const message = await sendChat(stack, site, await site.token([]), panelId, 'pinned then deleted');
    const watcher = watchRoom(stack, site, panelId);
    await watcher.until(() => true);
    expect((await pin(stack, site, panelId, { messageId: message.body.id }, site.admin)).status).toBe(200);
    await watcher.until((event) => event.kind === 'PINNED');
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${message.body.id}`, { headers: site.admin })).status).toBe(200);
    await watcher.until((event) => event.kind === 'UNPINNED');
    expect(await stack.database.prisma.chatPin.count({ where: { panelId } })).toBe(0);
  });

  it('refuses a deleted or another room’s message, neither or both, bad text (400), a viewer (403), another site’s room (404); nothing stored', async () => {
    const panelId = await createChatPanel(stack, site);
    const elsewhere = await createChatPanel(stack, site);
    const foreign = await createChatPanel(stack, other);
    const token = await site.token([]);
    const deleted = await sendChat(stack, site, token, panelId, 'deleted');
    await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${deleted.body.id}`, { headers: site.admin });
    const otherRoom = await sendChat(stack, site, token, elsewhere, 'elsewhere');
    const shown = await sendChat(stack, site, await site.token([]), panelId, 'shown');
    for (const [body, field] of [
      [{ messageId: deleted.body.id }, 'messageId'],
      [{ messageId: otherRoom.body.id }, 'messageId'],
      [{}, 'messageId'],
      [{ messageId: shown.body.id, text: 'both' }, 'messageId'],
      [{ text: '   ' }, 'text'],
      [{ text: 'x'.repeat(501) }, 'text'],
    ] as const) {
      const refused = await pin(stack, site, panelId, body, site.admin);
      expect([refused.status, refused.body.success]).toEqual([400, false]);
      expect(refused.body.message).toMatch(field);
    }
    expect((await pin(stack, site, panelId, { messageId: shown.body.id }, viewer(site, token))).status).toBe(403);
    expect((await pin(stack, site, panelId, { messageId: shown.body.id }, viewer(site))).status).toBe(401);
    expect((await pin(stack, other, foreign, { text: 'hello' }, site.admin)).status).toBe(404);
    expect((await pin(stack, other, foreign, { text: 'hello' }, moderatorHeaders())).status).toBe(404);
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/pin`, { headers: viewer(site, token) })).status).toBe(403);
    expect(await stack.database.prisma.chatPin.count({ where: { panelId: { in: [panelId, foreign] } } })).toBe(0);
  });

  it('is a GraphQL mutation too, and the room’s pin a field of chatRoom', async () => {
    const panelId = await createChatPanel(stack, site);
    const pinned = await graphql(
      stack,
      /* GraphQL */ `mutation { pinChatMessage(panelId: "${panelId}", text: "Welcome, all") { text messageId } }`,
      {},
      site.admin,
    );
    expect(pinned.body.data.pinChatMessage).toEqual({ text: 'Welcome, all', messageId: null });
    const room = await graphql(stack, /* GraphQL */ `query { chatRoom(panelId: "${panelId}") { system { pinned { text } reactions } } }`, {}, viewer(site));
    expect(room.body.data.chatRoom.system).toEqual({ pinned: { text: 'Welcome, all' }, reactions: ['👍', '❤️', '😂', '😮', '😢', '🔥', '👏', '🎉'] });
    const unpinned = await graphql(stack, /* GraphQL */ `mutation { unpinChatMessage(panelId: "${panelId}") { success } }`, {}, site.admin);
    expect(unpinned.body.data.unpinChatMessage).toEqual({ success: true });
  });
});

describe('reactions', () => {
  it('go to viewers as exact counts, at most one set a second, never one by one', async () => {
    const panelId = await createChatPanel(stack, site);
    const watcher = watchRoom(stack, site, panelId);
    await watcher.until(() => true);
    const tokens = await Promise.all(Array.from({ length: 4 }, () => site.token([])));
    const sent = await Promise.all([
      ...Array.from({ length: 24 }, (_, index) => react(stack, site, tokens[index % 4], panelId, '👍')),
      ...Array.from({ length: 6 }, (_, index) => react(stack, site, tokens[index % 4], panelId, '🔥')),
    ]);
    for (const reply of sent) expect([reply.status, reply.body.success]).toEqual([200, true]);
    await watcher.until(() => reactionTotals(watcher)['👍'] === 24 && reactionTotals(watcher)['🔥'] === 6);
    const carrying = watcher.events.flatMap((event, index) => (event.reactions ? [{ event, at: watcher.arrivals[index] }] : []));
    for (const { event } of carrying) expect(event.kind).toBe('REACTIONS');
    // Counts go out once a second at most: over the span they arrived in, at most one a second (and one of jitter).
    const span = carrying.at(-1)!.at - carrying[0].at;
    expect(carrying.length).toBeLessThanOrEqual(Math.floor(span / 1000) + 2);
    expect(carrying.length).toBeLessThan(30);
  });

  it('refuse an emoji the room does not offer (400 naming emoji), no token (401), another site’s room (404), too many (429)', async () => {
    const panelId = await createChatPanel(stack, site, { reactions: ['🎸', '🥁'] });
    const foreign = await createChatPanel(stack, other);
    const token = await site.token([]);
    for (const emoji of ['👍', '', 'guitar']) {
      const refused = await react(stack, site, token, panelId, emoji);
      expect([refused.status, refused.body.success]).toEqual([400, false]);
      expect(refused.body.message).toMatch(/emoji/);
    }
    expect((await react(stack, site, undefined, panelId, '🎸')).status).toBe(401);
    expect((await react(stack, site, token, foreign, '👍')).status).toBe(404);
    // The 30 at once, so the limit's 10 s window cannot pass while they are sent (one after another on a loaded machine, it did).
    const allowed = await Promise.all(Array.from({ length: 30 }, () => react(stack, site, token, panelId, '🥁')));
    expect(allowed.map((reply) => reply.status)).toEqual(Array.from({ length: 30 }, () => 200));
    const limited = await react(stack, site, token, panelId, '🥁');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, expect.stringMatching(/^\d+$/)]);
    expect(limited.body.message).toMatch(/reactions/);
  });
});

describe('occupancy', () => {
  it('tells the room’s viewers how many they are, a count and never who', async () => {
    const panelId = await createChatPanel(stack, site);
    const watchers = [watchRoom(stack, site, panelId), watchRoom(stack, site, panelId), watchRoom(stack, site, panelId)];
    await Promise.all(watchers.map((watcher) => watcher.until((event) => event.viewers === 3)));
    await watchers[2].client.dispose();
    await watchers[0].until((event) => event.kind === 'VIEWERS' && event.viewers === 2);
  });
});

describe('two instances sharing one database', () => {
  let first: Stack;
  let second: Stack;
  let shared: TestSite;
  beforeAll(async () => {
    ({ first, second, shared } = await startChatFleet('Fleet room', { CHAT_OCCUPANCY_MS: '200' }));
  });

  it(`count reactions from both exactly, and viewers on both (${usingRedis ? 'Redis' : 'shared in-process bus'})`, async () => {
    const panelId = await createChatPanel(first, shared);
    const watchers = [watchRoom(first, shared, panelId), watchRoom(second, shared, panelId), watchRoom(second, shared, panelId)];
    await Promise.all(watchers.map((watcher) => watcher.until((event) => event.viewers === 3)));
    const tokens = await Promise.all(Array.from({ length: 10 }, () => shared.token([])));
    const sent = await Promise.all(
      Array.from({ length: 100 }, (_, index) => react(index % 2 === 0 ? first : second, shared, tokens[index % 10], panelId, index % 5 === 0 ? '🎉' : '👏')),
    );
    for (const reply of sent) expect(reply.status).toBe(200);
    for (const watcher of watchers) {
      await watcher.until(() => reactionTotals(watcher)['👏'] === 80 && reactionTotals(watcher)['🎉'] === 20);
    }
    // Exact: what came after the totals were reached added nothing.
    const secondMessage = await sendChat(second, shared, tokens[0], panelId, 'after the applause');
    for (const watcher of watchers) {
      await watcher.until((event) => event.messages.some((message: { id: string }) => message.id === secondMessage.body.id));
      expect(reactionTotals(watcher)).toEqual({ '👏': 80, '🎉': 20 });
    }
  });
});
