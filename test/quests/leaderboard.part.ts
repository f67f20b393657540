/**
 * Points and the leaderboard: a point per right trivia answer when the trivia closes and per right
 * prediction when resolved, exactly once; the ranking (ties to whoever reached the score first) with
 * names from the community subgraph and never an e-mail; poll.closed and poll.resolved webhooks with
 * the final results, received by a real HTTP server; tenancy.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Stack } from '../../stack';
import { awardPoints } from '../../subgraphs/content/leaderboard';
import { join, viewer, type Member } from '../helpers/community';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { DEADLINE_MS } from '../helpers/wait';

let stack: Stack;
let site: TestSite;
let other: TestSite;
const servers: Server[] = [];

interface Received {
  headers: IncomingHttpHeaders;
  body: any;
}

async function startReceiver(): Promise<{ url: string; received: Received[]; waitFor(test: (all: Received[]) => boolean): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    async waitFor(test) {
      const deadline = Date.now() + DEADLINE_MS;
      while (!test(received)) {
        if (Date.now() > deadline) throw new Error(`webhooks received: ${JSON.stringify(received.map((entry) => entry.body.event))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

beforeAll(async () => {
  stack = await startTestStack({ env: { WEBHOOK_RETRY_BASE_MS: '50' } });
  site = await createTestSite(stack, 'Points site');
  other = await createTestSite(stack, 'Other site');
});
afterAll(async () => {
  servers.forEach((server) => server.closeAllConnections());
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await stopAll();
});

const ANSWERS = [
  { id: 'yes', text: 'Yes' },
  { id: 'no', text: 'No' },
];

async function createPoll(type: 'poll' | 'trivia' | 'prediction') {
  const reply = await rest(stack, 'POST', '/poll/v3/', {
    headers: site.admin,
    body: { type, name: type, question: 'Will it?', answers: ANSWERS, ...(type === 'trivia' ? { correctAnswerId: 'yes' } : {}) },
  });
  expect(reply.status).toBe(200);
  return reply.body._id as string;
}

async function answerAs(member: Member, pollId: string, answerId: string) {
  expect((await rest(stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, member.jwt), body: { answerId } })).status).toBe(200);
}

const board = async (query = '') => (await rest(stack, 'GET', `/leaderboard/v1/${query}`, { headers: viewer(site) })).body;
const me = async (member: Member) => rest(stack, 'GET', '/leaderboard/v1/me', { headers: viewer(site, member.jwt) });

it('accepts poll.closed, poll.resolved, quest.completed and * as webhook events, and nothing unknown', async () => {
  for (const events of [['poll.closed'], ['poll.resolved'], ['quest.completed'], ['*'], ['admin.channelUpdated', 'poll.closed']]) {
    const reply = await rest(stack, 'POST', '/webhook/v1/', { headers: other.admin, body: { url: 'https://hooks.example.test/in', events } });
    expect(reply.status).toBe(201);
    expect(reply.body.events).toEqual(events);
  }
  const unknown = await rest(stack, 'POST', '/webhook/v1/', { headers: other.admin, body: { url: 'https://hooks.example.test/in', events: ['poll.opened'] } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.message).toContain('events[0]');
});

it('awards points once when trivia closes and a prediction resolves, ranks them, and reports both by webhook', async () => {
  const polls = await startReceiver();
  const everything = await startReceiver();
  const channels = await startReceiver();
  for (const [receiver, events] of [
    [polls, ['poll.closed', 'poll.resolved']],
    [everything, ['*']],
    [channels, ['admin.channelUpdated']],
  ] as const) {
    expect((await rest(stack, 'POST', '/webhook/v1/', { headers: site.admin, body: { url: receiver.url, events } })).status).toBe(201);
  }
  const [ada, bob, cyd] = [await join(stack, site, { name: 'Ada' }), await join(stack, site, { name: 'Bob' }), await join(stack, site, { name: 'Cyd' })];

  // Trivia: Ada and Bob are right, Cyd is not. Bob answered first, but points count from the close.
  const trivia = await createPoll('trivia');
  await answerAs(bob, trivia, 'yes');
  await answerAs(ada, trivia, 'yes');
  await answerAs(cyd, trivia, 'no');
  expect((await board()).pagination.totalCount).toBe(0);
  expect((await rest(stack, 'PATCH', `/poll/v3/${trivia}`, { headers: site.admin, body: { open: false } })).status).toBe(200);
  // Closing again (a replace that keeps it closed) gives nothing twice.
  expect((await rest(stack, 'PATCH', `/poll/v3/${trivia}`, { headers: site.admin, body: { name: 'trivia, renamed', open: false } })).status).toBe(200);
  // The revealed answer is final: its points are given.
  expect((await rest(stack, 'PATCH', `/poll/v3/${trivia}`, { headers: site.admin, body: { correctAnswerId: 'no' } })).status).toBe(409);
  let page = await board();
  expect(page.pagination).toEqual({ limit: 10, offset: 0, totalCount: 2 });
  expect(page.results.map((entry: { name: string; points: number }) => [entry.name, entry.points]).sort()).toEqual([
    ['Ada', 1],
    ['Bob', 1],
  ]);
  expect(page.results.map((entry: { rank: number }) => entry.rank)).toEqual([1, 2]);

  // A prediction: Bob is right. Closing reports poll.closed; setting the outcome resolves it.
  const prediction = await createPoll('prediction');
  await answerAs(bob, prediction, 'no');
  await answerAs(cyd, prediction, 'yes');
  expect((await rest(stack, 'PATCH', `/poll/v3/${prediction}`, { headers: site.admin, body: { open: false } })).status).toBe(200);
  const beforeOutcome = await rest(stack, 'GET', `/poll/v3/${prediction}/results`, { headers: viewer(site, bob.jwt) });
  expect(beforeOutcome.body).toMatchObject({ open: false, correctAnswerId: null, mine: { answerId: 'no', correct: null } });
  expect((await rest(stack, 'PATCH', `/poll/v3/${prediction}`, { headers: site.admin, body: { correctAnswerId: 'no' } })).status).toBe(200);
  const resolved = await rest(stack, 'GET', `/poll/v3/${prediction}/results`, { headers: viewer(site, bob.jwt) });
  expect(resolved.body).toMatchObject({ correctAnswerId: 'no', mine: { answerId: 'no', correct: true } });
  // The outcome is final: its points are given.
  const changed = await rest(stack, 'PATCH', `/poll/v3/${prediction}`, { headers: site.admin, body: { correctAnswerId: 'yes' } });
  expect(changed.status).toBe(409);

  page = await board();
  expect(page.results.map((entry: { rank: number; name: string; points: number }) => [entry.rank, entry.name, entry.points])).toEqual([
    [1, 'Bob', 2],
    [2, 'Ada', 1],
  ]);
  expect(JSON.stringify(page)).not.toContain('@');
  expect((await board('?limit=1&offset=1')).results).toEqual([{ rank: 2, accountId: ada.accountId, name: 'Ada', points: 1 }]);
  const mine = await me(bob);
  expect(mine.status).toBe(200);
  expect(mine.body).toEqual({ rank: 1, accountId: bob.accountId, name: 'Bob', points: 2 });
  expect((await me(ada)).body).toEqual({ rank: 2, accountId: ada.accountId, name: 'Ada', points: 1 });
  expect((await me(cyd)).body).toEqual({ rank: null, accountId: cyd.accountId, name: 'Cyd', points: 0 });
  expect((await rest(stack, 'GET', '/leaderboard/v1/me', { headers: viewer(site) })).status).toBe(401);
  const awards = await stack.database.prisma.pointAward.findMany({ where: { siteId: site.siteId }, orderBy: { reason: 'asc' } });
  expect(awards.map((award) => [award.reason, award.accountId]).sort()).toEqual(
    [
      ['prediction', bob.accountId],
      ['trivia', ada.accountId],
      ['trivia', bob.accountId],
    ].sort(),
  );

  // Webhooks: poll.closed for both polls, poll.resolved for the prediction, each with the final results.
  await polls.waitFor((all) => all.length >= 3);
  await everything.waitFor((all) => all.length >= 3);
  const events = polls.received.map((entry) => `${entry.body.event}:${entry.body.eventData.pollId}`).sort();
  expect(events).toEqual([`poll.closed:${prediction}`, `poll.closed:${trivia}`, `poll.resolved:${prediction}`].sort());
  const triviaClosed = polls.received.find((entry) => entry.body.event === 'poll.closed' && entry.body.eventData.pollId === trivia);
  expect(triviaClosed?.headers['x-stagegraph-event']).toBe('poll.closed');
  expect(triviaClosed?.body.eventData).toEqual({
    pollId: trivia,
    type: 'trivia',
    question: 'Will it?',
    open: false,
    total: 3,
    correctAnswerId: 'yes',
    mine: null,
    answers: [
      { id: 'yes', text: 'Yes', count: 2 },
      { id: 'no', text: 'No', count: 1 },
    ],
  });
  const predictionResolved = polls.received.find((entry) => entry.body.event === 'poll.resolved');
  expect(predictionResolved?.body.eventData).toMatchObject({ pollId: prediction, correctAnswerId: 'no', total: 2 });
  expect(everything.received.map((entry) => entry.body.event).sort()).toEqual(['poll.closed', 'poll.closed', 'poll.resolved']);
  expect(channels.received).toEqual([]);

  // GraphQL reads the same.
  const overGraphql = await graphql(
    stack,
    /* GraphQL */ `{ leaderboard(limit: 5) { pagination { totalCount } results { rank accountId name points } } myLeaderboardEntry { rank name points } }`,
    {},
    viewer(site, ada.jwt),
  );
  expect(overGraphql.body.data?.leaderboard.results[0]).toEqual({ rank: 1, accountId: bob.accountId, name: 'Bob', points: 2 });
  expect(overGraphql.body.data?.myLeaderboardEntry).toEqual({ rank: 2, name: 'Ada', points: 1 });

  // Another site's leaderboard shows none of this.
  expect((await rest(stack, 'GET', '/leaderboard/v1/', { headers: viewer(other) })).body).toEqual({
    pagination: { limit: 10, offset: 0, totalCount: 0 },
    results: [],
  });
});

