/**
 * Live chat over REST and GraphQL: sending (shape, author name from the community subgraph, stored
 * before the 201), every rule and refusal with nothing stored (text, filtered words, links, slow mode,
 * the per-account limit, bans and timeouts), moderation, history and its paging, tenancy (another
 * site's viewer, token or admin gets 404) and hostile input (never a 5xx).
 */
import type { Stack } from '../../stack';
import { createChatPanel, sendChat } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let moderator: { accountId: string; token: string };

const MODERATOR = [{ pageId: [], scope: 'Panels', write: true }];

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Chat site');
  other = await createTestSite(stack, 'Other site');
  moderator = await site.signIn(MODERATOR);
});
afterAll(() => stopAll());

const stored = (panelId: string) => stack.database.prisma.chatMessage.count({ where: { panelId } });

describe('sending', () => {
  it('stores a message before the 201 and answers it with its seq, author name and no stream second', async () => {
    const panelId = await createChatPanel(stack, site);
    const { accountId, token } = await site.signIn([]);
    const reply = await sendChat(stack, site, token, panelId, '  Hello <b>stage</b> & all  ');
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.any(String),
      seq: 1,
      panelId,
      text: 'Hello <b>stage</b> & all',
      author: { accountId, name: accountId, admin: false },
      created: expect.any(Number),
      streamSecond: null,
      replyTo: null,
      held: false,
      dueAt: null,
    });
    const row = await stack.database.prisma.chatMessage.findUnique({ where: { id: reply.body.id } });
    expect(row).toMatchObject({ siteId: site.siteId, panelId, seq: 1, accountId, text: 'Hello <b>stage</b> & all', deletedAt: null });
    const second = await sendChat(stack, site, token, panelId, 'again');
    expect(second.body.seq).toBe(2);
  });

  it('gives concurrent messages of one room distinct consecutive seqs', async () => {
    const panelId = await createChatPanel(stack, site);
    const tokens = await Promise.all(Array.from({ length: 12 }, () => site.token([])));
    const replies = await Promise.all(tokens.map((token, index) => sendChat(stack, site, token, panelId, `message ${index}`)));
    expect(replies.map((reply) => reply.status)).toEqual(tokens.map(() => 201));
    expect(replies.map((reply) => reply.body.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  });

  it('refuses bad text with 400 naming text, and stores nothing', async () => {
    const panelId = await createChatPanel(stack, site);
    const token = await site.token([]);
    for (const text of ['', '    ', 'x'.repeat(501), 'line\nbreak', 'bell\u0007', 'nul\u0000']) {
      const reply = await sendChat(stack, site, token, panelId, text);
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(reply.body.message).toMatch(/text/);
    }
    expect((await sendChat(stack, site, token, panelId, 'x'.repeat(500))).status).toBe(201);
    expect((await sendChat(stack, site, token, panelId, '😀'.repeat(500))).status).toBe(201);
    expect(await stored(panelId)).toBe(2);
  });

  it('needs a signed-in viewer: 401 without a JWT, nothing stored', async () => {
    const panelId = await createChatPanel(stack, site);
    const reply = await sendChat(stack, site, undefined, panelId, 'anonymous');
    expect(reply.status).toBe(401);
    expect(await stored(panelId)).toBe(0);
  });
});

