/**
 * Quests that complete themselves: progress from answers and from watch time (real graphql-ws sockets;
 * two sockets of one account count once, another channel and a closed window do not count), completion
 * once (one claim, one signed webhook received by a real HTTP server, one point) however many answers
 * follow, the questProgress subscription, the raffle (draw, once only, errors), tenancy, and two
 * instances of one deployment completing an account's quest once.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from 'graphql-ws';
import { createMemoryBus } from '../../shared/bus/memory';
import { listenSubgraph } from '../../shared/subgraph';
import { SiteCache } from '../../shared/viewerReads';
import { SUBGRAPH_FACTORIES, type Stack } from '../../stack';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { graphql, rest } from '../helpers/http';
import { channelNamed, createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { connectClient, watch, type Viewer } from '../helpers/viewer';
import { expectStatus, until as waitUntil } from '../helpers/wait';
import { documentedSignatureHolds } from '../helpers/webhookSignature';
import { questDepsOf } from '../../subgraphs/content/quests/deps';
import { evaluateQuest } from '../../subgraphs/content/quests/progress';
import { drawUniformly } from '../../subgraphs/content/quests/raffle';

/** Watch time is written every 200 ms here, so seconds show up fast. */
const env = { WATCH_FLUSH_MS: '200', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '1000' };

let stack: Stack;
let site: TestSite;
let other: TestSite;
const servers: Server[] = [];
const clients: Client[] = [];
const viewers: Viewer[] = [];

