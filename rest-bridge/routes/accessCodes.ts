/**
 * Access codes (seed 001), with our TV codes that sign in a television from a phone; answered by the community
 * subgraph.
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SIGNED_IN, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { FILE, RESULT, SESSION, boolean, object, query, string } from './shared';

const ACCESS_CODE = /* GraphQL */ `_id: id accessCode siteId sku type consumed created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const accessCodeSchemas: Record<string, JsonSchema> = {
  AccessCode: object({
    _id: string,
    accessCode: string,
    siteId: string,
    sku: string,
    type: { type: 'string', enum: ['subscription', 'login'] },
    consumed: boolean,
    created: epochMs,
    modified: epochMs,
  }),
};

export const accessCodeRoutes: RouteSpec[] = [
  {
    operationId: 'createAccessCode',
    method: 'post',
    path: '/accesscode/v1/',
    summary: 'Create an access code for a SKU',
    tag: 'Access codes',
    auth: ADMIN,
    params: [
      query('accessCode', string, true),
      query('siteId', string, true),
      query('sku', string, true, 'a subscription entitlement SKU'),
      query('type', { type: 'string', enum: ['subscription', 'login'] }, true),
    ],
    document: /* GraphQL */ `mutation CreateAccessCode($input: CreateAccessCodeInput!) { result: createAccessCode(input: $input) { ${ACCESS_CODE} } }`,
    variables: { input: { accessCode: 'query.accessCode', siteId: 'query.siteId', sku: 'query.sku', type: 'query.type' } },
    response: ref('AccessCode'),
  },
  {
    operationId: 'createAccessCodesInBulk',
    method: 'post',
    path: '/accesscode/v1/bulk',
    summary: 'Create qty (1 to 100,000) unique access codes for a SKU in one transaction, as JSON or CSV',
    tag: 'Access codes',
    auth: ADMIN,
    params: [query('kind', { type: 'string', enum: ['json', 'csv'] }, false, 'default json')],
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['qty', 'sku'],
        additionalProperties: false,
        properties: { qty: { type: 'integer', minimum: 1, maximum: 100000 }, sku: { type: 'string', minLength: 1 } },
      },
    },
    document: /* GraphQL */ `mutation CreateAccessCodesFile($sku: String!, $qty: Int!, $kind: AccessCodeFileKind) { result: createAccessCodesFile(sku: $sku, qty: $qty, kind: $kind) { ${FILE} } }`,
    variables: { sku: 'body.sku', qty: 'body.qty', kind: 'query.kind' },
    file: { contentTypes: ['application/json', 'text/csv'] },
    response: arrayOf(object({ _id: string, accessCode: string, siteId: string, sku: string, type: string, created: epochMs, modified: epochMs })),
  },
  {
    operationId: 'createTvCode',
    rateLimited: true,
    method: 'post',
    path: '/accesscode/v1/tv',
    summary: 'A short code for a TV to show (expires in 10 minutes) and the device token the TV keeps to claim its session',
    tag: 'Access codes',
    auth: SITE_ID,
    body: {
      schema: {
        type: 'object',
        required: ['deviceId'],
        additionalProperties: false,
        properties: { deviceId: { type: 'string', minLength: 1, maxLength: 200 } },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation CreateTvCode($deviceId: String!) { result: createTvCode(deviceId: $deviceId) { code expiresAt deviceToken } }`,
    variables: { deviceId: 'body.deviceId' },
    status: 201,
    response: object({
      code: string,
      expiresAt: epochMs,
      deviceToken: { type: 'string', description: 'the TV’s secret for POST /accesscode/v1/tv/session; never shown on screen' },
    }),
  },
  {
    operationId: 'activateTvCode',
    method: 'post',
    path: '/accesscode/v1/tv/activate',
    summary: 'Activate a TV code for the signed-in account',
    tag: 'Access codes',
    auth: SIGNED_IN,
    body: {
      schema: { type: 'object', required: ['code'], additionalProperties: false, properties: { code: { type: 'string', minLength: 1, maxLength: 20 } } },
      required: true,
    },
    document: /* GraphQL */ `mutation ActivateTvCode($code: String!) { result: activateTvCode(code: $code) { ${RESULT} } }`,
    variables: { code: 'body.code' },
    response: ref('OperationResult'),
  },
  {
    operationId: 'claimTvSession',
    method: 'post',
    path: '/accesscode/v1/tv/session',
    summary: 'The TV’s session, for its device token, once its code is activated ({activated: false} until then; once)',
    tag: 'Access codes',
    auth: SITE_ID,
    body: {
      required: true,
      schema: { type: 'object', required: ['deviceToken'], additionalProperties: false, properties: { deviceToken: { type: 'string', minLength: 1 } } },
    },
    document: /* GraphQL */ `mutation ClaimTvSession($deviceToken: String!) { result: claimTvSession(deviceToken: $deviceToken) { activated session { ${SESSION} } } }`,
    variables: { deviceToken: 'body.deviceToken' },
    response: object({ activated: boolean, session: { oneOf: [ref('Session'), { type: 'null' }] } }),
  },
  {
    operationId: 'consumeAccessCode',
    rateLimited: true,
    method: 'get',
    path: '/accesscode/v1/consume/{accessCode}',
    summary: 'Redeem an access code for the signed-in account (once); a subscription code grants its entitlement',
    tag: 'Access codes',
    auth: SIGNED_IN,
    params: [{ ...id('accessCode', 'the access code'), secret: true }],
    document: /* GraphQL */ `mutation ConsumeAccessCode($accessCode: String!) { result: consumeAccessCode(accessCode: $accessCode) { ${RESULT} } }`,
    variables: { accessCode: 'path.accessCode' },
    response: ref('OperationResult'),
  },
  {
    operationId: 'getAccessCode',
    method: 'get',
    path: '/accesscode/v1/{id}',
    summary: 'Get an access code',
    tag: 'Access codes',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `query GetAccessCode($id: ID!) { result: accessCode(id: $id) { ${ACCESS_CODE} } }`,
    variables: { id: 'path.id' },
    response: ref('AccessCode'),
  },
  {
    operationId: 'deleteAccessCode',
    method: 'delete',
    path: '/accesscode/v1/{id}',
    summary: 'Delete an access code',
    tag: 'Access codes',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `mutation DeleteAccessCode($id: ID!) { result: deleteAccessCode(id: $id) { ${RESULT} } }`,
    variables: { id: 'path.id' },
    response: ref('OperationResult'),
  },
];
