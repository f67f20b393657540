/**
 * REST routes of the site's leaderboard (docs/design.md "Points and leaderboard"): the ranking with the site
 * ID alone, the caller's own place with a JWT. Names come from the community subgraph; never an e-mail.
 */
import { arrayOf, ref, SIGNED_IN, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';

const ENTRY = /* GraphQL */ `rank accountId name points`;

const entry: JsonSchema = {
  type: 'object',
  required: ['rank', 'accountId', 'name', 'points'],
  properties: {
    rank: { type: ['integer', 'null'], description: 'from 1: most points first, ties to whoever reached the score first; null before any point' },
    accountId: { type: 'string' },
    name: { type: ['string', 'null'], description: 'the account’s name; null when the account no longer exists' },
    points: { type: 'integer' },
  },
};

export const leaderboardSchemas: Record<string, JsonSchema> = {
  LeaderboardEntry: entry,
  Leaderboard: {
    type: 'object',
    required: ['pagination', 'results'],
    properties: {
      pagination: {
        type: 'object',
        required: ['limit', 'offset', 'totalCount'],
        properties: { limit: { type: 'integer' }, offset: { type: 'integer' }, totalCount: { type: 'integer', description: 'accounts with points' } },
      },
      results: arrayOf(ref('LeaderboardEntry')),
    },
  },
};

export const leaderboardRoutes: RouteSpec[] = [
  {
    operationId: 'getLeaderboard',
    method: 'get',
    path: '/leaderboard/v1/',
    summary: 'The site’s leaderboard, most points first (the site ID alone is enough)',
    tag: 'Leaderboard',
    auth: SITE_ID,
    params: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 }, description: 'at most this many entries' },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 }, description: 'entries to skip first' },
    ],
    document: /* GraphQL */ `query Leaderboard($limit: Int, $offset: Int) { result: leaderboard(limit: $limit, offset: $offset) { pagination { limit offset totalCount } results { ${ENTRY} } } }`,
    variables: { limit: 'query.limit', offset: 'query.offset' },
    response: ref('Leaderboard'),
  },
  {
    operationId: 'getMyLeaderboardEntry',
    method: 'get',
    path: '/leaderboard/v1/me',
    summary: 'The signed-in viewer’s place on the leaderboard',
    tag: 'Leaderboard',
    auth: SIGNED_IN,
    document: /* GraphQL */ `query MyLeaderboardEntry { result: myLeaderboardEntry { ${ENTRY} } }`,
    response: ref('LeaderboardEntry'),
  },
];
