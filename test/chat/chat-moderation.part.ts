/**
 * Chat that moderators can run, over REST and GraphQL: the room's moderation settings and their checks,
 * the held queue (202 held, the queue for moderators only, approve and deny exactly once, the seq taken
 * at approval), chat modes (announcements only, subscribers only), the delay (a message deleted within
 * it never reaches a viewer), reports (once per account and message) and warnings that block sending
 * until acknowledged; the chatModeration subscription over graphql-ws and SSE; tenancy (another site's
 * panel or message is 404) and a viewer on a moderator route (403); a held or delayed message can be neither
 * pinned nor answered until it reaches the room.
 */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createChatPanel, sendChat, watchChat } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { graphql, rest } from '../helpers/http';
import { closeHttpViewers, openHttpViewer } from '../helpers/httpViewer';
import { createChannel, createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { connectClient } from '../helpers/viewer';
import { until } from '../helpers/wait';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let moderator: { accountId: string; token: string };
const clients: Client[] = [];

const MODERATOR = [{ pageId: [], scope: 'Panels', write: true }];

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Moderated chat');
  other = await createTestSite(stack, 'Other chat site');
  moderator = await site.signIn(MODERATOR);
});
afterEach(() => closeHttpViewers());
afterAll(() => stopAllWithClients(clients));

const mod = () => viewer(site, moderator.token);
const queue = (panelId: string, headers = site.admin) => rest(stack, 'GET', `/chat/v1/${panelId}/held`, { headers });
const decide = (panelId: string, id: string, decision: 'approve' | 'deny', headers = site.admin) =>
  rest(stack, 'POST', `/chat/v1/${panelId}/held/${id}/${decision}`, { headers });
const history = async (panelId: string) =>
  (await rest(stack, 'GET', `/chat/v1/${panelId}/messages`, { headers: viewer(site) })).body.results.map((message: { text: string; seq: number }) => [
    message.seq,
    message.text,
  ]);

describe('settings', () => {
  it('refuses bad moderation settings with 400 naming the field, and keeps good ones', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ chat_mode: 'friends' }, 'renderer.chat_mode'],
      [{ chat_mode: 3 }, 'renderer.chat_mode'],
      [{ delay_seconds: 31 }, 'renderer.delay_seconds'],
      [{ delay_seconds: -1 }, 'renderer.delay_seconds'],
      [{ delay_seconds: 2.5 }, 'renderer.delay_seconds'],
      [{ hold_new_accounts_seconds: -5 }, 'renderer.hold_new_accounts_seconds'],
      [{ hold_new_accounts_seconds: 'a day' }, 'renderer.hold_new_accounts_seconds'],
      [{ hold_words: ['spam'] }, 'renderer.hold_words'],
    ];
    for (const [settings, field] of bad) {
      const reply = await rest(stack, 'POST', '/panel/v3/', {
        headers: site.admin,
        body: { siteId: site.siteId, renderer: { panel_type: 'chat', ...settings } },
      });
      expect([field, reply.status, reply.body.success]).toEqual([field, 400, false]);
      expect(reply.body.message).toContain(field);
    }
    const panelId = await createChatPanel(stack, site, { chat_mode: 'entitled', hold_words: 'spam', hold_new_accounts_seconds: 60, delay_seconds: 30 });
    const state = await rest(stack, 'GET', `/chat/v1/${panelId}/me`, { headers: mod() });
    expect(state.body).toEqual({ mode: 'entitled', moderator: true, canSend: true, refusal: null, warning: null, delaySeconds: 30 });
  });
});

