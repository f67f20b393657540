/**
 * Every subscription root field of the supergraph, with the full selection a client generated from the
 * schema asks (every field to a bounded depth, every member of a union), over the three transports and with
 * the protocols' own clients: graphql-ws, graphql-sse's createClient and Apollo Client's HttpLink
 * (multipart). Every kind of event each field carries is driven — chat messages sent, held then approved
 * or denied, delayed then released, replies, deletions, pins and unpins, reactions, viewers, a timeout's
 * clearing, reports and warnings; the moderation queue; poll results through closing; quest progress
 * through completion; a channel's show through every state and the stream's changes; overlays shown and
 * cleared — and every event must arrive without errors and fit the selection's types
 * (test/helpers/fullSelection.ts). The walk runs on one instance, and on two (one database, the bus between
 * them: Redis when REDIS_URL is set), where the writes go to one instance and the viewers watch the other.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { buildClientSchema, parse, type GraphQLSchema, type IntrospectionQuery, getIntrospectionQuery } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createMemoryBus } from '../../shared/bus/memory';
import { createChatPanel } from '../helpers/chat';
import { ask, createQaPanel, moderate, vote } from '../helpers/qa';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { fullOperation, problemsOf } from '../helpers/fullSelection';
import { graphql, rest } from '../helpers/http';
import { registerShowProvider, showChannel } from '../helpers/show';
import { createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';
import { connectedClient } from '../helpers/viewer';
import { until } from '../helpers/wait';

type Transport = 'graphql-ws' | 'sse' | 'multipart';
const TRANSPORTS: Transport[] = ['graphql-ws', 'sse', 'multipart'];
/** The fallback image the fake provider's streams are created with. */
const ENV = { STREAM_FALLBACK_IMAGE_URL: 'https://images.fake.test/fallback.png' };

/** One subscription's results as its client gave them: data and errors, or the error that ended it. */
interface Watched {
  name: string;
  transport: Transport;
  query: string;
  results: { data?: any; errors?: readonly any[] }[];
  failure: unknown;
}

const clients: Client[] = [];
const disposers: (() => void)[] = [];
let provider: FakeStreamProvider;

afterAll(async () => {
  for (const dispose of disposers.splice(0)) dispose();
  await provider?.close();
  await stopAllWithClients(clients);
});

/** The supergraph as a client generating its types reads it: introspection with the developer key. */
async function introspect(on: Stack, site: TestSite): Promise<GraphQLSchema> {
  const reply = await graphql(on, getIntrospectionQuery(), {}, site.admin);
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return buildClientSchema(reply.body.data as IntrospectionQuery);
}

