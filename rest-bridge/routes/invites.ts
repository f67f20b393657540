/** Invites (seed 001): magic links; answered by the community subgraph. */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { RESULT, ROLE, SESSION, boolean, object, query, roleInput, string } from './shared';

const INVITE = /* GraphQL */ `_id: id consumed redirectUri revoked siteId targetSkus targetRoles { ${ROLE} } token type created modified tags`;

/** Components of the OpenAPI document these routes refer to. */
export const inviteSchemas: Record<string, JsonSchema> = {
  Invite: object({
    _id: string,
    consumed: boolean,
    redirectUri: string,
    revoked: boolean,
    siteId: string,
    targetSkus: arrayOf(string),
    targetRoles: arrayOf(ref('AccountRole')),
    token: { type: ['string', 'null'], description: 'only in the answer that creates the invite' },
    type: { type: 'string', enum: ['magic-link'] },
    created: epochMs,
    modified: epochMs,
    tags: arrayOf(string),
  }),
};

export const inviteRoutes: RouteSpec[] = [
  {
    operationId: 'listInvites',
    method: 'get',
    path: '/invite/v1/',
    summary: 'The site’s invites, optionally by consumed / revoked',
    tag: 'Invites',
    auth: ADMIN,
    params: [query('consumed', boolean), query('revoked', boolean)],
    document: /* GraphQL */ `query ListInvites($consumed: Boolean, $revoked: Boolean) { result: invites(consumed: $consumed, revoked: $revoked) { ${INVITE} } }`,
    variables: { consumed: 'query.consumed', revoked: 'query.revoked' },
    response: arrayOf(ref('Invite')),
  },
  {
    operationId: 'createMagicLink',
    method: 'post',
    path: '/invite/v1/magic-link/',
    summary: 'Create a magic-link invite for SKUs: the link is redirectUri with an inviteToken parameter (shown once)',
    tag: 'Invites',
    auth: ADMIN,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['redirectUri', 'siteId', 'targetSkus'],
        additionalProperties: false,
        properties: {
          redirectUri: string,
          siteId: string,
          targetSkus: { type: 'array', minItems: 1, items: string },
          targetRoles: arrayOf(roleInput),
          tags: arrayOf(string),
        },
      },
    },
    document: /* GraphQL */ `mutation CreateInvite($input: CreateInviteInput!) { result: createInvite(input: $input) { invite { ${INVITE} } inviteUrl } }`,
    variables: { input: 'body' },
    response: object({ invite: ref('Invite'), inviteUrl: string }),
  },
  {
    operationId: 'consumeInvite',
    method: 'post',
    path: '/invite/v1/consume',
    summary: 'Open an invite (once): the target SKUs go to the signed-in account, or to a new guest account with a session',
    tag: 'Invites',
    auth: SITE_ID,
    body: {
      schema: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: { type: 'string', minLength: 1 } } },
      required: true,
    },
    document: /* GraphQL */ `mutation ConsumeInvite($token: String!) { result: consumeInvite(token: $token) { invite { ${INVITE} } redirectUri accountId session { ${SESSION} } } }`,
    variables: { token: 'body.token' },
    response: object({ invite: ref('Invite'), redirectUri: string, accountId: string, session: { oneOf: [ref('Session'), { type: 'null' }] } }),
  },
  {
    operationId: 'getInvite',
    method: 'get',
    path: '/invite/v1/{id}',
    summary: 'Get an invite',
    tag: 'Invites',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `query GetInvite($id: ID!) { result: invite(id: $id) { ${INVITE} } }`,
    variables: { id: 'path.id' },
    response: ref('Invite'),
  },
  {
    operationId: 'updateInvite',
    method: 'put',
    path: '/invite/v1/{id}',
    summary: 'Update what is given of an invite: redirectUri or target roles (absent fields keep their value)',
    tag: 'Invites',
    auth: ADMIN,
    params: [id()],
    body: {
      required: true,
      readOnly: [...READ_ONLY, 'consumed', 'revoked', 'targetSkus', 'token', 'type'],
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { redirectUri: string, siteId: string, targetRoles: arrayOf(roleInput), tags: arrayOf(string) },
      },
    },
    document: /* GraphQL */ `mutation UpdateInvite($id: ID!, $input: UpdateInviteInput!) { result: updateInvite(id: $id, input: $input) { ${INVITE} } }`,
    variables: { id: 'path.id', input: 'body' },
    response: ref('Invite'),
  },
  {
    operationId: 'deleteInvite',
    method: 'delete',
    path: '/invite/v1/{id}',
    summary: 'Delete an invite (what it gave stays; revoke takes it back)',
    tag: 'Invites',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `mutation DeleteInvite($id: ID!) { result: deleteInvite(id: $id) { ${RESULT} } }`,
    variables: { id: 'path.id' },
    response: ref('OperationResult'),
  },
  {
    operationId: 'revokeInvite',
    method: 'delete',
    path: '/invite/v1/revoke/{id}',
    summary: 'Revoke an invite: its link stops working; once consumed, the subscriptions it gave are removed',
    tag: 'Invites',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `mutation RevokeInvite($id: ID!) { result: revokeInvite(id: $id) { ${RESULT} } }`,
    variables: { id: 'path.id' },
    response: ref('OperationResult'),
  },
];