describe('rules', () => {
  it('refuses filtered words as whole words, case-insensitive after NFKC, with * at the edges; admins are exempt', async () => {
    const panelId = await createChatPanel(stack, site, { filtered_words: 'darn, *heck\nfoo*, bad word, *mid*' });
    const token = await site.token([]);
    const refusedTexts = ['DARN it', 'oh ｄａｒｎ', 'well, darn!', 'flipheck', 'heck', 'foobar', 'a BAD  word here', 'amidst'];
    for (const text of refusedTexts) {
      const reply = await sendChat(stack, site, token, panelId, text);
      expect([text, reply.status]).toEqual([text, 400]);
      expect(reply.body.message).toMatch(/filters/);
    }
    expect(await stored(panelId)).toBe(0);
    for (const text of ['darned good', 'hecking', 'barfoo', 'bad words', 'badword']) {
      expect([text, (await sendChat(stack, site, token, panelId, text)).status]).toEqual([text, 201]);
    }
    expect((await sendChat(stack, site, moderator.token, panelId, 'darn, says the admin')).status).toBe(201);
  });

  it('refuses links from non-admins where allow_non_admin_links is false', async () => {
    const closed = await createChatPanel(stack, site, { allow_non_admin_links: false });
    const open = await createChatPanel(stack, site, { allow_non_admin_links: true });
    const token = await site.token([]);
    for (const text of [
      'see https://example.com/x',
      'go to example.com now',
      'www.example.org',
      '(shop.example.co.uk)',
      'HTTP://X.Y',
      'write me@example.com',
    ]) {
      const reply = await sendChat(stack, site, token, closed, text);
      expect([text, reply.status]).toEqual([text, 400]);
      expect(reply.body.message).toMatch(/link/);
    }
    expect(await stored(closed)).toBe(0);
    for (const text of ['pi is 3.14', 'e.g. this', 'end of sentence. Next one', 'ok...']) {
      expect([text, (await sendChat(stack, site, token, closed, text)).status]).toEqual([text, 201]);
    }
    expect((await sendChat(stack, site, moderator.token, closed, 'https://example.com from the admin')).status).toBe(201);
    expect((await sendChat(stack, site, token, open, 'https://example.com')).status).toBe(201);
  });

  it('slow mode: one message per slow_mode_seconds per account, 429 with Retry-After; admins exempt', async () => {
    const panelId = await createChatPanel(stack, site, { slow_mode_seconds: 60 });
    const token = await site.token([]);
    expect((await sendChat(stack, site, token, panelId, 'first')).status).toBe(201);
    const again = await sendChat(stack, site, token, panelId, 'second');
    expect(again.status).toBe(429);
    expect(again.body.message).toMatch(/slow mode/);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await sendChat(stack, site, await site.token([]), panelId, 'someone else')).status).toBe(201);
    expect((await sendChat(stack, site, moderator.token, panelId, 'admin 1')).status).toBe(201);
    expect((await sendChat(stack, site, moderator.token, panelId, 'admin 2')).status).toBe(201);
    expect(await stored(panelId)).toBe(4);
  });

  it('allows 20 messages per 30 s per account across the site’s chats, then 429', async () => {
    const first = await createChatPanel(stack, site);
    const second = await createChatPanel(stack, site);
    const token = await site.token([]);
    for (let index = 0; index < 20; index += 1) expect((await sendChat(stack, site, token, index % 2 ? first : second, `m${index}`)).status).toBe(201);
    const refused = await sendChat(stack, site, token, first, 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/20 messages per 30 s/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await stored(first)) + (await stored(second))).toBe(20);
  });

  it('applies a change of the panel’s settings to the next message', async () => {
    const panelId = await createChatPanel(stack, site);
    const token = await site.token([]);
    expect((await sendChat(stack, site, token, panelId, 'gosh')).status).toBe(201);
    const patched = await rest(stack, 'PATCH', `/panel/v3/${panelId}`, { headers: site.admin, body: { renderer: { filtered_words: 'gosh' } } });
    expect(patched.status).toBe(200);
    expect((await sendChat(stack, site, token, panelId, 'gosh')).status).toBe(400);
  });

  it('answers 404 for a panel that is no chat, an unknown one and another site’s', async () => {
    const token = await site.token([]);
    const store = await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: site.siteId, renderer: { panel_type: 'store' } } });
    const othersChat = await createChatPanel(stack, other);
    for (const panelId of [store.body._id, 'nope', othersChat]) {
      const reply = await sendChat(stack, site, token, panelId, 'hello');
      expect(reply.status).toBe(404);
      expect((await rest(stack, 'GET', `/chat/v1/${panelId}/messages`, { headers: viewer(site) })).status).toBe(404);
    }
    expect(await stored(othersChat)).toBe(0);
  });
});