/** A 2xx answer, or the test fails saying what came instead. */
function ok<R extends { status: number; body?: unknown }>(reply: R): R {
  if (reply.status < 200 || reply.status > 299) throw new Error(`${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply;
}

/** Subscribes with the protocol's own client; results are collected as the client hands them over. */
async function subscribe(
  on: Stack,
  transport: Transport,
  credentials: Record<string, string>,
  name: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<Watched> {
  const watched: Watched = { name, transport, query, results: [], failure: null };
  const sink = {
    next: (result: any) => watched.results.push(result),
    error: (error: unknown) => (watched.failure = error),
    complete: () => undefined,
  };
  if (transport === 'graphql-ws') {
    const client = await connectedClient(on, credentials, clients);
    disposers.push(client.subscribe({ query, variables }, sink));
  } else if (transport === 'sse') {
    const client = createSseClient({ url: `${on.url}/graphql/stream`, headers: credentials, retryAttempts: 0 });
    disposers.push(client.subscribe({ query, variables }, sink), () => client.dispose());
  } else {
    const client = new ApolloClient({ link: new HttpLink({ uri: `${on.url}/graphql`, headers: credentials }), cache: new InMemoryCache() });
    const subscription = client.subscribe({ query: gql(query), variables, fetchPolicy: 'no-cache', errorPolicy: 'all' }).subscribe({
      next: (result: any) => watched.results.push({ data: result.data, errors: result.error ? [result.error] : undefined }),
      error: sink.error,
    });
    disposers.push(
      () => subscription.unsubscribe(),
      () => client.stop(),
    );
  }
  return watched;
}

describe.each([
  ['one instance', false],
  ['two instances, writes on one and viewers on the other', true],
])('every subscription field with its full selection: %s', (_name, twoInstances) => {
  let writer: Stack;
  let watcher: Stack;
  let site: TestSite;
  let schema: GraphQLSchema;
  let member: { accountId: string; token: string };
  let troll: { accountId: string; token: string };
  const watched: Watched[] = [];

  const of = (name: string) => watched.filter((entry) => entry.name === name);
  const events = (entry: Watched, field: string) => entry.results.map((result) => result.data?.[field]).filter(Boolean);
  /** Waits until every transport's subscription `name` holds an event of `field` that `test` accepts (or one in error). */
  const seenEverywhere = (name: string, field: string, test: (event: any) => boolean, what: string) =>
    until(
      () => of(name),
      (entries) => entries.every((entry) => entry.failure !== null || entry.results.some((result) => result.errors) || events(entry, field).some(test)),
      `${name}: ${what} on every transport`,
    );
  const mutate = async (query: string, variables: Record<string, unknown>, headers: Record<string, string>) => {
    const reply = await graphql(writer, query, variables, headers);
    if (reply.body.errors) throw new Error(`${query}: ${JSON.stringify(reply.body.errors)}`);
    return reply.body.data;
  };

  beforeAll(async () => {
    if (twoInstances) {
      const bus = usingRedis ? undefined : createMemoryBus();
      writer = await startTestStack({ bus, env: ENV });
      watcher = await startTestStack({ sameDeploymentAs: writer, bus, env: ENV });
    } else {
      writer = watcher = await startTestStack({ env: ENV });
    }
    site = await createTestSite(writer, 'Full selection site');
    schema = await introspect(watcher, site);
    member = await site.signIn([], ['vip']);
    troll = await site.signIn([]);
    provider ??= await startFakeStreamProvider();
  });

  it('walks every subscription root field of the supergraph', () => {
    const fields = Object.keys(schema.getSubscriptionType()!.getFields()).sort();
    expect(fields).toEqual([
      'channelStatus',
      'chatMessages',
      'chatModeration',
      'overlayBroadcasts',
      'pollResults',
      'qaRoom',
      'questProgress',
      'streamStateChanged',
    ]);
  });

  it('delivers every kind of event of every field, on every transport, without errors and fitting the full selection', async () => {
    const room = await createChatPanel(writer, site, { hold_words: 'holdme', reactions: ['👍', '🔥'] });
    const delayed = await createChatPanel(writer, site, { delay_seconds: 1 });
    const qa = await createQaPanel(writer, site, { anonymous_allowed: true });
    const answers = [
      { id: 'yes', text: 'Yes' },
      { id: 'no', text: 'No' },
    ];
    const poll = await rest(writer, 'POST', '/poll/v3/', {
      headers: site.admin,
      body: { type: 'trivia', name: 'Walk', question: 'Sure?', answers, correctAnswerId: 'yes' },
    });
    ok(poll);
    const pollId = poll.body._id as string;
    const quest = await rest(writer, 'POST', '/quest/v2', {
      headers: site.admin,
      body: {
        title: 'Walk quest',
        description: 'Answer',
        rewardDescription: 'A badge',
        rewardType: 'prize',
        claimedMessage: 'Yours!',
        siteId: site.siteId,
        actions: [{ arrayId: 'walk', kind: 'answer:polls:specific', validationValue: pollId }],
      },
    });
    ok(quest);
    const contract = await registerShowProvider(writer, site, provider);
    const show = await showChannel(writer, site, contract, { countdown: { title: 'Soon', start_time: Date.now() + 3_600_000 } });
    const overlay = await rest(writer, 'POST', '/overlay/v1', {
      headers: site.admin,
      body: { name: 'Lower third', type: 'template', contents: { html: '<p>${name}</p>' }, cta: { type: 'social_share', data: null }, duration: 60 },
    });
    ok(overlay);

    const viewerCredentials = { 'x-service-client-id': site.siteId, authorization: `Bearer ${member.token}` };
    const subscriptions: [name: string, field: string, credentials: Record<string, string>, variables: Record<string, unknown>][] = [
      ['room', 'chatMessages', viewerCredentials, { panelId: room }],
      ['delayed room', 'chatMessages', viewerCredentials, { panelId: delayed }],
      ['moderation', 'chatModeration', site.admin, { panelId: room }],
      ['delayed moderation', 'chatModeration', site.admin, { panelId: delayed }],
      ['poll', 'pollResults', viewerCredentials, { pollId }],
      ['qa', 'qaRoom', viewerCredentials, { panelId: qa }],
      ['quest', 'questProgress', viewerCredentials, { questId: quest.body._id }],
      ['show', 'channelStatus', viewerCredentials, { channelId: show.channelId }],
      ['streams', 'streamStateChanged', site.admin, {}],
      ['overlays', 'overlayBroadcasts', viewerCredentials, { channelId: show.channelId }],
    ];
    for (const transport of TRANSPORTS)
      for (const [name, field, credentials, variables] of subscriptions)
        watched.push(await subscribe(watcher, transport, credentials, name, fullOperation(schema, 'subscription', field), variables));
    await until(
      () => watcher.gateway.live.stats().subscriptions,
      (held) => held >= watched.length,
      `${watched.length} subscriptions held`,
    );
    await seenEverywhere('room', 'chatMessages', (event) => event.system !== null, 'the first event');
    await seenEverywhere('moderation', 'chatModeration', (event) => event.kind === 'QUEUE', 'the queue');
    await seenEverywhere('show', 'channelStatus', (event) => event.state === 'OFFLINE', 'OFFLINE');

    // Chat: a send, a reply, one held then approved, one held then denied, one delayed then released.
    const member$ = viewer(site, member.token);
    const send = (panelId: string, text: string, as = member$, extra: Record<string, unknown> = {}) =>
      rest(writer, 'POST', `/chat/v1/${panelId}/messages`, { headers: as, body: { text, ...extra } });
    const hello = await send(room, 'hello room');
    ok(hello);
    ok(await send(room, 'a reply', member$, { replyTo: hello.body.id }));
    const held = await send(room, 'please holdme');
    expect(held.status).toBe(202);
    const denied = await send(room, 'holdme too');
    expect(denied.status).toBe(202);
    await seenEverywhere(
      'moderation',
      'chatModeration',
      (event) => event.kind === 'HELD' && event.held.some((entry: any) => entry.id === denied.body.id),
      'HELD',
    );
    ok(await rest(writer, 'POST', `/chat/v1/${room}/held/${held.body.id}/approve`, { headers: site.admin }));
    ok(await rest(writer, 'POST', `/chat/v1/${room}/held/${denied.body.id}/deny`, { headers: site.admin }));
    expect((await send(delayed, 'said later')).status).toBe(202);
    await seenEverywhere('room', 'chatMessages', (event) => event.messages.some((message: any) => message.text === 'please holdme'), 'the approved message');
    await seenEverywhere(
      'delayed room',
      'chatMessages',
      (event) => event.messages.some((message: any) => message.text === 'said later'),
      'the released message',
    );
    await seenEverywhere('moderation', 'chatModeration', (event) => event.kind === 'DECIDED' && event.id === denied.body.id, 'DECIDED');
    await seenEverywhere('delayed moderation', 'chatModeration', (event) => event.kind === 'DECIDED', 'the delay’s release');

    // Pins, reactions, a report, a warning, a deletion and a timeout's clearing.
    await mutate(
      `mutation Pin($panelId: ID!, $messageId: ID) { pinChatMessage(panelId: $panelId, messageId: $messageId) { pinnedAt } }`,
      { panelId: room, messageId: hello.body.id },
      site.admin,
    );
    await seenEverywhere('room', 'chatMessages', (event) => event.kind === 'PINNED' && event.pinned?.messageId === hello.body.id, 'PINNED');
    await mutate(`mutation Unpin($panelId: ID!) { unpinChatMessage(panelId: $panelId) { success } }`, { panelId: room }, site.admin);
    await seenEverywhere('room', 'chatMessages', (event) => event.kind === 'UNPINNED', 'UNPINNED');
    await mutate(
      `mutation Announce($panelId: ID!, $text: String) { pinChatMessage(panelId: $panelId, text: $text) { pinnedAt } }`,
      { panelId: room, text: 'Doors at 8' },
      site.admin,
    );
    await seenEverywhere('room', 'chatMessages', (event) => event.kind === 'PINNED' && event.pinned?.messageId === null, 'an announcement');
    await mutate(`mutation React($panelId: ID!) { sendChatReaction(panelId: $panelId, emoji: "🔥") { success } }`, { panelId: room }, member$);
    await seenEverywhere('room', 'chatMessages', (event) => event.reactions?.some((count: any) => count.emoji === '🔥'), 'reactions');
    const spam = await send(room, 'buy now', viewer(site, troll.token));
    ok(spam);
    ok(await rest(writer, 'POST', `/chat/v1/${room}/messages/${spam.body.id}/report`, { headers: member$, body: { reason: 'spam' } }));
    await seenEverywhere('moderation', 'chatModeration', (event) => event.kind === 'REPORTED', 'REPORTED');
    await mutate(
      `mutation Warn($accountId: ID!) { warnChatAccount(accountId: $accountId, reason: "Be kind") { id } }`,
      { accountId: troll.accountId },
      site.admin,
    );
    await mutate(
      `mutation Delete($panelId: ID!, $id: ID!) { deleteChatMessage(panelId: $panelId, id: $id) { success } }`,
      { panelId: room, id: spam.body.id },
      site.admin,
    );
    await seenEverywhere('room', 'chatMessages', (event) => event.kind === 'DELETED', 'DELETED');
    await send(room, 'still here', viewer(site, (await site.signIn([])).token));
    await mutate(
      `mutation Timeout($accountId: ID!) { banChatAccount(accountId: $accountId, durationSeconds: 60, reason: "Spam") { accountId } }`,
      { accountId: troll.accountId },
      site.admin,
    );
    await seenEverywhere('room', 'chatMessages', (event) => event.kind === 'CLEARED', 'CLEARED');
    await seenEverywhere('room', 'chatMessages', (event) => typeof event.viewers === 'number', 'the viewer count');

    // Q&A: a question with its author, an anonymous one, a vote, one answered and one highlighted.
    await seenEverywhere('qa', 'qaRoom', (event) => Array.isArray(event.questions), 'the room');
    const named = await ask(writer, site, troll.token, qa, { text: 'Who is on next?' });
    expect(named.status).toBe(201);
    const anonymous = await ask(writer, site, member.token, qa, { text: 'When is the break?', anonymous: true });
    expect(anonymous.status).toBe(201);
    ok(await vote(writer, site, member.token, qa, named.body.id));
    ok(await moderate(writer, site, qa, anonymous.body.id, 'answer'));
    ok(await moderate(writer, site, qa, named.body.id, 'highlight'));
    await seenEverywhere(
      'qa',
      'qaRoom',
      (event) => event.highlightedId === named.body.id && event.questions.some((question: any) => question.votes === 1 && question.author?.name !== undefined),
      'the vote and the highlight',
    );
    await seenEverywhere(
      'qa',
      'qaRoom',
      (event) => event.questions.some((question: any) => question.status === 'answered' && question.author === null),
      'answered',
    );

    // A poll answered (quest progress and completion), then closed.
    ok(await rest(writer, 'POST', `/poll/v3/${pollId}/answer`, { headers: member$, body: { answerId: 'yes' } }));
    await seenEverywhere('poll', 'pollResults', (event) => event.total === 1, 'the answer counted');
    await seenEverywhere('quest', 'questProgress', (event) => event.completed === true, 'the quest completed');
    ok(await rest(writer, 'PATCH', `/poll/v3/${pollId}`, { headers: site.admin, body: { open: false } }));
    await seenEverywhere('poll', 'pollResults', (event) => event.open === false, 'the poll closed');

    // The show through every state, with its recording delivered; the stream's changes to its admins.
    ok(await rest(writer, 'POST', `/stream/v1/${show.stream._id}/start`, { headers: site.admin }));
    const states: [hook: 'connected' | 'active' | 'disconnected' | 'idle', state: string][] = [
      ['connected', 'STARTING'],
      ['active', 'LIVE'],
      ['disconnected', 'RECONNECTING'],
      ['active', 'LIVE'],
    ];
    let time = 10;
    const times: Record<string, number> = {};
    for (const [hook, state] of states) {
      ok(await show.hook(hook, (time += 10)));
      const count = (times[state] = (times[state] ?? 0) + 1);
      // A state seen again (LIVE after RECONNECTING) counts as a new change on each transport.
      await until(
        () => of('show'),
        (entries) =>
          entries.every((entry) => entry.failure !== null || events(entry, 'channelStatus').filter((event) => event.state === state).length >= count),
        `show: ${state} (${count}) on every transport`,
      );
    }
    const broadcast = await rest(writer, 'POST', `/overlay/v1/broadcast/${overlay.body._id}`, {
      headers: site.admin,
      body: { channelId: show.channelId, duration: 30, variables: { name: 'Ada' } },
    });
    ok(broadcast);
    await seenEverywhere('overlays', 'overlayBroadcasts', (event) => event.kind === 'SHOW', 'SHOW');
    ok(await rest(writer, 'POST', `/broadcast/${overlay.body._id}/tag/vip`, { headers: site.admin, body: { channelId: show.channelId, duration: 30 } }));
    await seenEverywhere('overlays', 'overlayBroadcasts', (event) => event.kind === 'SHOW' && event.tagId === 'vip', 'a tagged SHOW');
    ok(await rest(writer, 'POST', `/overlay/v1/clear-broadcast/${show.channelId}`, { headers: site.admin }));
    await seenEverywhere('overlays', 'overlayBroadcasts', (event) => event.kind === 'CLEAR', 'CLEAR');

    const started = await rest(writer, 'GET', `/stream/v1/${show.stream._id}`, { headers: site.admin });
    ok(await rest(writer, 'POST', `/stream/v1/${show.stream._id}/stop`, { headers: site.admin }));
    const vod = {
      durationSeconds: 42,
      liveBroadcastId: started.body.liveBroadcastId,
      vodId: `vod-${show.channelId}`,
      streamId: show.stream.providerStreamId,
      url: 'https://cdn.fake.test/walk.m3u8',
    };
    ok(await rest(writer, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${contract.authorization}` }, body: vod }));
    await show.hook('disconnected', (time += 10));
    await show.hook('idle', (time += 10));
    await seenEverywhere('show', 'channelStatus', (event) => event.state === 'ENDED' && event.recordingVideoId !== null, 'ENDED with its recording');
    await seenEverywhere('streams', 'streamStateChanged', (event) => event.change === 'idle', 'idle');

    // Every event of every subscription, on every transport: no error, and every selected field of its type.
    const problems: string[] = [];
    for (const entry of watched) {
      const label = `${entry.transport} ${entry.name}`;
      if (entry.failure) problems.push(`${label}: ended with ${String((entry.failure as Error).message ?? JSON.stringify(entry.failure))}`);
      if (entry.results.length === 0) problems.push(`${label}: no event`);
      const document = parse(entry.query);
      entry.results.forEach((result, index) => {
        if (result.errors) problems.push(`${label} #${index}: ${JSON.stringify(result.errors)}`);
        for (const problem of problemsOf(schema, document, result.data, result.errors)) problems.push(`${label} #${index}: ${problem}`);
      });
    }
    expect(problems).toEqual([]);
  });
});
