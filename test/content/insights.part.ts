/** GET /insights/v1/concurrents: live viewers per site and channel, counted across instances, behind a super API key. */
import { signSuperApiKey } from '../../shared/auth/credentials';
import { createMemoryBus } from '../../shared/bus/memory';
import { newId } from '../../shared/ids';
import type { Stack } from '../../stack';
import { usingRedis } from '../helpers/database';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import { watch, type Viewer } from '../helpers/viewer';
import { expectStatus, until } from '../helpers/wait';

// Counts older than three intervals no longer count: 250 ms keeps a report fresh for 750 ms, which a loaded
// machine's late report still meets, and the test's waits short.
const env = { PRESENCE_INTERVAL_MS: '250' };
let first: Stack;
let second: Stack;
let siteA: TestSite;
let siteB: TestSite;
let superApiKey: string;
const viewers: Viewer[] = [];

beforeAll(async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  first = await startTestStack({ env, bus });
  second = await startTestStack({ env, bus, sameDeploymentAs: first });
  siteA = await createTestSite(first, 'A');
  siteB = await createTestSite(first, 'B');
  const keyId = newId();
  await first.database.prisma.superApiKey.create({ data: { id: keyId, name: 'ops', createdAt: new Date() } });
  superApiKey = signSuperApiKey(keyId, first.config.jwtSecret);
});
afterAll(async () => {
  await Promise.all(viewers.map((viewer) => viewer.close()));
  await stopAll();
});

async function open(stack: Stack, siteId: string, channelId?: string): Promise<Viewer> {
  const viewer = await watch(stack, { siteId, channelId });
  viewers.push(viewer);
  return viewer;
}

const concurrents = (query: string, headers: Record<string, string> = { 'super-api-key': superApiKey }) =>
  rest(first, 'GET', `/insights/v1/concurrents${query}`, { headers });

it('counts viewers per site and channel across two instances, and drops those who leave', async () => {
  // A real channel of site A (its slug comes from the content subgraph through the entity key).
  const created = await rest(first, 'POST', '/pages/v3', { headers: siteA.admin, body: { slug: 'main-stage', type: 'channel', data: { name: 'Main stage' } } });
  expect(created.status).toBe(200);
  const stageA = created.body._id as string;
  await open(first, siteA.siteId, stageA);
  const leaving = await open(second, siteA.siteId, stageA);
  const [lobby, stageB] = await Promise.all([createChannel(first, siteA.siteId), createChannel(first, siteB.siteId)]);
  await open(second, siteA.siteId, lobby);
  await open(first, siteA.siteId);
  await open(second, siteB.siteId, stageB);

  const expected = [
    {
      siteId: siteA.siteId,
      concurrents: 4,
      totalViews: 4,
      channels: expect.arrayContaining([
        { _id: stageA, slug: 'main-stage', concurrents: 2 },
        { _id: lobby, slug: `page-${lobby}`, concurrents: 1 },
      ]),
    },
    { siteId: siteB.siteId, concurrents: 1, totalViews: 1, channels: [{ _id: stageB, slug: `page-${stageB}`, concurrents: 1 }] },
  ];
  // The answer that showed the settled counts is the one checked whole (a second read could meet a late report).
  const reply = await until(
    async () => expectStatus(await concurrents(`?siteIds=${siteA.siteId},${siteB.siteId}`), 200),
    (answer) => answer.body[0].concurrents === 4 && answer.body[1].concurrents === 1,
    'the counts of both instances settle',
  );
  expect(reply.body).toEqual(expected);
  expect(reply.body[0].channels).toHaveLength(2);

  await leaving.close();
  const after = (
    await until(
      async () => expectStatus(await concurrents(`?siteIds=${siteA.siteId}`), 200),
      (answer) => answer.body[0].concurrents === 3,
      'the viewer who left is no longer counted',
    )
  ).body[0];
  expect(after.totalViews).toBe(4);
  expect(after.channels).toEqual(expect.arrayContaining([{ _id: stageA, slug: 'main-stage', concurrents: 1 }]));
});

it('without siteIds answers for the site of x-service-client-id', async () => {
  const reply = await concurrents('', { 'super-api-key': superApiKey, 'x-service-client-id': siteB.siteId });
  expect(reply.status).toBe(200);
  expect(reply.body.map((site: { siteId: string }) => site.siteId)).toEqual([siteB.siteId]);
});

it('needs a valid, unrevoked super API key', async () => {
  expect((await concurrents(`?siteIds=${siteA.siteId}`, {})).status).toBe(401);
  expect((await concurrents(`?siteIds=${siteA.siteId}`, { 'super-api-key': 'not-a-key' })).status).toBe(401);
  const developerJwt = await siteA.token([{ pageId: [], scope: '*', write: true }]);
  expect((await concurrents(`?siteIds=${siteA.siteId}`, { 'super-api-key': developerJwt })).status).toBe(401);
  const keyId = newId();
  await first.database.prisma.superApiKey.create({ data: { id: keyId, name: 'old', createdAt: new Date(), revokedAt: new Date() } });
  expect((await concurrents(`?siteIds=${siteA.siteId}`, { 'super-api-key': signSuperApiKey(keyId, first.config.jwtSecret) })).status).toBe(401);
});
