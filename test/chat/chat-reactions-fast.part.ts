/**
 * The reaction fast path (gateway/live/fastReactions.ts): a viewer's `sendChatReaction` on its socket is
 * answered by the live server without the executor when it can be answered exactly, and by the normal
 * path otherwise. Real graphql-ws clients whose socket records every frame it receives, so answers are
 * compared byte for byte: the fast path's against the normal path's for the same document, and every
 * refusal as before. Counts from both paths, on two instances (PostgreSQL + Redis when set), add up.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { messageText } from '../../shared/wsMessage';
import type { Stack } from '../../stack';
import { createChatPanel, reactionTotals, startChatFleet, watchChat, type ChatWatcher } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import { scrape, total } from '../helpers/metrics';
import { createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';

const REACT = /* GraphQL */ `mutation FastReact($panelId: ID!, $emoji: String!) { sendChatReaction(panelId: $panelId, emoji: $emoji) { __typename success emoji } }`;
const ROOM = /* GraphQL */ `subscription Room($panelId: ID!) { chatMessages(panelId: $panelId) { kind reactions { emoji count } } }`;

let stack: Stack;
let site: TestSite;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Fast reactions');
});
afterAll(() => stopAllWithClients(clients));

/** A graphql-ws client whose socket keeps every text frame the server sent, as received. */
interface RecordingClient {
  client: Client;
  /** Runs one operation and resolves with the frames it got back, bytes as sent (its id, the client's choice, written `op`). */
  run(query: string, variables: Record<string, unknown>): Promise<string[]>;
}

