/**
 * Which operations the live server may send straight to one subgraph: read from the real supergraph's
 * join directives; anything that crosses subgraphs, or that the planner is unsure of, stays with the gateway.
 */
import { composeSupergraphSdl } from '../../gateway/compose';
import { SingleSubgraphPlanner } from '../../gateway/singleSubgraph';

const planner = new SingleSubgraphPlanner(composeSupergraphSdl((name) => `http://${name}.internal/graphql`));

it.each([
  [
    'the embed’s answer',
    /* GraphQL */ `mutation A($p: ID!, $a: ID!) { answerPoll(pollId: $p, answerId: $a) { success pollId answerId __typename } }`,
    'content',
  ],
  [
    'results with an inline fragment',
    /* GraphQL */ `query R($p: ID!) { pollResults(pollId: $p) { ... on PollResults { total mine { answerId } } } }`,
    'content',
  ],
  [
    'a named fragment',
    /* GraphQL */ `query R($p: ID!) { pollResults(pollId: $p) { ...counts } } fragment counts on PollResults { answers { id count } }`,
    'content',
  ],
  ['leaderboard places without names', /* GraphQL */ `{ leaderboard { results { rank accountId points } } }`, 'content'],
  ['the viewer’s account', /* GraphQL */ `{ me { tags } }`, 'community'],
])('%s goes to one subgraph', (_label, query, expected) => {
  expect(planner.subgraphOf(query, undefined)).toBe(expected);
});

it.each([
  ['names from another subgraph', /* GraphQL */ `{ leaderboard { results { rank name } } }`],
  ['root fields of two subgraphs', /* GraphQL */ `query Two($id: ID!) { poll(id: $id) { id } overlay(id: $id) { id } }`],
  ['introspection', /* GraphQL */ `{ __schema { types { name } } }`],
  ['a subscription', /* GraphQL */ `subscription R($p: ID!) { pollResults(pollId: $p) { total } }`],
  ['an unknown field', /* GraphQL */ `{ noSuchField }`],
  ['a document that does not parse', `{ answerPoll(`],
])('%s stays with the gateway', (_label, query) => {
  expect(planner.subgraphOf(query, undefined)).toBeNull();
});
