/**
 * Chat moderation across two instances sharing one database (PostgreSQL + Redis when set, else SQLite and
 * an in-process bus): a held message approved on one instance reaches the other's viewers in the room's
 * seq order and a denied one reaches no one; approve is decided once whichever instance asks; with
 * `delay_seconds` 5 a message deleted within the delay on the other instance never reaches a viewer; an
 * instance that starts gives back what a stopped one claimed but never stored.
 * Waits are on conditions: a witness message sent after the others, seen by every viewer, proves what
 * came before it was delivered or never will be.
 */
import type { Client } from 'graphql-ws';
import { createMemoryBus } from '../../shared/bus/memory';
import type { Stack } from '../../stack';
import { createChatPanel, range, sendChat, watchChat, type ChatWatcher } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';

let first: Stack;
let second: Stack;
let site: TestSite;
let moderator: string;
const clients: Client[] = [];

const bus = createMemoryBus();

beforeAll(async () => {
  first = await startTestStack({ bus: usingRedis ? undefined : bus });
  second = await startTestStack({ sameDeploymentAs: first, bus: usingRedis ? undefined : bus });
  site = await createTestSite(first, 'Moderated fleet chat');
  moderator = await site.token([{ pageId: [], scope: 'Panels', write: true }]);
});
afterAll(() => stopAllWithClients(clients));

const texts = (watcher: ChatWatcher) =>
  watcher.events.flatMap((event) => event.messages.map((message: { seq: number; text: string }) => [message.seq, message.text]));

async function watchers(panelId: string): Promise<ChatWatcher[]> {
  const all = [
    watchChat(first, site.siteId, panelId, clients),
    watchChat(second, site.siteId, panelId, clients),
    watchChat(second, site.siteId, panelId, clients),
  ];
  await Promise.all(all.map((watcher) => watcher.until(() => true)));
  return all;
}

describe(`two instances (${usingRedis ? 'Redis' : 'shared in-process bus'})`, () => {
  it('a held message approved on one reaches the other’s viewers in seq order; a denied one reaches no one', async () => {
    const panelId = await createChatPanel(first, site, { hold_words: 'review' });
    const room = await watchers(panelId);
    const token = await site.token([]);
    expect((await sendChat(second, site, token, panelId, 'one')).body.seq).toBe(1);
    const approved = await sendChat(first, site, token, panelId, 'review me');
    const denied = await sendChat(second, site, token, panelId, 'review this too');
    expect([approved.status, denied.status]).toEqual([202, 202]);
    expect((await sendChat(first, site, token, panelId, 'two')).body.seq).toBe(2);
    // Both instances asked at once: one approval wins, the other is 409, and it is sent once.
    const decisions = await Promise.all(
      [first, second].map((on) => rest(on, 'POST', `/chat/v1/${panelId}/held/${approved.body.id}/approve`, { headers: site.admin })),
    );
    expect(decisions.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(decisions.find((reply) => reply.status === 200)?.body.seq).toBe(3);
    expect((await rest(second, 'POST', `/chat/v1/${panelId}/held/${denied.body.id}/deny`, { headers: viewer(site, moderator) })).status).toBe(200);
    expect((await sendChat(second, site, token, panelId, 'witness')).body.seq).toBe(4);
    for (const watcher of room) {
      expect(await watcher.untilSeqs((seqs) => seqs.includes(4))).toEqual(range(1, 4));
      expect(texts(watcher)).toEqual([
        [1, 'one'],
        [2, 'two'],
        [3, 'review me'],
        [4, 'witness'],
      ]);
    }
  });

  it('with delay_seconds 5, a message deleted within the delay on the other instance never reaches a viewer', async () => {
    const panelId = await createChatPanel(first, site, { delay_seconds: 5 });
    const room = await watchers(panelId);
    const token = await site.token([]);
    const gone = await sendChat(first, site, token, panelId, 'deleted within the delay');
    expect([gone.status, gone.body.seq]).toEqual([202, 0]);
    expect((await rest(second, 'DELETE', `/chat/v1/${panelId}/messages/${gone.body.id}`, { headers: viewer(site, moderator) })).status).toBe(200);
    // A moderator's message is not delayed: it is the room's first.
    const announcement = await sendChat(second, site, moderator, panelId, 'moderators are not delayed');
    expect([announcement.status, announcement.body.seq]).toEqual([201, 1]);
    const witness = await sendChat(second, site, token, panelId, 'witness');
    expect(witness.status).toBe(202);
    for (const watcher of room) {
      await watcher.until((event) => event.messages.some((message: { text: string }) => message.text === 'witness'));
      expect(texts(watcher)).toEqual([
        [1, 'moderators are not delayed'],
        [2, 'witness'],
      ]);
    }
    expect(Date.now()).toBeGreaterThanOrEqual(witness.body.dueAt);
    expect(await first.database.prisma.chatMessage.count({ where: { panelId, text: 'deleted within the delay' } })).toBe(0);
  });

  it('an instance that starts gives back what a stopped one claimed but never stored: a delayed message is published, a held one waits again', async () => {
    const panelId = await createChatPanel(first, site, { delay_seconds: 5 });
    const { accountId } = await site.signIn([]);
    const lost = new Date(Date.now() - 120_000);
    const row = { siteId: site.siteId, panelId, accountId, createdAt: lost, decidedAt: lost };
    // As an instance leaves them when it stops between the claim and the write.
    await first.database.prisma.chatHeld.createMany({
      data: [
        { ...row, id: `lost-delayed-${panelId}`, text: 'delayed, claimed, lost', reason: 'delay', status: 'published', dueAt: lost },
        { ...row, id: `lost-held-${panelId}`, text: 'approved, lost', reason: 'hold_word', status: 'approved', dueAt: null },
      ],
    });
    const third = await startTestStack({ sameDeploymentAs: first, bus: usingRedis ? undefined : bus });
    const watcher = watchChat(third, site.siteId, panelId, clients);
    await watcher.until((event) => event.messages.some((message: { text: string }) => message.text === 'delayed, claimed, lost'));
    expect(texts(watcher)).toEqual([[1, 'delayed, claimed, lost']]);
    const queue = await rest(third, 'GET', `/chat/v1/${panelId}/held`, { headers: site.admin });
    expect(queue.body.held.map((entry: { id: string }) => entry.id)).toEqual([`lost-held-${panelId}`]);
  });
});