describe('the held queue', () => {
  it('holds a message with a hold word (202 held, seq 0, not in history) for moderators only, and approves it once into the next seq', async () => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'giveaway' });
    const author = await site.signIn([]);
    expect((await sendChat(stack, site, author.token, panelId, 'first')).body.seq).toBe(1);
    const held = await sendChat(stack, site, author.token, panelId, 'free GIVEAWAY here');
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({ seq: 0, held: true, dueAt: null, text: 'free GIVEAWAY here', author: { accountId: author.accountId } });
    expect((await sendChat(stack, site, author.token, panelId, 'second')).body.seq).toBe(2);
    expect(await history(panelId)).toEqual([
      [1, 'first'],
      [2, 'second'],
    ]);

    const listed = await queue(panelId, mod());
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      success: true,
      held: [
        { id: held.body.id, panelId, text: 'free GIVEAWAY here', accountId: author.accountId, reason: 'hold_word', created: expect.any(Number), dueAt: null },
      ],
      reports: [],
    });
    // Viewers never see the queue nor decide; another site's admin finds no such room.
    expect((await queue(panelId, viewer(site, author.token))).status).toBe(403);
    expect((await decide(panelId, held.body.id, 'approve', viewer(site, author.token))).status).toBe(403);
    expect((await queue(panelId, other.admin)).status).toBe(404);
    expect((await decide(panelId, held.body.id, 'approve', other.admin)).status).toBe(404);

    const [approved, again] = await Promise.all([decide(panelId, held.body.id, 'approve'), decide(panelId, held.body.id, 'approve')]);
    expect([approved.status, again.status].sort()).toEqual([200, 409]);
    const winner = approved.status === 200 ? approved : again;
    expect(winner.body).toMatchObject({ id: held.body.id, seq: 3, text: 'free GIVEAWAY here', held: false });
    expect((await decide(panelId, held.body.id, 'deny')).body.message).toMatch(/already approved/);
    expect(await history(panelId)).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'free GIVEAWAY here'],
    ]);
    expect(await stack.database.prisma.chatMessage.count({ where: { panelId } })).toBe(3);
    expect((await queue(panelId)).body.held).toEqual([]);
  });

  it('denies once: the message never reaches the room; unknown ids are 404', async () => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'scam' });
    const token = await site.token([]);
    const held = await sendChat(stack, site, token, panelId, 'a scam');
    expect(held.status).toBe(202);
    expect((await decide(panelId, held.body.id, 'deny', mod())).body).toEqual({ success: true, id: held.body.id });
    expect((await decide(panelId, held.body.id, 'deny')).status).toBe(409);
    expect((await decide(panelId, held.body.id, 'approve')).status).toBe(409);
    expect((await decide(panelId, 'no-such-message', 'approve')).status).toBe(404);
    expect((await decide('no-such-panel', held.body.id, 'approve')).status).toBe(404);
    expect(await history(panelId)).toEqual([]);
  });

  it('holds new accounts’ messages; moderators are never held', async () => {
    const panelId = await createChatPanel(stack, site, { hold_new_accounts_seconds: 3600, hold_words: 'anything' });
    const fresh = await site.signIn([]);
    const reply = await sendChat(stack, site, fresh.token, panelId, 'hello');
    expect([reply.status, reply.body.held]).toEqual([202, true]);
    expect((await queue(panelId)).body.held.map((entry: { reason: string }) => entry.reason)).toEqual(['new_account']);
    const own = await sendChat(stack, site, moderator.token, panelId, 'anything goes for moderators');
    expect([own.status, own.body.seq, own.body.held]).toEqual([201, 1, false]);
  });

  it('is served over GraphQL: the queue, approve and deny', async () => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'hold' });
    const token = await site.token([]);
    const send = (text: string) =>
      graphql(
        stack,
        `mutation ($p: ID!, $t: String!) { sendChatMessage(panelId: $p, text: $t) { id seq held dueAt } }`,
        { p: panelId, t: text },
        viewer(site, token),
      );
    const one = (await send('hold one')).body.data.sendChatMessage;
    const two = (await send('hold two')).body.data.sendChatMessage;
    expect([one.seq, one.held, one.dueAt]).toEqual([0, true, null]);
    const listed = await graphql(
      stack,
      `query ($p: ID!) { chatModerationQueue(panelId: $p) { held { id reason } reports { id } } }`,
      { p: panelId },
      site.admin,
    );
    expect(listed.body.data.chatModerationQueue.held).toEqual([
      { id: one.id, reason: 'hold_word' },
      { id: two.id, reason: 'hold_word' },
    ]);
    const refused = await graphql(stack, `query ($p: ID!) { chatModerationQueue(panelId: $p) { held { id } } }`, { p: panelId }, viewer(site, token));
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const approved = await graphql(
      stack,
      `mutation ($p: ID!, $id: ID!) { approveChatMessage(panelId: $p, id: $id) { seq text } }`,
      { p: panelId, id: two.id },
      site.admin,
    );
    expect(approved.body.data.approveChatMessage).toEqual({ seq: 1, text: 'hold two' });
    const denied = await graphql(
      stack,
      `mutation ($p: ID!, $id: ID!) { denyChatMessage(panelId: $p, id: $id) { success id } }`,
      { p: panelId, id: one.id },
      site.admin,
    );
    expect(denied.body.data.denyChatMessage).toEqual({ success: true, id: one.id });
    const twice = await graphql(stack, `mutation ($p: ID!, $id: ID!) { denyChatMessage(panelId: $p, id: $id) { id } }`, { p: panelId, id: one.id }, site.admin);
    expect(twice.body.errors?.[0].extensions?.code).toBe('CONFLICT');
  });
});

