/**
 * Live chat over the HTTP transports, on the real server: a viewer over Server-Sent Events and one over
 * multipart HTTP get the room's first event (system block and history), then each message sent (also one
 * sent as a mutation over SSE), and DELETED / CLEARED on moderation; a viewer back after a drop asks with
 * `afterSeq` and gets exactly what it missed, no gap and no duplicate, then the live messages.
 */
import type { Stack } from '../../stack';
import { CHAT_SUBSCRIPTION, createChatPanel, nextChatEvent, sendChat } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { closeHttpViewers, openHttpViewer, type HttpTransport, type HttpViewer } from '../helpers/httpViewer';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'HTTP chat');
});
afterEach(closeHttpViewers);
afterAll(stopAll);

const TRANSPORTS: HttpTransport[] = ['sse', 'multipart'];
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const SEND = /* GraphQL */ `mutation Send($panelId: ID!, $text: String!) { sendChatMessage(panelId: $panelId, text: $text) { id seq text } }`;

/** The chat events a viewer got, in order. */
const eventsOf = (watcher: HttpViewer) => watcher.results.map((result) => result.data.chatMessages);
/** The seqs of the messages a viewer got, in the order got. */
const seqsOf = (watcher: HttpViewer): number[] => eventsOf(watcher).flatMap((event) => event.messages.map((message: { seq: number }) => message.seq));

/** Sends `count` messages, each from a fresh account (no per-account limit in the way), one after another. */
async function sendMany(panelId: string, count: number, label: string): Promise<number[]> {
  const seqs: number[] = [];
  for (let index = 1; index <= count; index += 1) {
    const reply = await sendChat(stack, site, await site.token([]), panelId, `${label} ${index}`);
    expect(reply.status).toBe(201);
    seqs.push(reply.body.seq);
  }
  return seqs;
}

it('viewers over SSE and multipart get the first event, messages (one sent over SSE), DELETED and CLEARED', async () => {
  const panelId = await createChatPanel(stack, site, { rules_link_url: 'https://example.com/rules' });
  const history = await sendChat(stack, site, await site.token([]), panelId, 'history');
  const watchers = await Promise.all(
    TRANSPORTS.map((transport) => openHttpViewer(stack, transport, { query: CHAT_SUBSCRIPTION, variables: { panelId }, headers: viewer(site) })),
  );
  for (const watcher of watchers) {
    expect(watcher.status).toBe(200);
    const first = (await watcher.next()).data.chatMessages;
    expect(first).toMatchObject({
      kind: 'MESSAGES',
      ids: [],
      accountId: null,
      system: { name: 'Stage', welcomeMessage: 'Welcome!', rulesLinkUrl: 'https://example.com/rules' },
    });
    expect(first.messages).toEqual([expect.objectContaining({ id: history.body.id, seq: 1, text: 'history', panelId })]);
  }

  // A signed-in viewer sends as a mutation over Server-Sent Events: one result, then complete.
  const { accountId, token } = await site.signIn([]);
  const sender = await openHttpViewer(stack, 'sse', { query: SEND, variables: { panelId, text: 'over SSE' }, headers: viewer(site, token) });
  await sender.ended;
  expect([sender.status, sender.completed]).toEqual([200, true]);
  expect(sender.results).toEqual([{ data: { sendChatMessage: { id: expect.any(String), seq: 2, text: 'over SSE' } } }]);
  const sentId = sender.results[0].data.sendChatMessage.id as string;
  for (const watcher of watchers) {
    const event = await nextChatEvent(watcher);
    expect(event).toMatchObject({ kind: 'MESSAGES', system: null, messages: [{ id: sentId, seq: 2, text: 'over SSE', author: { accountId, admin: false } }] });
  }

  expect((await rest(stack, 'DELETE', `/chat/v1/${panelId}/messages/${history.body.id}`, { headers: site.admin })).status).toBe(200);
  for (const watcher of watchers) expect(await nextChatEvent(watcher)).toMatchObject({ kind: 'DELETED', ids: [history.body.id], messages: [] });

  expect((await rest(stack, 'POST', '/chat/v1/bans', { headers: site.admin, body: { accountId, durationSeconds: 30 } })).status).toBe(201);
  for (const watcher of watchers) expect(await nextChatEvent(watcher)).toMatchObject({ kind: 'CLEARED', accountId, ids: [], messages: [] });

  // A viewer joining now sees neither the deleted nor the cleared message.
  const late = await openHttpViewer(stack, 'sse', { query: CHAT_SUBSCRIPTION, variables: { panelId }, headers: viewer(site) });
  expect((await late.next()).data.chatMessages.messages).toEqual([]);
});

it.each(TRANSPORTS)('%s: a viewer back after a drop asks with afterSeq and gets exactly what it missed, then the live messages', async (transport) => {
  const panelId = await createChatPanel(stack, site);
  const open = (afterSeq: number | null) =>
    openHttpViewer(stack, transport, { query: CHAT_SUBSCRIPTION, variables: { panelId, afterSeq }, headers: viewer(site) });
  const before = await open(null);
  await before.next();
  expect(await sendMany(panelId, 4, 'before')).toEqual(range(1, 4));
  await before.until((watcher) => seqsOf(watcher).length === 4);
  before.close();

  expect(await sendMany(panelId, 5, 'missed')).toEqual(range(5, 9));
  const back = await open(4);
  const first = (await back.next()).data.chatMessages;
  expect(first.messages.map((message: { seq: number }) => message.seq)).toEqual(range(5, 9));
  expect(first.system).toMatchObject({ name: 'Stage' });
  expect(await sendMany(panelId, 3, 'after')).toEqual(range(10, 12));
  await back.until((watcher) => seqsOf(watcher).length >= 8);
  expect(seqsOf(back)).toEqual(range(5, 12));
  expect(seqsOf(before)).toEqual(range(1, 4));

  // Back with everything already seen: an empty first event, then only what is new.
  const current = await open(12);
  expect((await current.next()).data.chatMessages.messages).toEqual([]);
  expect(await sendMany(panelId, 1, 'later')).toEqual([13]);
  await current.until((watcher) => seqsOf(watcher).length >= 1);
  await back.until((watcher) => seqsOf(watcher).length >= 9);
  expect([seqsOf(current), seqsOf(back)]).toEqual([[13], range(5, 13)]);
});