async function recordingClient(on: Pick<Stack, 'url'>, owner: TestSite, jwt: string | undefined): Promise<RecordingClient> {
  const frames: string[] = [];
  class RecordingSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.on('message', (data) => frames.push(messageText(data)));
    }
  }
  const params: Record<string, unknown> = { 'x-service-client-id': owner.siteId };
  if (jwt) params.Authorization = `Bearer ${jwt}`;
  let next = 0;
  const client = createClient({
    url: `${on.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: RecordingSocket,
    connectionParams: params,
    lazy: false,
    retryAttempts: 0,
    generateID: () => `op${(next += 1)}`,
  });
  clients.push(client);
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', () => reject(new Error('closed before ack')));
  });
  return {
    client,
    run: (query, variables) =>
      new Promise((resolve) => {
        const from = frames.length;
        const id = `"id":"op${next + 1}"`;
        const done = () =>
          resolve(
            frames
              .slice(from)
              .filter((frame) => frame.startsWith(`{${id},`))
              .map((frame) => frame.replace(id, '"id":"op"')),
          );
        client.subscribe({ query, variables }, { next: () => undefined, error: done, complete: done });
      }),
  };
}

const fastCount = (on: Stack) => on.gateway.live.stats().fastReactions;

/** Watches a room until its first event: the room is then loaded in this instance's chat feed. */
async function loadedRoom(on: Pick<Stack, 'url'>, owner: TestSite, panelId: string): Promise<ChatWatcher> {
  const watcher = watchChat(on, owner.siteId, panelId, clients, { query: ROOM });
  await watcher.until(() => true);
  return watcher;
}

describe('the reaction fast path', () => {
  it('answers byte for byte what the normal path answers for the same document, and is counted in the operations metric', async () => {
    const panelId = await createChatPanel(stack, site);
    const socket = await recordingClient(stack, site, await site.token([]));
    const variables = { panelId, emoji: ' 👍 ' };
    // Nobody watches the room here yet: the normal path answers.
    const before = fastCount(stack);
    const normal = await socket.run(REACT, variables);
    expect(fastCount(stack)).toBe(before);
    expect(normal.map((frame) => JSON.parse(frame))).toEqual([
      { id: 'op', type: 'next', payload: { data: { sendChatReaction: { __typename: 'ChatReactionReceipt', success: true, emoji: '👍' } } } },
      { id: 'op', type: 'complete' },
    ]);
    await loadedRoom(stack, site, panelId);
    const metricBefore = total(await scrape(stack), 'stagegraph_graphql_operations_total', { operation: 'FastReact', outcome: 'ok' });
    const fast = await socket.run(REACT, variables);
    expect(fastCount(stack)).toBe(before + 1);
    expect(fast).toEqual(normal);
    expect(total(await scrape(stack), 'stagegraph_graphql_operations_total', { operation: 'FastReact', outcome: 'ok' })).toBe(metricBefore + 1);
    // Literal arguments and another order of the fields: the same answer as the normal path's REST twin.
    const literal = await socket.run(`mutation { sendChatReaction(panelId: "${panelId}", emoji: "🔥") { emoji success } }`, {});
    expect(fastCount(stack)).toBe(before + 2);
    expect(literal[0]).toBe('{"id":"op","type":"next","payload":{"data":{"sendChatReaction":{"emoji":"🔥","success":true}}}}');
    const viaRest = await rest(stack, 'POST', `/chat/v1/${panelId}/reactions`, { headers: viewer(site, await site.token([])), body: { emoji: '🔥' } });
    expect([viaRest.status, viaRest.body]).toEqual([200, { success: true, emoji: '🔥' }]);
  });

  it('leaves to the normal path, answering as before: an unknown emoji, no token, the limit, a room not loaded here, an aliased selection', async () => {
    const panelId = await createChatPanel(stack, site, { reactions: ['🎸', '🥁'] });
    const unwatched = await createChatPanel(stack, site, { reactions: ['🎸', '🥁'] });
    await loadedRoom(stack, site, panelId);
    const token = await site.token([]);
    const socket = await recordingClient(stack, site, token);
    const anonymous = await recordingClient(stack, site, undefined);
    const before = fastCount(stack);
    const answer = async (client: RecordingClient, query: string, variables: Record<string, unknown>) => JSON.parse((await client.run(query, variables))[0]);

    const unknown = await answer(socket, REACT, { panelId, emoji: '👍' });
    expect(unknown).toMatchObject({
      type: 'next',
      payload: { data: null, errors: [{ message: expect.stringMatching(/emoji must be one of/), extensions: { code: 'BAD_USER_INPUT' } }] },
    });
    const signedOut = await answer(anonymous, REACT, { panelId, emoji: '🎸' });
    expect(signedOut).toMatchObject({ type: 'next', payload: { errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] } });
    const notLoaded = await answer(socket, REACT, { panelId: unwatched, emoji: '🎸' });
    expect(notLoaded.payload).toEqual({ data: { sendChatReaction: { __typename: 'ChatReactionReceipt', success: true, emoji: '🎸' } } });
    const aliased = await answer(socket, `mutation { sendChatReaction(panelId: "${panelId}", emoji: "🎸") { counted: emoji } }`, {});
    expect(aliased.payload).toEqual({ data: { sendChatReaction: { counted: '🎸' } } });
    expect(fastCount(stack)).toBe(before);

    // Two of the account's 30 reactions went above; 28 more on the fast path, then the limit refuses as the normal path does.
    for (let index = 0; index < 28; index += 1) expect((await answer(socket, REACT, { panelId, emoji: '🥁' })).payload.data.sendChatReaction.emoji).toBe('🥁');
    expect(fastCount(stack)).toBe(before + 28);
    const limited = await answer(socket, REACT, { panelId, emoji: '🥁' });
    expect(fastCount(stack)).toBe(before + 28);
    expect(limited).toMatchObject({
      type: 'next',
      payload: {
        errors: [{ message: expect.stringMatching(/at most 30 reactions per 10 s/), extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) } }],
      },
    });
    const overRest = await rest(stack, 'POST', `/chat/v1/${panelId}/reactions`, { headers: viewer(site, token), body: { emoji: '🥁' } });
    expect([overRest.status, overRest.body.message]).toEqual([
      429,
      limited.payload.errors[0].message.replace(/\d+ s$/, `${overRest.headers.get('retry-after')} s`),
    ]);
  });
});

describe('counts from both paths on two instances', () => {
  let first: Stack;
  let second: Stack;
  let shared: TestSite;
  beforeAll(async () => {
    ({ first, second, shared } = await startChatFleet('Fast fleet'));
  });

  it(`add up exactly (${usingRedis ? 'PostgreSQL + Redis' : 'shared in-process bus'})`, async () => {
    const panelId = await createChatPanel(first, shared);
    const watchers = [await loadedRoom(first, shared, panelId), await loadedRoom(second, shared, panelId)];
    const tokens = await Promise.all(Array.from({ length: 6 }, () => shared.token([])));
    const sockets = await Promise.all(tokens.map((token, index) => recordingClient(index % 2 === 0 ? first : second, shared, token)));
    const fastBefore = fastCount(first) + fastCount(second);
    const fast = await Promise.all(Array.from({ length: 60 }, (_, index) => sockets[index % 6].run(REACT, { panelId, emoji: index % 3 === 0 ? '🎉' : '👏' })));
    for (const frames of fast) expect(JSON.parse(frames[0]).payload.data.sendChatReaction.success).toBe(true);
    expect(fastCount(first) + fastCount(second)).toBe(fastBefore + 60);
    expect(fastCount(first)).toBeGreaterThan(0);
    expect(fastCount(second)).toBeGreaterThan(0);
    const normal = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        rest(index % 2 === 0 ? first : second, 'POST', `/chat/v1/${panelId}/reactions`, {
          headers: viewer(shared, tokens[index % 6]),
          body: { emoji: index % 4 === 0 ? '🎉' : '👏' },
        }),
      ),
    );
    for (const reply of normal) expect(reply.status).toBe(200);
    for (const watcher of watchers) await watcher.until(() => reactionTotals(watcher)['👏'] === 70 && reactionTotals(watcher)['🎉'] === 30);
    // Exact: once the totals are reached, the next publish rounds add nothing.
    const settle = await Promise.all(
      tokens
        .slice(0, 2)
        .map((token, index) =>
          rest(index === 0 ? first : second, 'POST', `/chat/v1/${panelId}/reactions`, { headers: viewer(shared, token), body: { emoji: '🔥' } }),
        ),
    );
    for (const reply of settle) expect(reply.status).toBe(200);
    for (const watcher of watchers) {
      await watcher.until(() => reactionTotals(watcher)['🔥'] === 2);
      expect(reactionTotals(watcher)).toEqual({ '👏': 70, '🎉': 30, '🔥': 2 });
    }
  });
});