describe('pins and replies of waiting messages', () => {
  const pin = (panelId: string, messageId: string) => rest(stack, 'POST', `/chat/v1/${panelId}/pin`, { headers: mod(), body: { messageId } });
  const reply = (panelId: string, token: string, replyTo: string) =>
    rest(stack, 'POST', `/chat/v1/${panelId}/messages`, { headers: viewer(site, token), body: { text: 'me too', replyTo } });

  it('refuses to pin or answer a held message (400 naming messageId / replyTo, nothing stored) until it is approved', async () => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'giveaway' });
    const author = await site.signIn([]);
    const answering = await site.signIn([]);
    const held = await sendChat(stack, site, author.token, panelId, 'a giveaway for all');
    expect(held.status).toBe(202);

    const pinned = await pin(panelId, held.body.id);
    expect([pinned.status, pinned.body.success]).toEqual([400, false]);
    expect(pinned.body.message).toMatch(/^messageId: .*held for review/);
    const answered = await reply(panelId, answering.token, held.body.id);
    expect([answered.status, answered.body.success]).toEqual([400, false]);
    expect(answered.body.message).toMatch(/^replyTo: .*held for review/);
    expect(await stack.database.prisma.chatPin.findUnique({ where: { panelId } })).toBeNull();
    expect(await stack.database.prisma.chatMessage.count({ where: { panelId } })).toBe(0);
    expect(await stack.database.prisma.chatHeld.count({ where: { panelId } })).toBe(1);

    expect((await decide(panelId, held.body.id, 'approve', mod())).status).toBe(200);
    expect((await pin(panelId, held.body.id)).body).toMatchObject({ messageId: held.body.id, text: 'a giveaway for all' });
    const after = await reply(panelId, answering.token, held.body.id);
    expect([after.status, after.body.seq]).toEqual([201, 2]);
    expect(after.body.replyTo).toEqual({ id: held.body.id, name: author.accountId, excerpt: 'a giveaway for all' });
  });

  it('refuses to pin or answer a message still in its delay, and a held reply keeps what it answers through approval', async () => {
    const delayed = await createChatPanel(stack, site, { delay_seconds: 30 });
    const author = await site.signIn([]);
    const waiting = await sendChat(stack, site, author.token, delayed, 'soon');
    expect([waiting.status, waiting.body.dueAt]).toEqual([202, expect.any(Number)]);
    expect((await pin(delayed, waiting.body.id)).body.message).toMatch(/^messageId: .*still in its delay/);
    expect((await reply(delayed, author.token, waiting.body.id)).body.message).toMatch(/^replyTo: .*still in its delay/);
    expect(await stack.database.prisma.chatPin.findUnique({ where: { panelId: delayed } })).toBeNull();
    expect(await stack.database.prisma.chatHeld.count({ where: { panelId: delayed } })).toBe(1);

    const holding = await createChatPanel(stack, site, { hold_words: 'giveaway' });
    const first = await sendChat(stack, site, author.token, holding, 'welcome all');
    const answer = await rest(stack, 'POST', `/chat/v1/${holding}/messages`, {
      headers: viewer(site, author.token),
      body: { text: 'a giveaway?', replyTo: first.body.id },
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ held: true, seq: 0, replyTo: { id: first.body.id, excerpt: 'welcome all' } });
    const approved = await decide(holding, answer.body.id, 'approve', mod());
    expect(approved.body).toMatchObject({ seq: 2, held: false, replyTo: { id: first.body.id, name: author.accountId, excerpt: 'welcome all' } });
    expect((await rest(stack, 'GET', `/chat/v1/${holding}/messages`, { headers: viewer(site) })).body.results[1].replyTo).toEqual({
      id: first.body.id,
      name: author.accountId,
      excerpt: 'welcome all',
    });
  });
});

