/** Quests over their REST paths: create (rewardInage → rewardImage), get, list with search and property filter, replace, delete, tenancy. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let pollId: string;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Quests');
  other = await createTestSite(stack, 'Other');
  const poll = await rest(stack, 'POST', '/poll/v3/', {
    headers: site.admin,
    body: { type: 'poll', name: 'Mood', question: 'Mood?', answers: [{ text: 'Good' }, { text: 'Bad' }] },
  });
  pollId = poll.body._id;
});
afterAll(stopAll);

const questBody = (owner: TestSite, extra: Record<string, unknown> = {}) => ({
  title: 'Super fan',
  description: 'Vote and watch',
  actions: [
    { arrayId: '1', kind: 'answer:polls:specific', validationValue: pollId, body: 'Vote in the mood poll', callToAction: 'Vote' },
    { arrayId: '2', kind: 'watch:any:video', valueRequired: 600, timeMinimum: 1_700_000_000_000, timeMaximum: 1_800_000_000_000 },
    { arrayId: '3', kind: 'answer:polls:any' },
  ],
  channelIds: ['channel-1'],
  rewardDescription: 'A signed shirt',
  rewardType: 'raffle',
  siteId: owner.siteId,
  claimedMessage: 'You are in the draw',
  rewardInage: 'https://cdn.example/shirt.png',
  timeMinimum: 1_700_000_000_000,
  timeMaximum: 1_800_000_000_000,
  webhookId: 'QUEST-1',
  webhookType: 'points',
  webhookValue: 50,
  ...extra,
});

/** What an action answers for the fields it was created without. */
const UNSET_ACTION_FIELDS: Record<string, null> = {
  arrayId: null,
  body: null,
  callToAction: null,
  channelId: null,
  timeMaximum: null,
  timeMinimum: null,
  validationValue: null,
  valueRequired: null,
};

async function createQuest(owner: TestSite, extra: Record<string, unknown> = {}) {
  const reply = await rest(stack, 'POST', '/quest/v2', { headers: owner.admin, body: questBody(owner, extra) });
  expect(reply.status).toBe(200);
  return reply.body;
}