it('ranks ties to whoever reached the score first, and awards each source once (awardPoints)', async () => {
  const tied = await createTestSite(stack, 'Tied site');
  const db = stack.database.prisma;
  const [early, late] = [await tied.signIn([]), await tied.signIn([])];
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
  await awardPoints(db, { siteId: tied.siteId, accountId: late.accountId, reason: 'quest', sourceId: 'q1', points: 1, at: at(2000) });
  await awardPoints(db, { siteId: tied.siteId, accountId: early.accountId, reason: 'quest', sourceId: 'q1', points: 1, at: at(1000) });
  // The same award again, alone and inside a transaction, changes nothing.
  expect(await awardPoints(db, { siteId: tied.siteId, accountId: early.accountId, reason: 'quest', sourceId: 'q1', points: 1, at: at(3000) })).toEqual([]);
  await db.$transaction((tx) =>
    awardPoints(tx, [{ siteId: tied.siteId, accountId: late.accountId, reason: 'quest', sourceId: 'q1', points: 1, at: at(4000) }]),
  );
  const headers = { 'x-service-client-id': tied.siteId };
  let page = (await rest(stack, 'GET', '/leaderboard/v1/', { headers })).body;
  expect(page.results.map((entry: { accountId: string; points: number }) => [entry.accountId, entry.points])).toEqual([
    [early.accountId, 1],
    [late.accountId, 1],
  ]);
  await awardPoints(db, { siteId: tied.siteId, accountId: late.accountId, reason: 'quest', sourceId: 'q2', points: 1, at: at(5000) });
  page = (await rest(stack, 'GET', '/leaderboard/v1/', { headers })).body;
  expect(page.results.map((entry: { rank: number; accountId: string; points: number }) => [entry.rank, entry.accountId, entry.points])).toEqual([
    [1, late.accountId, 2],
    [2, early.accountId, 1],
  ]);
  expect(await db.pointAward.count({ where: { siteId: tied.siteId } })).toBe(3);
  const bad = await rest(stack, 'GET', '/leaderboard/v1/?limit=0', { headers });
  expect(bad.status).toBe(400);
  expect(bad.body.message).toContain('limit');
});