describe('chat modes', () => {
  it('announcements only (admins): viewers get 403 naming the mode, moderators send', async () => {
    const panelId = await createChatPanel(stack, site, { chat_mode: 'admins' });
    const token = await site.token([]);
    const refused = await sendChat(stack, site, token, panelId, 'can I talk?');
    expect([refused.status, refused.body.success]).toEqual([403, false]);
    expect(refused.body.message).toMatch(/announcements-only/);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/me`, { headers: viewer(site, token) })).body).toMatchObject({
      mode: 'admins',
      canSend: false,
      refusal: 'admins',
    });
    expect((await sendChat(stack, site, moderator.token, panelId, 'Announcement')).status).toBe(201);
    expect(await history(panelId)).toEqual([[1, 'Announcement']]);
  });

  it('subscribers only (entitled): the channel gate’s subscribers send, others get 403', async () => {
    const channelId = await createChannel(stack, site.siteId);
    const now = new Date();
    await stack.database.prisma.page.update({
      where: { id: channelId },
      data: { document: { data: { name: 'Finals', gate: { active: true, kind: 'entitlement', gate: { subscriptions: [{ sku: 'vip-pass' }] } } } } },
    });
    const entitlement = await stack.database.prisma.entitlement.create({
      data: { id: `ent-${channelId}`, siteId: site.siteId, sku: 'vip-pass', name: 'VIP', prices: [], tags: [], createdAt: now, updatedAt: now },
    });
    const panelId = await createChatPanel(stack, site, { chat_mode: 'entitled', channel: channelId });
    const subscriber = await site.signIn([]);
    await stack.database.prisma.subscription.create({
      data: {
        id: `sub-${channelId}`,
        siteId: site.siteId,
        accountId: subscriber.accountId,
        entitlementId: entitlement.id,
        status: 'active',
        grantedMethod: 'admin',
      },
    });
    const outsider = await site.token([]);
    const refused = await sendChat(stack, site, outsider, panelId, 'let me in');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/subscribers only/);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/me`, { headers: viewer(site, outsider) })).body).toMatchObject({
      mode: 'entitled',
      canSend: false,
      refusal: 'entitled',
    });
    expect((await sendChat(stack, site, subscriber.token, panelId, 'a subscriber')).status).toBe(201);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/me`, { headers: viewer(site, subscriber.token) })).body).toMatchObject({
      canSend: true,
      refusal: null,
    });
  });
});

describe('the delay', () => {
  it('answers 202 with dueAt, shows the author’s message to viewers only once due, and a delete within it wins', async () => {
    const panelId = await createChatPanel(stack, site, { delay_seconds: 5 });
    const token = await site.token([]);
    const watcher = watchChat(stack, site.siteId, panelId, clients);
    await watcher.until(() => true);
    const gone = await sendChat(stack, site, token, panelId, 'deleted within the delay');
    expect([gone.status, gone.body.seq, gone.body.held]).toEqual([202, 0, false]);
    expect(gone.body.dueAt).toBeGreaterThan(Date.now());
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${gone.body.id}`, { headers: mod() })).status).toBe(200);
    const kept = await sendChat(stack, site, token, panelId, 'witness');
    const arrived = await watcher.until((event) => event.messages.some((message: { text: string }) => message.text === 'witness'));
    // Not before its delay (dueAt is on the server's clock, which is this machine's).
    expect(Date.now()).toBeGreaterThanOrEqual(kept.body.dueAt);
    expect(arrived.messages.map((message: { text: string; seq: number }) => [message.seq, message.text])).toEqual([[1, 'witness']]);
    expect(watcher.events.flatMap((event) => event.messages.map((message: { text: string }) => message.text))).toEqual(['witness']);
    expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${gone.body.id}`, { headers: mod() })).status).toBe(404);
  });

  it('drops the waiting messages of an account banned within the delay', async () => {
    const panelId = await createChatPanel(stack, site, { delay_seconds: 5 });
    const banned = await site.signIn([]);
    const watcher = watchChat(stack, site.siteId, panelId, clients);
    await watcher.until(() => true);
    expect((await sendChat(stack, site, banned.token, panelId, 'spam in the delay')).status).toBe(202);
    expect((await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId: banned.accountId } })).status).toBe(201);
    const witness = await sendChat(stack, site, await site.token([]), panelId, 'witness');
    await watcher.until((event) => event.messages.some((message: { text: string }) => message.text === 'witness'));
    expect(watcher.events.flatMap((event) => event.messages.map((message: { text: string }) => message.text))).toEqual(['witness']);
    expect(await stack.database.prisma.chatHeld.findUnique({ where: { id: witness.body.id } })).toMatchObject({ status: 'published' });
  });
});

describe('reports', () => {
  it('stores one report per account and message (a second is 409, nothing stored) into the queue', async () => {
    const panelId = await createChatPanel(stack, site);
    const author = await site.token([]);
    const reporter = await site.token([]);
    const message = (await sendChat(stack, site, author, panelId, 'rude words')).body;
    const report = (headers: Record<string, string>, body: unknown, id = message.id, room = panelId) =>
      rest(stack, 'POST', `/chat/v1/${room}/messages/${id}/report`, { headers, body });
    const first = await report(viewer(site, reporter), { reason: '  insulting  ' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ messageId: message.id, panelId, reason: 'insulting', text: 'rude words' });
    expect((await report(viewer(site, reporter), { reason: 'again' })).status).toBe(409);
    expect((await report(viewer(site, reporter), { reason: '   ' })).body.message).toMatch(/reason/);
    expect((await report(viewer(site, reporter), {})).status).toBe(400);
    expect((await report(viewer(site), { reason: 'anonymous' })).status).toBe(401);
    expect((await report(viewer(site, reporter), { reason: 'x' }, 'no-such-message')).status).toBe(404);
    expect((await report(viewer(other, await other.token([])), { reason: 'x' })).status).toBe(404);
    expect(await stack.database.prisma.chatReport.count({ where: { messageId: message.id } })).toBe(1);
    const listed = (await queue(panelId)).body.reports;
    expect(listed).toEqual([expect.objectContaining({ id: first.body.id, messageId: message.id, reason: 'insulting' })]);
    const viaGraphql = await graphql(
      stack,
      `mutation ($p: ID!, $id: ID!) { reportChatMessage(panelId: $p, id: $id, reason: "spam") { reason } }`,
      { p: panelId, id: message.id },
      viewer(site, author),
    );
    expect(viaGraphql.body.data.reportChatMessage).toEqual({ reason: 'spam' });
  });
});

describe('warnings', () => {
  it('blocks the warned account with 403 naming the warning until it acknowledges', async () => {
    const panelId = await createChatPanel(stack, site);
    const warned = await site.signIn([]);
    const warn = (headers: Record<string, string>, body: unknown) => rest(stack, 'POST', '/chat/v1/warnings', { headers, body });
    expect((await warn(viewer(site, warned.token), { accountId: warned.accountId, reason: 'no' })).status).toBe(403);
    expect((await warn(site.admin, { accountId: warned.accountId, reason: '' })).body.message).toMatch(/reason/);
    expect((await warn(site.admin, { accountId: 'no-such-account', reason: 'x' })).status).toBe(404);
    expect((await warn(other.admin, { accountId: warned.accountId, reason: 'x' })).status).toBe(404);
    const warning = await warn(mod(), { accountId: warned.accountId, reason: 'Keep it civil' });
    expect(warning.status).toBe(201);
    expect(warning.body).toEqual({
      id: expect.any(String),
      accountId: warned.accountId,
      reason: 'Keep it civil',
      created: expect.any(Number),
      acknowledged: null,
    });
    const refused = await sendChat(stack, site, warned.token, panelId, 'hello?');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/warning.*Keep it civil/);
    expect((await rest(stack, 'GET', `/chat/v1/${panelId}/me`, { headers: viewer(site, warned.token) })).body).toMatchObject({
      canSend: false,
      warning: { reason: 'Keep it civil' },
    });
    const ack = await rest(stack, 'POST', '/chat/v1/warnings/ack', { headers: viewer(site, warned.token) });
    expect(ack.body).toEqual({ success: true, acknowledged: 1 });
    expect((await rest(stack, 'POST', '/chat/v1/warnings/ack', { headers: viewer(site, warned.token) })).status).toBe(404);
    expect((await sendChat(stack, site, warned.token, panelId, 'sorry')).status).toBe(201);
    const viaGraphql = await graphql(
      stack,
      `mutation ($a: ID!) { warnChatAccount(accountId: $a, reason: "twice") { reason acknowledged } }`,
      { a: warned.accountId },
      site.admin,
    );
    expect(viaGraphql.body.data.warnChatAccount).toEqual({ reason: 'twice', acknowledged: null });
    const acked = await graphql(stack, `mutation { acknowledgeChatWarning { acknowledged } }`, {}, viewer(site, warned.token));
    expect(acked.body.data.acknowledgeChatWarning).toEqual({ acknowledged: 1 });
  });
});

const MODERATION = /* GraphQL */ `subscription ($panelId: ID!) {
  chatModeration(panelId: $panelId) { kind id decision held { id reason text accountId dueAt } reports { id messageId reason } }
}`;

describe('the chatModeration subscription', () => {
  it('gives moderators the queue, then held messages, reports and decisions (graphql-ws); viewers are refused', async () => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'hold' });
    const token = await site.token([]);
    const early = await sendChat(stack, site, token, panelId, 'hold early');
    const events: any[] = [];
    const client = connectClient(stack, { 'x-service-client-id': site.siteId, Authorization: `Bearer ${moderator.token}` });
    clients.push(client);
    client.subscribe(
      { query: MODERATION, variables: { panelId } },
      { next: (result) => void events.push(result.data?.chatModeration), error: () => undefined, complete: () => undefined },
    );
    await until(
      () => events,
      (got) => got.length >= 1,
      'the queue',
    );
    expect(events[0]).toMatchObject({ kind: 'QUEUE', held: [{ id: early.body.id, reason: 'hold_word' }], reports: [] });
    const late = await sendChat(stack, site, token, panelId, 'hold late');
    const heldLate = (event: any) => event.kind === 'HELD' && event.held[0]?.id === late.body.id;
    await until(
      () => events,
      (got) => got.some(heldLate),
      'a HELD event',
    );
    expect(events.find(heldLate).held).toEqual([
      { id: late.body.id, reason: 'hold_word', text: 'hold late', accountId: late.body.author.accountId, dueAt: null },
    ]);
    await decide(panelId, late.body.id, 'deny');
    await until(
      () => events,
      (got) => got.some((event) => event.kind === 'DECIDED'),
      'a DECIDED event',
    );
    expect(events.find((event) => event.kind === 'DECIDED')).toMatchObject({ id: late.body.id, decision: 'denied' });
    const spoken = await sendChat(stack, site, moderator.token, panelId, 'a message to report');
    await rest(stack, 'POST', `/chat/v1/${panelId}/messages/${spoken.body.id}/report`, { headers: viewer(site, token), body: { reason: 'test' } });
    await until(
      () => events,
      (got) => got.some((event) => event.kind === 'REPORTED'),
      'a REPORTED event',
    );
    expect(events.find((event) => event.kind === 'REPORTED').reports).toEqual([{ id: expect.any(String), messageId: spoken.body.id, reason: 'test' }]);

    const refusedClient = connectClient(stack, { 'x-service-client-id': site.siteId, Authorization: `Bearer ${token}` });
    clients.push(refusedClient);
    const refusal = await new Promise<any>((resolve) =>
      refusedClient.subscribe(
        { query: MODERATION, variables: { panelId } },
        { next: (result) => resolve(result), error: (error) => resolve({ errors: error }), complete: () => undefined },
      ),
    );
    expect(JSON.stringify(refusal.errors)).toMatch(/FORBIDDEN|permission|Panels/);
    // Another site's moderator finds no such room.
    const otherModerator = connectClient(stack, { 'x-service-client-id': other.siteId, Authorization: `Bearer ${await other.token(MODERATOR)}` });
    clients.push(otherModerator);
    const elsewhere = await new Promise<any>((resolve) =>
      otherModerator.subscribe(
        { query: MODERATION, variables: { panelId } },
        { next: (result) => resolve(result), error: (error) => resolve({ errors: error }), complete: () => undefined },
      ),
    );
    expect(JSON.stringify(elsewhere.errors)).toMatch(/NOT_FOUND|not found/);
  });

  it.each(['sse', 'multipart'] as const)('is served over %s with the same events', async (transport) => {
    const panelId = await createChatPanel(stack, site, { hold_words: 'hold' });
    const sse = await openHttpViewer(stack, transport, { query: MODERATION, variables: { panelId }, headers: site.admin });
    const first = await sse.next();
    expect(first.data.chatModeration).toMatchObject({ kind: 'QUEUE', held: [], reports: [] });
    const held = await sendChat(stack, site, await site.token([]), panelId, 'hold this');
    const next = await sse.next();
    expect(next.data.chatModeration).toMatchObject({ kind: 'HELD', held: [{ id: held.body.id }] });
    const refused = await openHttpViewer(stack, transport, { query: MODERATION, variables: { panelId }, headers: viewer(site) });
    await refused.until((viewer) => viewer.results.length > 0 || viewer.transportErrors.length > 0 || viewer.completed || viewer.status >= 400);
    expect(JSON.stringify([refused.status, refused.body, refused.results, refused.transportErrors])).toMatch(/UNAUTHENTICATED|FORBIDDEN|required/);
  });
});
