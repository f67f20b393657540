/**
 * Every live subscription (overlayBroadcasts, pollResults, questProgress, chatMessages, streamStateChanged)
 * over each HTTP form (Server-Sent Events, multipart), as every caller:
 * anonymous, the site ID alone, the developer key, a signed-in viewer, and another site. Each gets
 * what it gets on the socket: the events of its own site, or the socket's refusal as a status.
 * A stream's headers go out once its subscription is in place, so what is sent after they arrived reaches it.
 */
import type { Stack } from '../../stack';
import { Topics } from '../../shared/bus';
import { CHAT_SUBSCRIPTION, createChatPanel, nextChatEvent, sendChat } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { closeHttpViewers, openHttpViewer, type HttpTransport, type HttpViewer } from '../helpers/httpViewer';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { VIEWER_SUBSCRIPTION } from '../helpers/viewer';

let stack: Stack;
let site: TestSite;
let other: TestSite;
/** Channels (pages) of site A and of site B that their viewers watch. */
let stage: string;
let otherStage: string;
let overlayId: string;
let otherOverlayId: string;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  stage = await createChannel(stack, site.siteId);
  otherStage = await createChannel(stack, other.siteId);
  const body = { name: 'Lower third', type: 'template', contents: { html: '<p>hi</p>' }, duration: 60 };
  overlayId = (await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body })).body._id;
  otherOverlayId = (await rest(stack, 'POST', '/overlay/v1', { headers: other.admin, body })).body._id;
});
afterEach(async () => {
  closeHttpViewers();
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: other.admin });
});
afterAll(stopAll);

type Caller = 'anonymous' | 'site ID' | 'developer key' | 'signed-in viewer' | 'another site';
const CALLERS: Caller[] = ['anonymous', 'site ID', 'developer key', 'signed-in viewer', 'another site'];
const TRANSPORTS: HttpTransport[] = ['sse', 'multipart'];
const MATRIX = TRANSPORTS.flatMap((transport) => CALLERS.map((caller) => [transport, caller] as [HttpTransport, Caller]));

/** The headers of each caller; the signed-in viewer is a new account of site A with the given roles. */
async function headersOf(
  caller: Caller,
  roles: { pageId: string; scope: string; write: boolean }[] = [],
): Promise<{ headers: Record<string, string>; accountId?: string }> {
  switch (caller) {
    case 'anonymous':
      return { headers: {} };
    case 'site ID':
      return { headers: viewer(site) };
    case 'developer key':
      return { headers: site.admin };
    case 'signed-in viewer': {
      const { accountId, token } = await site.signIn(roles as never);
      return { headers: viewer(site, token), accountId };
    }
    case 'another site':
      return { headers: other.admin };
  }
}

const codeOf = (refused: HttpViewer) => refused.body?.errors?.[0]?.extensions?.code;

/**
 * How a subscription to one of site A's resources opens for `caller`, with what every walk checks asserted
 * here: anonymous is refused (401, `first` null); another site's caller gets NOT_FOUND, then complete, as
 * on the socket (`mine` false); every other caller gets the resource's first event (`mine` true).
 */
async function openOwnResource(watcher: HttpViewer, caller: Caller): Promise<{ first: any; mine: boolean }> {
  if (caller === 'anonymous') {
    expect([watcher.status, codeOf(watcher)]).toEqual([401, 'UNAUTHENTICATED']);
    return { first: null, mine: false };
  }
  const first = await watcher.next();
  if (caller !== 'another site') return { first, mine: true };
  expect(first.errors[0].extensions.code).toBe('NOT_FOUND');
  await watcher.ended;
  expect(watcher.completed).toBe(true);
  return { first, mine: false };
}

