/** Polls, predictions and trivia over their REST paths: create, get (C alone), list, replace, update, delete, references, tenancy. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Polls');
  other = await createTestSite(stack, 'Other');
});
afterAll(stopAll);

const trivia = (extra: Record<string, unknown> = {}) => ({
  type: 'trivia',
  name: 'Capital quiz',
  question: 'Capital of France?',
  answers: [
    { id: 'a', text: 'Paris' },
    { id: 'b', text: 'Lyon', imageUrl: 'https://cdn.example/lyon.png' },
  ],
  correctAnswerId: 'a',
  ...extra,
});

async function createPoll(owner: TestSite, body: Record<string, unknown>) {
  const reply = await rest(stack, 'POST', '/poll/v3/', { headers: owner.admin, body });
  expect(reply.status).toBe(200);
  return reply.body;
}

it('creates each kind and gets it with the site ID alone', async () => {
  const poll = await createPoll(site, trivia({ siteId: site.siteId }));
  expect(poll).toEqual({
    _id: expect.stringMatching(/^[0-9a-f]{24}$/),
    siteId: site.siteId,
    type: 'trivia',
    name: 'Capital quiz',
    question: 'Capital of France?',
    answers: [
      { id: 'a', text: 'Paris', imageUrl: null },
      { id: 'b', text: 'Lyon', imageUrl: 'https://cdn.example/lyon.png' },
    ],
    correctAnswerId: 'a',
    open: true,
    created: expect.any(Number),
    modified: expect.any(Number),
  });
  const got = await rest(stack, 'GET', `/poll/v3/${poll._id}`, { headers: { 'x-service-client-id': site.siteId } });
  // The right answer of open trivia is not the viewer's: null until the poll closes.
  expect(got.body).toEqual({ ...poll, correctAnswerId: null });
  expect((await rest(stack, 'PATCH', `/poll/v3/${poll._id}`, { headers: site.admin, body: { open: false } })).status).toBe(200);
  const closed = await rest(stack, 'GET', `/poll/v3/${poll._id}`, { headers: { 'x-service-client-id': site.siteId } });
  expect(closed.body).toMatchObject({ open: false, correctAnswerId: 'a' });

  const plain = await createPoll(site, { type: 'poll', name: 'Mood', question: 'How is the show?', answers: [{ text: 'Great' }, { text: 'Fine' }] });
  expect(plain.answers.map((answer: { id: string }) => answer.id)).toEqual([expect.any(String), expect.any(String)]);
  expect(plain.correctAnswerId).toBeNull();
  const prediction = await createPoll(site, {
    type: 'prediction',
    name: 'Winner',
    question: 'Who wins?',
    answers: [{ text: 'Home' }, { text: 'Away' }],
    open: false,
  });
  expect(prediction).toMatchObject({ type: 'prediction', open: false, correctAnswerId: null });
});

it('refuses inconsistent polls with 400 naming the field', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [trivia({ correctAnswerId: null }), /correctAnswerId/],
    [trivia({ correctAnswerId: 'z' }), /correctAnswerId/],
    [trivia({ type: 'poll' }), /correctAnswerId/],
    [trivia({ answers: [{ text: 'Only one' }] }), /answers/],
    [
      trivia({
        answers: [
          { id: 'a', text: 'x' },
          { id: 'a', text: 'y' },
        ],
      }),
      /answers/,
    ],
    [trivia({ type: 'quiz' }), /type/],
    [trivia({ name: '' }), /name/],
    [trivia({ siteId: other.siteId }), /siteId/],
  ];
  for (const [body, field] of cases) {
    const reply = await rest(stack, 'POST', '/poll/v3/', { headers: site.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(field);
  }
  expect((await rest(stack, 'POST', '/poll/v3/', { headers: { 'x-service-client-id': site.siteId }, body: trivia() })).status).toBe(401);
});

describe('list', () => {
  let listed: TestSite;
  beforeAll(async () => {
    listed = await createTestSite(stack, 'Listed polls');
    await createPoll(listed, trivia({ name: 'Bravo trivia' }));
    await createPoll(listed, { type: 'poll', name: 'Alpha poll', question: 'Favourite song?', answers: [{ text: 'A' }, { text: 'B' }] });
    await createPoll(listed, { type: 'prediction', name: 'Charlie pick', question: 'Who scores first?', answers: [{ text: 'A' }, { text: 'B' }], open: false });
  });
  const names = (body: { name: string }[]) => body.map((poll) => poll.name);

  it('sorts by name or created, pages, and searches name and question', async () => {
    expect(names((await rest(stack, 'GET', '/poll/v3/?sortBy=name', { headers: listed.admin })).body)).toEqual(['Alpha poll', 'Bravo trivia', 'Charlie pick']);
    expect(names((await rest(stack, 'GET', '/poll/v3/?sortBy=name&sortDirection=-1&limit=1&offset=1', { headers: listed.admin })).body)).toEqual([
      'Bravo trivia',
    ]);
    expect(names((await rest(stack, 'GET', '/poll/v3/?search=SCORES', { headers: listed.admin })).body)).toEqual(['Charlie pick']);
    expect((await rest(stack, 'GET', '/poll/v3/', { headers: listed.admin })).body).toHaveLength(3);
    expect((await rest(stack, 'GET', '/poll/v3/?sortBy=question', { headers: listed.admin })).status).toBe(400);
  });

  it('filters with rQuery', async () => {
    const rQuery = (value: object) => `/poll/v3/?rQuery=${encodeURIComponent(JSON.stringify(value))}`;
    expect(names((await rest(stack, 'GET', rQuery({ type: 'trivia' }), { headers: listed.admin })).body)).toEqual(['Bravo trivia']);
    expect(names((await rest(stack, 'GET', rQuery({ open: false }), { headers: listed.admin })).body)).toEqual(['Charlie pick']);
    expect((await rest(stack, 'GET', rQuery({ color: 'red' }), { headers: listed.admin })).status).toBe(400);
  });
});

it('replaces with PUT and changes some fields with PATCH, checked as a whole', async () => {
  const poll = await createPoll(site, trivia());
  const replaced = await rest(stack, 'PUT', `/poll/v3/${poll._id}`, {
    headers: site.admin,
    body: {
      type: 'poll',
      name: 'Now a poll',
      question: 'Which city?',
      answers: [
        { id: 'x', text: 'Rome' },
        { id: 'y', text: 'Oslo' },
      ],
    },
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ _id: poll._id, type: 'poll', name: 'Now a poll', correctAnswerId: null, answers: [{ id: 'x' }, { id: 'y' }] });

  const patched = await rest(stack, 'PATCH', `/poll/v3/${poll._id}`, { headers: site.admin, body: { open: false, name: 'Closed poll' } });
  expect(patched.body).toMatchObject({ name: 'Closed poll', open: false, question: 'Which city?', type: 'poll' });
  const toTrivia = await rest(stack, 'PATCH', `/poll/v3/${poll._id}`, { headers: site.admin, body: { type: 'trivia' } });
  expect(toTrivia.status).toBe(400);
  const resolved = await rest(stack, 'PATCH', `/poll/v3/${poll._id}`, { headers: site.admin, body: { type: 'prediction', correctAnswerId: 'y' } });
  expect(resolved.body).toMatchObject({ type: 'prediction', correctAnswerId: 'y' });
  expect((await rest(stack, 'PUT', `/poll/v3/${poll._id}`, { headers: site.admin, body: { name: 'incomplete' } })).status).toBe(400);
});

it('validates references (panels and quests) and deletes', async () => {
  const poll = await createPoll(site, trivia());
  const panel = await rest(stack, 'POST', '/panel/v3/', {
    headers: site.admin,
    body: { siteId: site.siteId, renderer: { panel_type: 'multiple_choice', panel_name: 'Quiz panel', questions: [{ array_id: '1', poll_id: poll._id }] } },
  });
  const quest = await rest(stack, 'POST', '/quest/v2', {
    headers: site.admin,
    body: {
      title: 'Answer the quiz',
      description: 'Get it right',
      rewardDescription: 'A badge',
      rewardType: 'prize',
      siteId: site.siteId,
      claimedMessage: 'Well done',
      actions: [{ kind: 'answer:polls:specific', validationValue: poll._id, arrayId: '1' }],
    },
  });
  expect(quest.status).toBe(200);
  const references = await rest(stack, 'GET', `/poll/v3/validate-references/${poll._id}`, { headers: site.admin });
  expect(references.body).toEqual([
    { _id: panel.body._id, collection: 'panels', name: 'Quiz panel' },
    { _id: quest.body._id, collection: 'quests', name: 'Answer the quiz' },
  ]);
  const removed = await rest(stack, 'DELETE', `/poll/v3/${poll._id}`, { headers: site.admin });
  expect(removed.body).toEqual({ success: true, _id: poll._id });
  expect((await rest(stack, 'GET', `/poll/v3/${poll._id}`, { headers: site.admin })).status).toBe(404);
});

it('keeps polls to their site', async () => {
  const theirs = await createPoll(other, trivia());
  for (const [method, body] of [
    ['GET', undefined],
    ['PUT', trivia()],
    ['PATCH', { open: false }],
    ['DELETE', undefined],
  ] as const) {
    expect((await rest(stack, method, `/poll/v3/${theirs._id}`, { headers: site.admin, body })).status).toBe(404);
  }
  expect((await rest(stack, 'GET', `/poll/v3/validate-references/${theirs._id}`, { headers: site.admin })).status).toBe(404);
  const list = await rest(stack, 'GET', '/poll/v3/?limit=500', { headers: site.admin });
  expect(list.body.every((poll: { siteId: string }) => poll.siteId === site.siteId)).toBe(true);
});