describe('moderation', () => {
  it('deletes a message: gone from history; 404 again and for another site’s admin', async () => {
    const panelId = await createChatPanel(stack, site);
    const token = await site.token([]);
    const sent = await sendChat(stack, site, token, panelId, 'regrettable');
    await sendChat(stack, site, token, panelId, 'fine');
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${sent.body.id}`, { headers: other.admin })).status).toBe(404);
    const viewerDelete = await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${sent.body.id}`, { headers: viewer(site, token) });
    expect(viewerDelete.status).toBe(403);
    const deleted = await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${sent.body.id}`, { headers: viewer(site, moderator.token) });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, id: sent.body.id });
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${sent.body.id}`, { headers: site.admin })).status).toBe(404);
    const history = await rest(stack, 'GET', `/chat/v1/${panelId}/messages`, { headers: viewer(site) });
    expect(history.body.results.map((message: { text: string }) => message.text)).toEqual(['fine']);
  });

  it('times out and bans an account in all the site’s chats (403 saying until when), lists and lifts bans', async () => {
    const panelId = await createChatPanel(stack, site);
    const { accountId, token } = await site.signIn([]);
    await sendChat(stack, site, token, panelId, 'before the timeout');
    const timeout = await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId, durationSeconds: 600, reason: 'spam' } });
    expect(timeout.status).toBe(201);
    expect(timeout.body).toEqual({ accountId, until: expect.any(Number), reason: 'spam', created: expect.any(Number) });
    const refused = await sendChat(stack, site, token, panelId, 'let me talk');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(new Date(timeout.body.until).toISOString());
    // The last 10 minutes of its messages are cleared.
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/messages`, { headers: viewer(site) })).body.results).toEqual([]);

    const ban = await rest(stack, 'POST', '/chat/v1/bans', { headers: viewer(site, moderator.token), body: { accountId } });
    expect(ban.body.until).toBeNull();
    expect((await sendChat(stack, site, token, await createChatPanel(stack, site), 'elsewhere')).body.message).toMatch(/banned/);
    const list = await rest(stack, 'GET', '/chat/v1/bans', { headers: site.admin });
    expect(list.body).toEqual({ success: true, results: [expect.objectContaining({ accountId, until: null })] });
    expect((await rest(stack, 'GET', '/chat/v1/bans', { headers: other.admin })).body.results).toEqual([]);
    expect((await rest(stack, 'DELETE', `/chat/v1/bans/${accountId}`, { headers: other.admin })).status).toBe(404);
    expect((await rest(stack, 'DELETE', `/chat/v1/bans/${accountId}`, { headers: site.admin })).body).toEqual({ success: true, accountId });
    expect((await sendChat(stack, site, token, panelId, 'back')).status).toBe(201);
    expect((await rest(stack, 'DELETE', `/chat/v1/bans/${accountId}`, { headers: site.admin })).status).toBe(404);
  });

  it('refuses bad bans: durations out of range (400 naming durationSeconds), another site’s account (404), viewers (403)', async () => {
    const { accountId } = await site.signIn([]);
    for (const durationSeconds of [0, 1_209_601, 1.5, -3]) {
      const reply = await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId, durationSeconds } });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(/durationSeconds/);
    }
    const stranger = await other.signIn([]);
    expect((await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId: stranger.accountId } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/chat/v1/bans', { headers: viewer(site, await site.token([])), body: { accountId } })).status).toBe(403);
    expect(await stack.database.prisma.chatBan.count({ where: { accountId: { in: [accountId, stranger.accountId] } } })).toBe(0);
  });
});

describe('history', () => {
  it('pages back with before, oldest first within a page, with the site ID alone', async () => {
    const panelId = await createChatPanel(stack, site);
    const tokens = await Promise.all(Array.from({ length: 7 }, () => site.token([])));
    for (const [index, token] of tokens.entries()) await sendChat(stack, site, token, panelId, `m${index + 1}`);
    const first = await rest(stack, 'GET', `/chat/v1/${panelId}/messages?limit=3`, { headers: viewer(site) });
    expect(first.status).toBe(200);
    expect(first.body.results.map((message: { seq: number }) => message.seq)).toEqual([5, 6, 7]);
    expect(first.body.pagination).toEqual({ limit: 3, before: null, nextBefore: 5 });
    const second = await rest(stack, 'GET', `/chat/v1/${panelId}/messages?limit=3&before=5`, { headers: viewer(site) });
    expect(second.body.results.map((message: { text: string }) => message.text)).toEqual(['m2', 'm3', 'm4']);
    const last = await rest(stack, 'GET', `/chat/v1/${panelId}/messages?limit=3&before=2`, { headers: viewer(site) });
    expect(last.body).toEqual({ results: [expect.objectContaining({ seq: 1 })], pagination: { limit: 3, before: 2, nextBefore: null } });
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/messages?limit=0`, { headers: viewer(site) })).status).toBe(400);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/messages?before=-1`, { headers: viewer(site) })).status).toBe(400);
  });

  it('is the same over GraphQL, where sendChatMessage refusals carry their rule', async () => {
    const panelId = await createChatPanel(stack, site, { filtered_words: 'nope' });
    const token = await site.token([]);
    const headers = viewer(site, token);
    const sent = await graphql(
      stack,
      /* GraphQL */ `mutation ($panelId: ID!) { sendChatMessage(panelId: $panelId, text: "via graphql") { seq author { name } } }`,
      { panelId },
      headers,
    );
    expect(sent.body.data?.sendChatMessage).toMatchObject({ seq: 1 });
    const refused = await graphql(
      stack,
      /* GraphQL */ `mutation ($panelId: ID!) { sendChatMessage(panelId: $panelId, text: "nope") { seq } }`,
      { panelId },
      headers,
    );
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', rule: 'filtered_word', field: 'text' });
    const history = await graphql(
      stack,
      /* GraphQL */ `query ($panelId: ID!) { chatMessages(panelId: $panelId) { results { text } } }`,
      { panelId },
      viewer(site),
    );
    expect(history.body.data?.chatMessages.results).toEqual([{ text: 'via graphql' }]);
  });
});

describe('tenancy and hostile input', () => {
  it('another site’s token with this site’s ID is refused, and this site’s chat is 404 for another site', async () => {
    const panelId = await createChatPanel(stack, site);
    const stranger = await other.token([]);
    expect((await sendChat(stack, site, stranger, panelId, 'hi')).status).toBe(401);
    expect((await sendChat(stack, other, stranger, panelId, 'hi')).status).toBe(404);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/messages`, { headers: viewer(other) })).status).toBe(404);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/replay?liveBroadcastId=x`, { headers: viewer(other) })).status).toBe(404);
    expect(await stored(panelId)).toBe(0);
  });

  it('answers hostile input with 4xx, never a 5xx', async () => {
    const panelId = await createChatPanel(stack, site);
    const token = await site.token([]);
    const bodies = [{ text: 42 }, { text: null }, { text: ['a'] }, { text: '\ud800lone' }, { text: 'a'.repeat(5000) }, { text: 'ok', extra: 1 }, {}];
    for (const body of bodies) {
      const reply = await rest(stack, 'POST', `/chat/v1/${panelId}/messages`, { headers: viewer(site, token), body });
      expect([JSON.stringify(body).slice(0, 40), reply.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
    }
    for (const path of [
      `/chat/v1/${panelId}/messages?before=1e300`,
      `/chat/v1/${panelId}/messages?limit=abc`,
      `/chat/v1/${panelId}/replay`,
      `/chat/v1/${panelId}/replay?liveBroadcastId=a&videoId=b`,
      `/chat/v1/${panelId}/replay?liveBroadcastId=a&fromSecond=9&toSecond=3`,
    ]) {
      const reply = await rest(stack, 'GET', path, { headers: viewer(site) });
      expect([path, reply.status]).toEqual([path, 400]);
    }
    const huge = await rest(stack, 'GET', `/chat/v1/${'x'.repeat(3000)}/messages`, { headers: viewer(site) });
    expect(huge.status).toBeLessThan(500);
    expect(await stored(panelId)).toBe(0);
  });
});