describe('overlayBroadcasts', () => {
  it.each(MATRIX)('%s as %s', async (transport, caller) => {
    const { headers } = await headersOf(caller);
    // Each site's viewer watches a channel of its own site (another site's channel is refused, see test/show/live-channels.part.ts).
    const channelId = caller === 'another site' ? otherStage : stage;
    const watcher = await openHttpViewer(stack, transport, { query: VIEWER_SUBSCRIPTION, variables: { channelId }, headers });
    if (caller === 'anonymous') {
      expect([watcher.status, codeOf(watcher)]).toEqual([401, 'UNAUTHENTICATED']);
      return;
    }
    expect(watcher.status).toBe(200);
    const mine = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, { headers: site.admin, body: { channelId: stage } });
    const theirs = await rest(stack, 'POST', `/overlay/v1/broadcast/${otherOverlayId}`, { headers: other.admin, body: { channelId: otherStage } });
    // Another site's viewer gets its own broadcast first and never site A's (sent before it).
    const expected = caller === 'another site' ? theirs : mine;
    expect((await watcher.next()).data.overlayBroadcasts.broadcastId).toBe(expected.body.broadcastId);
    if (caller === 'another site') expect(watcher.results).toHaveLength(1);
  });

  it.each(TRANSPORTS)('%s: a wrong developer key or a Bearer that is no JWT is 401, never anonymous', async (transport) => {
    for (const headers of [
      { ...viewer(site), 'x-service-developer-key': 'wrong' },
      { ...viewer(site), authorization: 'Bearer nope' },
    ]) {
      const refused = await openHttpViewer(stack, transport, { query: VIEWER_SUBSCRIPTION, headers });
      expect([refused.status, codeOf(refused)]).toEqual([401, 'UNAUTHENTICATED']);
    }
  });
});

describe('pollResults', () => {
  const QUERY = /* GraphQL */ `subscription($id: ID!) { pollResults(pollId: $id) { pollId total answers { id count } mine { answerId } } }`;
  it.each(MATRIX)('%s as %s', async (transport, caller) => {
    const created = await rest(stack, 'POST', '/poll/v3/', {
      headers: site.admin,
      body: {
        type: 'poll',
        name: 'Mood',
        question: 'Happy?',
        answers: [
          { id: 'yes', text: 'Yes' },
          { id: 'no', text: 'No' },
        ],
      },
    });
    const pollId = created.body._id as string;
    const { headers } = await headersOf(caller);
    const watcher = await openHttpViewer(stack, transport, { query: QUERY, variables: { id: pollId }, headers });
    const { first, mine } = await openOwnResource(watcher, caller);
    if (!mine) return;
    expect(first.data.pollResults).toEqual({
      pollId,
      total: 0,
      answers: [
        { id: 'yes', count: 0 },
        { id: 'no', count: 0 },
      ],
      mine: null,
    });
    const token = caller === 'signed-in viewer' ? headers.authorization.slice('Bearer '.length) : await site.token([]);
    expect((await rest(stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, token), body: { answerId: 'yes' } })).status).toBe(200);
    const counted = await watcher.next(10_000);
    expect(counted.data.pollResults.total).toBe(1);
    expect(counted.data.pollResults.mine).toEqual(caller === 'signed-in viewer' ? { answerId: 'yes' } : null);
  });
});

