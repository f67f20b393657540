/** Entitlements: ours, the products bundles and purchases grant; answered by the community subgraph. */
import { ADMIN, READ_ONLY, arrayOf, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { ENTITLEMENT, boolean, string } from './shared';

const priceInput: JsonSchema = {
  type: 'object',
  required: ['currency', 'value'],
  additionalProperties: false,
  properties: { currency: string, default: boolean, paymentPriceId: { type: ['string', 'null'] }, value: { type: 'number', minimum: 0 } },
};

export const entitlementRoutes: RouteSpec[] = [
  {
    operationId: 'listEntitlements',
    method: 'get',
    path: '/entitlement/v1/',
    summary: 'The site’s entitlements (SKUs and prices)',
    tag: 'Entitlements',
    auth: ADMIN,
    document: /* GraphQL */ `query ListEntitlements { result: entitlements { ${ENTITLEMENT} } }`,
    response: arrayOf(ref('Entitlement')),
  },
  {
    operationId: 'createEntitlement',
    method: 'post',
    path: '/entitlement/v1/',
    summary: 'Create an entitlement: a SKU with its prices by currency',
    tag: 'Entitlements',
    auth: ADMIN,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['sku', 'name', 'prices'],
        additionalProperties: false,
        properties: {
          sku: string,
          name: string,
          prices: arrayOf(priceInput),
          recurrence: { type: 'string', enum: ['once', 'week', 'month', 'year'] },
          subscriptionProvider: string,
          tags: arrayOf(string),
        },
      },
    },
    document: /* GraphQL */ `mutation CreateEntitlement($input: CreateEntitlementInput!) { result: createEntitlement(input: $input) { ${ENTITLEMENT} } }`,
    variables: { input: 'body' },
    status: 201,
    response: ref('Entitlement'),
  },
  {
    operationId: 'getEntitlement',
    method: 'get',
    path: '/entitlement/v1/{id}',
    summary: 'Get an entitlement',
    tag: 'Entitlements',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `query GetEntitlement($id: ID!) { result: entitlement(id: $id) { ${ENTITLEMENT} } }`,
    variables: { id: 'path.id' },
    response: ref('Entitlement'),
  },
  {
    operationId: 'updateEntitlement',
    method: 'put',
    path: '/entitlement/v1/{id}',
    summary: 'Update what is given of an entitlement: name, prices, recurrence or tags (absent fields keep their value)',
    tag: 'Entitlements',
    auth: ADMIN,
    params: [id()],
    body: {
      required: true,
      readOnly: [...READ_ONLY, 'siteId', 'sku', 'subscriptionProvider'],
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: string,
          prices: arrayOf(priceInput),
          recurrence: { type: 'string', enum: ['once', 'week', 'month', 'year'] },
          tags: arrayOf(string),
        },
      },
    },
    document: /* GraphQL */ `mutation UpdateEntitlement($id: ID!, $input: UpdateEntitlementInput!) { result: updateEntitlement(id: $id, input: $input) { ${ENTITLEMENT} } }`,
    variables: { id: 'path.id', input: 'body' },
    response: ref('Entitlement'),
  },
];