beforeAll(async () => {
  stack = await startTestStack({ env });
  site = await createTestSite(stack, 'Quest site');
  other = await createTestSite(stack, 'Other site');
});
afterAll(async () => {
  await Promise.all(viewers.map((one) => one.close()));
  await Promise.all(clients.map(async (client) => client.dispose()));
  servers.forEach((server) => server.closeAllConnections());
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await stopAll();
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

async function startReceiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The quest.completed deliveries to an endpoint once none is pending: exactly once is the outbox's row (a
 * delivery is sent again only while its row is pending), not a pause in which no duplicate happened to come.
 */
const settledDeliveries = (db: Stack['database']['prisma'], endpointId: string) =>
  until(
    () => db.webhookDelivery.findMany({ where: { endpointId, event: 'quest.completed' } }),
    (rows) => rows.length > 0 && rows.every((row) => row.status === 'delivered'),
    'the completion delivered',
  );

/** The shared wait (a loaded machine's deadline), with this file's calls' shape. */
const until = <T>(read: () => Promise<T>, test: (value: T) => boolean, what = 'the condition of this step') => waitUntil(read, test, what);

const ANSWERS = [
  { id: 'yes', text: 'Yes' },
  { id: 'no', text: 'No' },
];

async function createPoll(owner: TestSite, on: Stack = stack): Promise<string> {
  const reply = await rest(on, 'POST', '/poll/v3/', { headers: owner.admin, body: { type: 'poll', name: 'Mood', question: 'Happy?', answers: ANSWERS } });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

async function createQuest(owner: TestSite, fields: Record<string, unknown>, on: Stack = stack): Promise<string> {
  const body = {
    title: 'Fan quest',
    description: 'Take part',
    rewardDescription: 'A hoodie',
    rewardType: 'prize',
    claimedMessage: 'Yours!',
    siteId: owner.siteId,
    ...fields,
  };
  const reply = await rest(on, 'POST', '/quest/v2', { headers: owner.admin, body });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

const answer = (owner: TestSite, token: string, pollId: string, channelId?: string, on: Stack = stack) =>
  rest(on, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(owner, token), body: { answerId: 'yes', ...(channelId ? { channelId } : {}) } });

const progress = (owner: TestSite, token: string, questId: string, on: Stack = stack) =>
  rest(on, 'GET', `/quest/v2/${questId}/progress`, { headers: viewer(owner, token) });

describe('progress from answers', () => {
  it('counts polls answered and the named poll, completes once: one claim, one signed webhook, one point', async () => {
    const receiver = await startReceiver();
    const hook = await rest(stack, 'POST', '/webhook/v1/', { headers: site.admin, body: { url: receiver.url, events: ['quest.completed'] } });
    expect(hook.status).toBe(201);
    const [pollA, pollB, pollC] = [await createPoll(site), await createPoll(site), await createPoll(site)];
    const questId = await createQuest(site, {
      rewardType: 'webhook',
      webhookId: 'hoodie-m',
      webhookType: 'merch',
      webhookValue: 25,
      actions: [
        { arrayId: 'any', kind: 'answer:polls:any', valueRequired: 2 },
        { arrayId: 'mood', kind: 'answer:polls:specific', validationValue: pollA },
      ],
    });
    // A witness that no answer completes: its count shows when an answer went through quest progress.
    const witnessId = await createQuest(site, { actions: [{ arrayId: 'count', kind: 'answer:polls:any', valueRequired: 100 }] });
    const { accountId, token } = await site.signIn([]);

    const start = await progress(site, token, questId);
    expect(start.status).toBe(200);
    expect(start.body).toEqual({
      questId,
      completed: false,
      completedAt: null,
      claimedMessage: null,
      actions: [
        { arrayId: 'any', kind: 'answer:polls:any', value: 0, valueRequired: 2, done: false },
        { arrayId: 'mood', kind: 'answer:polls:specific', value: 0, valueRequired: 1, done: false },
      ],
    });

    expect((await answer(site, token, pollB)).status).toBe(200);
    const half = await progress(site, token, questId);
    expect(half.body.actions).toEqual([
      { arrayId: 'any', kind: 'answer:polls:any', value: 1, valueRequired: 2, done: false },
      { arrayId: 'mood', kind: 'answer:polls:specific', value: 0, valueRequired: 1, done: false },
    ]);

    expect((await answer(site, token, pollA)).status).toBe(200);
    const done = await until(
      async () => expectStatus(await progress(site, token, questId), 200),
      (reply) => reply.body.completed === true,
    );
    expect(done.body.completedAt).toEqual(expect.any(Number));
    // What the viewer is shown for the reward comes with the completion (the quest's claimedMessage).
    expect(done.body.claimedMessage).toBe('Yours!');
    expect(done.body.actions.every((action: { done: boolean }) => action.done)).toBe(true);

    // A further answer changes nothing of the completion.
    expect((await answer(site, token, pollC)).status).toBe(200);
    await until(
      async () => expectStatus(await progress(site, token, witnessId), 200),
      (reply) => reply.body.actions[0].value === 3,
      'the third answer counted',
    );

    // The claim follows the completion without holding it up (subgraphs/content/quests/completion.ts): waited for.
    const mine = await until(
      async () => expectStatus(await rest(stack, 'GET', '/claimstatus/v3/', { headers: viewer(site, token) }), 200),
      (reply) => reply.body.length > 0,
      'the claim recorded',
    );
    // The claim's answer carries what the viewer is shown for the reward (the quest's, from the content subgraph).
    expect(mine.body).toEqual([expect.objectContaining({ questId, accountId, productId: 'hoodie-m', status: 'PENDING', claimedMessage: 'Yours!' })]);
    const claimId = mine.body[0]._id;
    const all = await rest(stack, 'GET', `/claimstatus/v3/?questId=${questId}`, { headers: site.admin });
    expect(all.body.map((claim: { _id: string }) => claim._id)).toEqual([claimId]);

    // Exactly once is the outbox's fact: one delivery of the event, and it was delivered (no attempt pending).
    const deliveries = await settledDeliveries(stack.database.prisma, hook.body._id ?? hook.body.id);
    expect(deliveries).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(delivery.headers['x-stagegraph-event']).toBe('quest.completed');
    expect(documentedSignatureHolds(delivery.headers['x-stagegraph-signature'], delivery.body, hook.body.secret)).toBe(true);
    expect(JSON.parse(delivery.body)).toMatchObject({
      event: 'quest.completed',
      siteId: site.siteId,
      eventData: {
        questId,
        accountId,
        claimId,
        rewardType: 'webhook',
        webhookId: 'hoodie-m',
        webhookType: 'merch',
        webhookValue: 25,
        claimedMessage: 'Yours!',
      },
    });

    const me = await rest(stack, 'GET', '/leaderboard/v1/me', { headers: viewer(site, token) });
    expect(me.body).toMatchObject({ accountId, points: 1 });
    expect(await stack.database.prisma.questCompletion.count({ where: { questId } })).toBe(1);
  });

  it('counts only answers on the quest’s channels and inside its window; other kinds are shown and never done', async () => {
    const poll1 = await createPoll(site);
    const poll2 = await createPoll(site);
    const onStage = await createQuest(site, { channelIds: ['stage'], actions: [{ arrayId: 'a', kind: 'answer:polls:any', valueRequired: 1 }] });
    const closed = await createQuest(site, { timeMinimum: 1_000, timeMaximum: 2_000, actions: [{ arrayId: 'a', kind: 'answer:polls:any' }] });
    const actionChannel = await createQuest(site, { actions: [{ arrayId: 'a', kind: 'answer:polls:any', channelId: 'backstage' }] });
    const dancing = await createQuest(site, {
      actions: [
        { arrayId: 'd', kind: 'dance:all:night', valueRequired: 1 },
        { arrayId: 'a', kind: 'answer:polls:any' },
      ],
    });
    const { token } = await site.signIn([]);

    expect((await answer(site, token, poll1, 'lobby')).status).toBe(200);
    expect((await progress(site, token, onStage)).body.actions[0]).toMatchObject({ value: 0, done: false });
    expect((await progress(site, token, actionChannel)).body.actions[0]).toMatchObject({ value: 0, done: false });
    expect((await answer(site, token, poll2, 'stage')).status).toBe(200);
    expect(
      (
        await until(
          async () => expectStatus(await progress(site, token, onStage), 200),
          (reply) => reply.body.completed,
        )
      ).body.actions[0],
    ).toMatchObject({ value: 1, done: true });
    expect((await progress(site, token, actionChannel)).body.actions[0]).toMatchObject({ value: 0, done: false });
    expect((await progress(site, token, closed)).body).toMatchObject({ completed: false, actions: [{ value: 0, done: false }] });
    const shown = await progress(site, token, dancing);
    expect(shown.body).toMatchObject({
      completed: false,
      actions: [
        { arrayId: 'd', kind: 'dance:all:night', value: 0, valueRequired: 1, done: false },
        { arrayId: 'a', kind: 'answer:polls:any', value: 2, valueRequired: 1, done: true },
      ],
    });
  });

  it('needs a signed-in viewer of the site; another site sees nothing of it', async () => {
    const questId = await createQuest(site, { actions: [{ kind: 'answer:polls:any' }] });
    const { token } = await site.signIn([]);
    const { token: outsider } = await other.signIn([]);
    expect((await rest(stack, 'GET', `/quest/v2/${questId}/progress`, { headers: viewer(site) })).status).toBe(401);
    expect((await progress(other, outsider, questId)).status).toBe(404);
    expect((await rest(stack, 'GET', `/quest/v2/${questId}/progress`, { headers: viewer(site, outsider) })).status).toBe(401);
    const gql = await graphql(
      stack,
      /* GraphQL */ `query($id: ID!) { questProgress(questId: $id) { questId completed actions { arrayId kind value done } } }`,
      { id: questId },
      viewer(site, token),
    );
    expect(gql.body.data?.questProgress).toEqual({ questId, completed: false, actions: [{ arrayId: '#0', kind: 'answer:polls:any', value: 0, done: false }] });
    expect((await rest(stack, 'GET', `/claimstatus/v3/?questId=${questId}`, { headers: other.admin })).body).toEqual([]);
  });
});

describe('the questProgress subscription', () => {
  it('pushes an account its own progress on every quest of the site, and nobody else’s', async () => {
    const pollId = await createPoll(site);
    const questId = await createQuest(site, { actions: [{ arrayId: 'p', kind: 'answer:polls:specific', validationValue: pollId }] });
    const subscribe = (token?: string) => {
      const events: any[] = [];
      const errors: unknown[] = [];
      const client = connectClient(
        stack,
        token ? { 'x-service-client-id': site.siteId, Authorization: `Bearer ${token}` } : { 'x-service-client-id': site.siteId },
      );
      clients.push(client);
      client.subscribe<{ questProgress: any }>(
        { query: /* GraphQL */ `subscription { questProgress { questId accountId completed claimId actions { arrayId value done } } }` },
        {
          next: (result) => (result.errors ? errors.push(result.errors) : events.push(result.data?.questProgress)),
          error: (error) => errors.push(error),
          complete: () => undefined,
        },
      );
      return { events, errors };
    };
    const ana = await site.signIn([]);
    const bob = await site.signIn([]);
    const before = stack.gateway.live.stats().subscriptions;
    const anas = subscribe(ana.token);
    const bobs = subscribe(bob.token);
    const nobody = subscribe();
    // Ana's and Bob's subscriptions are registered (nobody's is refused) before Ana answers.
    await until(
      async () => stack.gateway.live.stats().subscriptions,
      (count) => count >= before + 2,
    );
    await until(
      async () => nobody.errors.length,
      (count) => count > 0,
    );
    expect((await answer(site, ana.token, pollId)).status).toBe(200);
    const event = (
      await until(
        async () => anas.events,
        (events) => events.some((one) => one.questId === questId && one.completed),
      )
    ).find((one) => one.questId === questId && one.completed);
    expect(event).toMatchObject({ accountId: ana.accountId, completed: true, claimId: expect.any(String), actions: [{ arrayId: 'p', value: 1, done: true }] });
    // Bob's own progress is the marker: had Ana's reached him, it would have come first.
    expect((await answer(site, bob.token, pollId)).status).toBe(200);
    await until(
      async () => bobs.events,
      (events) => events.some((one) => one.questId === questId && one.completed),
    );
    expect(bobs.events.map((one) => one.accountId)).toEqual(bobs.events.map(() => bob.accountId));
    expect(anas.events.map((one) => one.accountId)).toEqual(anas.events.map(() => ana.accountId));
    expect(nobody.events).toEqual([]);
    expect(JSON.stringify(nobody.errors)).toContain('UNAUTHENTICATED');
  });
});

describe('progress from watch time', () => {
  it('counts seconds a signed-in viewer holds the channel once however many sockets; not other channels, not a closed window', async () => {
    const arena = await channelNamed(stack, site.siteId, 'arena');
    const questId = await createQuest(site, { channelIds: [arena], actions: [{ arrayId: 'w', kind: 'watch:any:video', valueRequired: 3 }] });
    const closed = await createQuest(site, { timeMaximum: Date.now() - 60_000, actions: [{ arrayId: 'w', kind: 'watch:any:video', valueRequired: 1 }] });
    const elsewhere = await createQuest(site, { actions: [{ arrayId: 'w', kind: 'watch:any:video', valueRequired: 1, channelId: 'lobby' }] });
    const { token } = await site.signIn([]);

    const pushed: any[] = [];
    const client = connectClient(stack, { 'x-service-client-id': site.siteId, Authorization: `Bearer ${token}` });
    clients.push(client);
    client.subscribe<{ questProgress: any }>(
      {
        query: /* GraphQL */ `subscription($id: ID) { questProgress(questId: $id) { questId completed actions { arrayId value done } } }`,
        variables: { id: questId },
      },
      { next: (result) => result.data && pushed.push(result.data.questProgress), error: () => undefined, complete: () => undefined },
    );

    const started = Date.now();
    const tabs = [await watch(stack, { siteId: site.siteId, channelId: arena, token }), await watch(stack, { siteId: site.siteId, channelId: arena, token })];
    viewers.push(...tabs);
    const done = await until(
      async () => expectStatus(await progress(site, token, questId), 200),
      (reply) => reply.body.completed,
    );
    const elapsed = (Date.now() - started) / 1000;
    const seconds = done.body.actions[0].value;
    expect(seconds).toBeGreaterThanOrEqual(3);
    // Two sockets, one account: never more seconds than the wall clock gave.
    expect(seconds).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
    await Promise.all(tabs.map((tab) => tab.close()));

    expect((await progress(site, token, closed)).body.actions[0]).toMatchObject({ value: 0, done: false });
    expect((await progress(site, token, elsewhere)).body.actions[0]).toMatchObject({ value: 0, done: false });
    // The subscription heard the seconds grow and the completion.
    await until(
      async () => pushed,
      (events) => events.some((event) => event.completed),
    );
    expect(pushed.every((event) => event.questId === questId)).toBe(true);
    expect(new Set(pushed.map((event) => event.actions[0].value)).size).toBeGreaterThan(1);
    // The masks hold each second once.
    const rows = await stack.database.prisma.watchMinute.findMany({ where: { siteId: site.siteId, channelId: arena } });
    const bits = rows.reduce((sum, row) => sum + row.mask.toString(2).split('1').length - 1, 0);
    expect(bits).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
  });

  it('counts nothing for a viewer without a token, nor for the site-wide subscription', async () => {
    const questId = await createQuest(site, { actions: [{ arrayId: 'w', kind: 'watch:any:video', valueRequired: 1 }] });
    const { token } = await site.signIn([]);
    const watching = async () => stack.gateway.watchTime?.size() ?? 0;
    // Viewers of the tests before retire at the counter's next tick.
    await until(watching, (size) => size === 0, 'no one watching');
    viewers.push(
      await watch(stack, { siteId: site.siteId, channelId: await channelNamed(stack, site.siteId, 'arena') }),
      await watch(stack, { siteId: site.siteId, token }),
    );
    // The marker: the same account on a channel with its token is counted; the two before it would be counted first.
    viewers.push(await watch(stack, { siteId: site.siteId, channelId: await channelNamed(stack, site.siteId, 'arena'), token }));
    await until(watching, (size) => size > 0, 'the marker counted');
    expect(await watching()).toBe(1);
    await until(
      async () => expectStatus(await progress(site, token, questId), 200),
      (reply) => reply.body.completed === true,
      'the marker’s second counted',
    );
    // Every second counted is the marker's: its own entry is the only one the counter holds.
    expect(await watching()).toBe(1);
  });
});

describe('progress of many accounts at once', () => {
  it('evaluates a batch of 1,200 accounts (more than one statement may name on SQLite) in one look', async () => {
    const questId = await createQuest(site, {
      actions: [
        { arrayId: 'w', kind: 'watch:any:video', valueRequired: 5 },
        { arrayId: 'a', kind: 'answer:polls:any' },
      ],
    });
    const quest = await stack.database.prisma.quest.findUniqueOrThrow({ where: { id: questId } });
    const accountIds = Array.from({ length: 1200 }, (_, index) => `batch-account-${index}`);
    const views = await evaluateQuest(questDepsOf(stack.deps, new SiteCache()), quest, accountIds);
    expect(views).toHaveLength(1200);
    expect(views.every((view) => !view.completed && view.actions.every((action) => action.value === 0))).toBe(true);
  });
});

describe('raffle', () => {
  it('draws winners once among those who completed it; the others are rejected', async () => {
    const pollId = await createPoll(site);
    const questId = await createQuest(site, { rewardType: 'raffle', actions: [{ kind: 'answer:polls:specific', validationValue: pollId }] });
    const players = [await site.signIn([]), await site.signIn([]), await site.signIn([])];
    for (const player of players) expect((await answer(site, player.token, pollId)).status).toBe(200);
    await until(
      () => stack.database.prisma.questCompletion.count({ where: { questId, claimRecordedAt: { not: null } } }),
      (count) => count === 3,
    );

    const prize = await createQuest(site, { actions: [{ kind: 'answer:polls:any' }] });
    expect((await rest(stack, 'POST', `/quest/v2/${prize}/raffle`, { headers: site.admin, body: { winners: 1 } })).body).toEqual({
      success: false,
      message: expect.stringContaining('rewardType'),
    });
    const zero = await rest(stack, 'POST', `/quest/v2/${questId}/raffle`, { headers: site.admin, body: { winners: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body.message).toContain('winners');
    expect((await rest(stack, 'POST', `/quest/v2/${questId}/raffle`, { headers: other.admin, body: { winners: 1 } })).status).toBe(404);
    expect((await rest(stack, 'POST', `/quest/v2/${questId}/raffle`, { headers: viewer(site, players[0].token), body: { winners: 1 } })).status).toBe(403);
    expect((await rest(stack, 'POST', `/quest/v2/${questId}/raffle`, { headers: viewer(site), body: { winners: 1 } })).status).toBe(401);

    const drawn = await rest(stack, 'POST', `/quest/v2/${questId}/raffle`, { headers: site.admin, body: { winners: 2 } });
    expect(drawn.status).toBe(200);
    expect(drawn.body.success).toBe(true);
    expect(drawn.body.winners).toHaveLength(2);
    const accounts = players.map((player) => player.accountId);
    for (const winner of drawn.body.winners) expect(accounts).toContain(winner.accountId);
    expect(new Set(drawn.body.winners.map((winner: { accountId: string }) => winner.accountId)).size).toBe(2);

    const again = await rest(stack, 'POST', `/quest/v2/${questId}/raffle`, { headers: site.admin, body: { winners: 1 } });
    expect(again.status).toBe(409);
    expect(again.body.success).toBe(false);

    const claims = await until(
      async () =>
        expectStatus(await rest(stack, 'GET', `/claimstatus/v3/?questId=${questId}`, { headers: site.admin }), 200).body as {
          _id: string;
          accountId: string;
          status: string;
          claimedMessage: string | null;
        }[],
      (list) => list.every((claim) => claim.status !== 'PENDING'),
    );
    const winners = new Set(drawn.body.winners.map((winner: { claimId: string }) => winner.claimId));
    expect(claims).toHaveLength(3);
    for (const claim of claims) expect(claim.status).toBe(winners.has(claim._id) ? 'APPROVED' : 'REJECTED');
    // Winners are shown the reward's message; the others are not told they won.
    const { claimedMessage } = expectStatus(await rest(stack, 'GET', `/quest/v2/${questId}`, { headers: site.admin }), 200).body;
    for (const claim of claims) expect(claim.claimedMessage).toBe(winners.has(claim._id) ? claimedMessage : null);
    // A viewer sees only its own claims (this raffle's, and the prize quest its answer completed too).
    const own = await rest(stack, 'GET', '/claimstatus/v3/', { headers: viewer(site, players[0].token) });
    expect(own.body.length).toBeGreaterThan(0);
    expect(new Set(own.body.map((claim: { accountId: string }) => claim.accountId))).toEqual(new Set([players[0].accountId]));
  });

  it('draws every completer when fewer completed than asked, uniformly over many draws', async () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < 3000; i += 1) for (const pick of drawUniformly([0, 1, 2], 1)) counts.set(pick, (counts.get(pick) ?? 0) + 1);
    for (const value of [0, 1, 2]) expect(counts.get(value)).toBeGreaterThan(800);
    expect(drawUniformly([1, 2], 5).sort()).toEqual([1, 2]);
  });
});

describe('a completion interrupted between its steps', () => {
  it('keeps the completion and point, and the outbox records the claim and sends the webhook once community is back', async () => {
    const own = await startTestStack({ env });
    const owner = await createTestSite(own, 'Outbox site');
    const receiver = await startReceiver();
    const hook = await rest(own, 'POST', '/webhook/v1/', { headers: owner.admin, body: { url: receiver.url, events: ['quest.completed'] } });
    expect(hook.status).toBe(201);
    const pollId = await createPoll(owner, own);
    const questId = await createQuest(owner, { actions: [{ kind: 'answer:polls:specific', validationValue: pollId }] }, own);
    const { accountId, token } = await owner.signIn([]);

    // The community subgraph (which owns claims) stops: the completion cannot record its claim.
    const port = own.subgraphs.community.port;
    await own.subgraphs.community.close();
    expect((await answer(owner, token, pollId, undefined, own)).status).toBe(200);
    await until(
      async () => expectStatus(await progress(owner, token, questId, own), 200),
      (reply) => reply.body.completed === true,
    );
    const db = own.database.prisma;
    expect(await db.pointAward.count({ where: { accountId, reason: 'quest', sourceId: questId } })).toBe(1);
    await sleep(500);
    expect(await db.claimStatus.count({ where: { questId } })).toBe(0);
    expect(receiver.received).toHaveLength(0);

    own.subgraphs.community = await listenSubgraph('community', SUBGRAPH_FACTORIES.community(own.deps.logger, own.deps), own.deps, port);
    const completion = await db.questCompletion.findUniqueOrThrow({ where: { questId_accountId: { questId, accountId } } });
    await until(
      () => db.claimStatus.findMany({ where: { questId } }),
      (claims) => claims.length === 1,
    );
    expect((await db.claimStatus.findFirstOrThrow({ where: { questId } })).id).toBe(completion.claimId);
    expect(await settledDeliveries(db, hook.body._id ?? hook.body.id)).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0].body).eventData).toMatchObject({ questId, accountId, claimId: completion.claimId });
  });
});