it('creates a quest, storing rewardInage as rewardImage, and gets it', async () => {
  const quest = await createQuest(site);
  const { rewardInage, ...fields } = questBody(site);
  expect(quest).toEqual({
    _id: expect.stringMatching(/^[0-9a-f]{24}$/),
    ...fields,
    rewardImage: rewardInage,
    actions: fields.actions.map((action) => ({ ...UNSET_ACTION_FIELDS, ...action })),
    tags: [],
    created: expect.any(Number),
    modified: expect.any(Number),
  });
  const got = await rest(stack, 'GET', `/quest/v2/${quest._id}`, { headers: site.admin });
  expect(got.body).toEqual(quest);
  const viaJwt = await rest(stack, 'GET', `/quest/v2/${quest._id}`, {
    headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${await site.token([])}` },
  });
  expect(viaJwt.status).toBe(200);
});

it('refuses bad quests with 400 naming the field', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ rewardType: 'money' }, /rewardType/],
    [{ actions: [{ kind: '' }] }, /kind/],
    [{ actions: [{ kind: 'answer:polls:specific' }] }, /validationValue/],
    [{ actions: [{ kind: 'answer:polls:specific', validationValue: 'f'.repeat(24) }] }, /actions\[0\]\.validationValue/],
    [{ timeMinimum: 2, timeMaximum: 1 }, /timeMinimum/],
    [{ rewardInage: 'not a url' }, /rewardImage/],
    [{ siteId: other.siteId }, /siteId/],
  ];
  for (const [extra, field] of cases) {
    const reply = await rest(stack, 'POST', '/quest/v2', { headers: site.admin, body: questBody(site, extra) });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(field);
  }
  for (const missing of ['title', 'description', 'rewardDescription', 'rewardType', 'siteId', 'claimedMessage']) {
    const body: Record<string, unknown> = questBody(site);
    delete body[missing];
    expect((await rest(stack, 'POST', '/quest/v2', { headers: site.admin, body })).status).toBe(400);
  }
  // A poll of another site is not one of this site's polls.
  const theirPoll = await rest(stack, 'POST', '/poll/v3/', {
    headers: other.admin,
    body: { type: 'poll', name: 'x', question: 'x', answers: [{ text: 'a' }, { text: 'b' }] },
  });
  const borrowed = await rest(stack, 'POST', '/quest/v2', {
    headers: site.admin,
    body: questBody(site, { actions: [{ kind: 'answer:polls:specific', validationValue: theirPoll.body._id }] }),
  });
  expect(borrowed.status).toBe(400);
  // Writing needs a key or a Quests role.
  const viewer = { 'x-service-client-id': site.siteId, authorization: `Bearer ${await site.token([])}` };
  expect((await rest(stack, 'POST', '/quest/v2', { headers: viewer, body: questBody(site) })).status).toBe(403);
});

describe('list', () => {
  let listed: TestSite;
  beforeAll(async () => {
    listed = await createTestSite(stack, 'Listed quests');
    for (const [title, rewardType] of [
      ['Early bird', 'raffle'],
      ['Night owl', 'prize'],
      ['Bird watcher', 'raffle'],
      ['Hook', 'webhook'],
    ]) {
      const reply = await rest(stack, 'POST', '/quest/v2', { headers: listed.admin, body: { ...questBody(listed, { title, rewardType }), actions: [] } });
      expect(reply.status).toBe(200);
    }
  });
  const titles = (body: { results: { title: string }[] }) => body.results.map((quest) => quest.title);

  it('searches the title, filters on a property, sorts and pages', async () => {
    const birds = await rest(stack, 'GET', '/quest/v2?search=BIRD&sortBy=title&sortDirection=1', { headers: listed.admin });
    expect(titles(birds.body)).toEqual(['Bird watcher', 'Early bird']);
    expect(birds.body.pagination).toEqual({ limit: 50, offset: 0, searchFields: [], sortDirection: 1, totalCount: 2 });
    const raffles = await rest(stack, 'GET', '/quest/v2?property=rewardType%3Draffle&sortBy=title&sortDirection=-1', { headers: listed.admin });
    expect(titles(raffles.body)).toEqual(['Early bird', 'Bird watcher']);
    expect(raffles.body.pagination.searchFields).toEqual(['rewardType']);
    const valued = await rest(stack, 'GET', '/quest/v2?property=webhookValue%3D50', { headers: listed.admin });
    expect(valued.body.pagination.totalCount).toBe(4);
    const paged = await rest(stack, 'GET', '/quest/v2?sortBy=title&sortDirection=1&limit=2&offset=2', { headers: listed.admin });
    expect(titles(paged.body)).toEqual(['Hook', 'Night owl']);
    expect(paged.body.pagination).toMatchObject({ limit: 2, offset: 2, totalCount: 4 });
    expect((await rest(stack, 'GET', '/quest/v2?property=rewardType', { headers: listed.admin })).status).toBe(400);
    expect((await rest(stack, 'GET', '/quest/v2?property=webhookValue%3Dmany', { headers: listed.admin })).status).toBe(400);
  });
});

it('replaces with PUT and deletes (answering the deleted quest)', async () => {
  const quest = await createQuest(site);
  const replaced = await rest(stack, 'PUT', `/quest/v2/${quest._id}`, {
    headers: site.admin,
    body: { ...questBody(site, { title: 'Renamed', rewardType: 'prize-service-specific', actions: [] }), _id: quest._id },
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ _id: quest._id, title: 'Renamed', rewardType: 'prize-service-specific', actions: [] });
  expect(
    (await rest(stack, 'GET', `/poll/v3/validate-references/${pollId}`, { headers: site.admin })).body.map((ref: { _id: string }) => ref._id),
  ).not.toContain(quest._id);
  const removed = await rest(stack, 'DELETE', `/quest/v2/${quest._id}`, { headers: site.admin });
  expect(removed.status).toBe(200);
  expect(removed.body).toEqual(replaced.body);
  expect((await rest(stack, 'GET', `/quest/v2/${quest._id}`, { headers: site.admin })).status).toBe(404);
});

it('keeps quests to their site', async () => {
  const theirs = await rest(stack, 'POST', '/quest/v2', { headers: other.admin, body: { ...questBody(other), actions: [] } });
  for (const [method, body] of [
    ['GET', undefined],
    ['PUT', questBody(site)],
    ['DELETE', undefined],
  ] as const) {
    expect((await rest(stack, method, `/quest/v2/${theirs.body._id}`, { headers: site.admin, body })).status).toBe(404);
  }
  const list = await rest(stack, 'GET', '/quest/v2?limit=500', { headers: site.admin });
  expect(list.body.results.every((quest: { siteId: string }) => quest.siteId === site.siteId)).toBe(true);
});
