/** Claim statuses (seed 001); answered by the community subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { object, query, string } from './shared';

const CLAIM = /* GraphQL */ `_id: id questId productId accountId status claimedMessage siteId created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const claimStatusSchemas: Record<string, JsonSchema> = {
  ClaimStatus: object({
    _id: string,
    questId: string,
    productId: string,
    accountId: string,
    status: { type: 'string', description: 'PENDING, APPROVED (drawn in a raffle), FULFILLED, REJECTED' },
    claimedMessage: { type: 'string', nullable: true, description: 'The quest’s claimedMessage (what the player is shown for the reward); null once REJECTED' },
    siteId: string,
    created: epochMs,
    modified: epochMs,
  }),
};

export const claimStatusRoutes: RouteSpec[] = [
  {
    operationId: 'getClaimStatus',
    method: 'get',
    path: '/claimstatus/v3/{id}',
    summary: 'Get a quest reward claim (your own, or any with read access to ClaimStatuses)',
    tag: 'Claim statuses',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `query GetClaimStatus($id: ID!) { result: claimStatus(id: $id) { ${CLAIM} } }`,
    variables: { id: 'path.id' },
    response: ref('ClaimStatus'),
  },
  {
    operationId: 'listClaimStatuses',
    method: 'get',
    path: '/claimstatus/v3/',
    summary: 'Quest reward claims (your own, or all of the site’s with read access to ClaimStatuses)',
    tag: 'Claim statuses',
    auth: ADMIN,
    params: [query('questId', string), query('accountId', string)],
    document: /* GraphQL */ `query ListClaimStatuses($questId: ID, $accountId: ID) { result: claimStatuses(questId: $questId, accountId: $accountId) { ${CLAIM} } }`,
    variables: { questId: 'query.questId', accountId: 'query.accountId' },
    response: arrayOf(ref('ClaimStatus')),
  },
];