describe('two instances of one deployment', () => {
  it(`complete an account's quest once and count its watch time once (${usingRedis ? 'PostgreSQL + Redis' : 'shared in-process bus'})`, async () => {
    const bus = usingRedis ? undefined : createMemoryBus();
    const first = await startTestStack({ bus, env });
    const second = await startTestStack({ sameDeploymentAs: first, bus, env });
    const owner = await createTestSite(first, 'Fleet site');
    const hall = await createChannel(first, owner.siteId);
    const receiver = await startReceiver();
    const hook = await rest(first, 'POST', '/webhook/v1/', { headers: owner.admin, body: { url: receiver.url, events: ['*'] } });
    expect(hook.status).toBe(201);
    const pollId = await createPoll(owner, first);
    const questId = await createQuest(
      owner,
      {
        channelIds: [hall],
        actions: [
          { kind: 'answer:polls:specific', validationValue: pollId },
          { arrayId: 'w', kind: 'watch:any:video', valueRequired: 2 },
        ],
      },
      first,
    );
    const { accountId, token } = await owner.signIn([]);
    expect((await answer(owner, token, pollId, hall, first)).status).toBe(200);

    // The same account watches the hall on both instances at once: each second counts once.
    const started = Date.now();
    const tabs = [await watch(first, { siteId: owner.siteId, channelId: hall, token }), await watch(second, { siteId: owner.siteId, channelId: hall, token })];
    viewers.push(...tabs);
    // Both instances look at the progress over and over while the last action gets done.
    const reads: Promise<unknown>[] = [];
    const done = await until(
      async () => {
        reads.push(progress(owner, token, questId, first), progress(owner, token, questId, second));
        return expectStatus(await progress(owner, token, questId, second), 200);
      },
      (reply) => reply.body.completed,
      'completed, seen from the second instance',
    );
    await Promise.all(reads);
    await Promise.all(tabs.map((tab) => tab.close()));
    expect(done.body.actions[1].value).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);

    const db = first.database.prisma;
    expect(await db.questCompletion.count({ where: { questId } })).toBe(1);
    await until(
      () => db.claimStatus.count({ where: { questId } }),
      (count) => count === 1,
    );
    expect(await settledDeliveries(db, hook.body._id ?? hook.body.id)).toHaveLength(1);
    // Webhooks are at least once: an attempt answered after the sender gave up on it is sent again with the same
    // delivery ID, the receiver's key for doing it once. One completion is one delivery, however many attempts.
    const completed = receiver.received.filter((one) => one.headers['x-stagegraph-event'] === 'quest.completed');
    expect(new Set(completed.map((one) => one.headers['x-stagegraph-delivery']))).toHaveProperty('size', 1);
    expect(await db.pointAward.count({ where: { accountId, reason: 'quest', sourceId: questId } })).toBe(1);
    expect((await rest(second, 'GET', '/leaderboard/v1/me', { headers: viewer(owner, token) })).body.points).toBe(1);
  });
});