describe('questProgress', () => {
  const QUERY = /* GraphQL */ `subscription { questProgress { questId accountId completed } }`;
  it.each(MATRIX)('%s as %s', async (transport, caller) => {
    const { headers, accountId } = await headersOf(caller);
    const watcher = await openHttpViewer(stack, transport, { query: QUERY, headers });
    if (caller !== 'signed-in viewer') {
      // Progress is a signed-in viewer's own: everyone else is refused, as on the socket.
      expect([watcher.status, codeOf(watcher)]).toEqual([401, 'UNAUTHENTICATED']);
      return;
    }
    const poll = await rest(stack, 'POST', '/poll/v3/', {
      headers: site.admin,
      body: {
        type: 'poll',
        name: 'Mood',
        question: 'Happy?',
        answers: [
          { id: 'yes', text: 'Yes' },
          { id: 'no', text: 'No' },
        ],
      },
    });
    const quest = await rest(stack, 'POST', '/quest/v2', {
      headers: site.admin,
      body: {
        title: 'Fan quest',
        description: 'Take part',
        rewardDescription: 'A hoodie',
        rewardType: 'prize',
        claimedMessage: 'Yours!',
        siteId: site.siteId,
        actions: [{ arrayId: 'p', kind: 'answer:polls:specific', validationValue: poll.body._id }],
      },
    });
    expect(quest.status).toBe(200);
    expect((await rest(stack, 'POST', `/poll/v3/${poll.body._id}/answer`, { headers: headers, body: { answerId: 'yes' } })).status).toBe(200);
    await watcher.until((seen) => seen.results.some((result) => result.data?.questProgress.completed), 10_000);
    expect(watcher.results.every((result) => result.data.questProgress.accountId === accountId)).toBe(true);
  });
});

describe('chatMessages', () => {
  it.each(MATRIX)('%s as %s', async (transport, caller) => {
    const panelId = await createChatPanel(stack, site);
    const earlier = await sendChat(stack, site, await site.token([]), panelId, 'earlier');
    const { headers } = await headersOf(caller);
    const watcher = await openHttpViewer(stack, transport, { query: CHAT_SUBSCRIPTION, variables: { panelId }, headers });
    const { first, mine } = await openOwnResource(watcher, caller);
    if (!mine) {
      if (first) expect(watcher.results).toEqual([first]);
      return;
    }
    // The site ID alone reads: every other caller of site A gets the room's first event, then what is sent.
    expect(first.data.chatMessages).toMatchObject({ kind: 'MESSAGES', system: { name: 'Stage', welcomeMessage: 'Welcome!' } });
    expect(first.data.chatMessages.messages.map((message: { id: string }) => message.id)).toEqual([earlier.body.id]);
    const token = caller === 'signed-in viewer' ? headers.authorization.slice('Bearer '.length) : await site.token([]);
    const sent = await sendChat(stack, site, token, panelId, 'now');
    expect(sent.status).toBe(201);
    const next = await nextChatEvent(watcher);
    expect(next).toMatchObject({ kind: 'MESSAGES', system: null });
    expect(next.messages.map((message: { id: string; seq: number }) => [message.id, message.seq])).toEqual([[sent.body.id, 2]]);
  });
});

describe('streamStateChanged', () => {
  const QUERY = /* GraphQL */ `subscription { streamStateChanged { streamId change } }`;
  const event = (streamId: string) => ({
    streamId,
    pageId: 'page',
    change: 'started',
    time: Date.now(),
    liveBroadcastId: null,
    state: { ingestEnabled: true, ingestConnected: false, playbackLive: false, recording: false, ingestChangedAt: null, playbackChangedAt: null },
  });
  it.each(MATRIX)('%s as %s', async (transport, caller) => {
    const { headers } = await headersOf(caller);
    const watcher = await openHttpViewer(stack, transport, { query: QUERY, headers });
    if (caller === 'anonymous' || caller === 'site ID' || caller === 'signed-in viewer') {
      // Stream states are for the site's admins (D, or J with a role): a viewer is refused, as on the socket.
      expect(watcher.status).toBe(caller === 'signed-in viewer' ? 403 : 401);
      return;
    }
    expect(watcher.status).toBe(200);
    await stack.bus.publish(Topics.streamStates, { siteId: site.siteId, event: event('a-stream') });
    await stack.bus.publish(Topics.streamStates, { siteId: other.siteId, event: event('b-stream') });
    expect((await watcher.next()).data.streamStateChanged).toEqual({ streamId: caller === 'another site' ? 'b-stream' : 'a-stream', change: 'started' });
    if (caller === 'another site') expect(watcher.results).toHaveLength(1);
  });
});
