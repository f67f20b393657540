/**
 * Queries that one in-process subgraph answers whole skip @apollo/gateway's executor (gateway/localQueries.ts).
 * Their answers must be the gateway's, byte for byte: each query is sent to a stack running its subgraphs
 * in-process and to a second instance of the same deployment whose gateway calls them over HTTP (no shortcut),
 * and the two HTTP answers compared whole, errors included.
 */
import { composeSupergraphSdl } from '../../gateway/compose';
import { SingleSubgraphPlanner } from '../../gateway/singleSubgraph';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import type { Stack } from '../../stack';

let inProcess: Stack;
let overHttp: Stack;
let site: TestSite;
let overlayId: string;
let pollId: string;
const planner = new SingleSubgraphPlanner(composeSupergraphSdl((name) => `http://${name}.internal/graphql`));

beforeAll(async () => {
  inProcess = await startTestStack();
  overHttp = await startTestStack({ sameDeploymentAs: inProcess, subgraphsOverHttp: true });
  site = await createTestSite(inProcess);
  const overlay = await rest(inProcess, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Score', type: 'instance', contents: { text: 'hi', nested: { n: 1.5 } }, duration: 10 },
  });
  await rest(inProcess, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Lower third', description: 'names', type: 'template', contents: { html: '<b>${name}</b>' }, duration: 5 },
  });
  const poll = await rest(inProcess, 'POST', '/poll/v3/', {
    headers: site.admin,
    body: {
      type: 'poll',
      name: 'Best',
      question: 'Which one?',
      answers: [
        { id: 'a', text: 'A' },
        { id: 'b', text: 'B' },
      ],
    },
  });
  overlayId = overlay.body._id;
  pollId = poll.body._id;
  expect(overlayId).toEqual(expect.any(String));
  expect(pollId).toEqual(expect.any(String));
});
afterAll(stopAll);

/** The raw HTTP answer of a POST /graphql: status, content type and body text. */
async function answer(stack: Stack, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
}

const cases: [string, string, () => Record<string, unknown>, 'admin' | 'site only'][] = [
  [
    'the overlay list, every field',
    /* GraphQL */ `query Overlays { overlays { id siteId name description type contents cta { type data } duration created modified } }`,
    () => ({}),
    'admin',
  ],
  [
    'aliases, a fragment, __typename and @include',
    /* GraphQL */ `query O($id: ID!, $full: Boolean!) { __typename one: overlay(id: $id) { __typename ...named description @include(if: $full) } all: overlays { id } } fragment named on Overlay { id name }`,
    () => ({ id: overlayId, full: true }),
    'admin',
  ],
  [
    'a poll of the content subgraph',
    /* GraphQL */ `query P($id: ID!) { poll(id: $id) { id name question answers { id text } open } polls(limit: 5) { id } }`,
    () => ({ id: pollId }),
    'admin',
  ],
  [
    'an overlay that is not there (an error, asked again through the gateway)',
    /* GraphQL */ `query { overlay(id: "000000000000000000000000") { id } }`,
    () => ({}),
    'admin',
  ],
  ['a caller without the developer key (refused)', /* GraphQL */ `query Overlays { overlays { id } }`, () => ({}), 'site only'],
  ['a variable of the wrong type', /* GraphQL */ `query O($id: ID!) { overlay(id: $id) { id } }`, () => ({ id: { not: 'an id' } }), 'admin'],
];

it.each(cases)('%s: the same answer in one process as through the gateway over HTTP', async (_label, query, variables, caller) => {
  // The case is one the in-process gateway answers from the subgraph directly, when it has no errors.
  expect(planner.subgraphOf(query, undefined)).not.toBeNull();
  const headers = caller === 'admin' ? site.admin : { 'x-service-client-id': site.siteId };
  const body = { query, variables: variables() };
  const [local, remote] = [await answer(inProcess, body, headers), await answer(overHttp, body, headers)];
  expect(local).toEqual(remote);
  expect(local.body.length).toBeGreaterThan(20);
});

it('answers the overlay list with the site’s overlays in their order', async () => {
  const reply = await answer(inProcess, { query: 'query Overlays { overlays { name type } }' }, site.admin);
  expect(reply.status).toBe(200);
  expect(JSON.parse(reply.body)).toEqual({
    data: {
      overlays: [
        { name: 'Score', type: 'instance' },
        { name: 'Lower third', type: 'template' },
      ],
    },
  });
});
