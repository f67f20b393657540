/** Bundles (seed 001); answered by the community subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableString, object, string } from './shared';

const BUNDLE = /* GraphQL */ `_id: id name description image sku siteId presentmentCurrency price items { id type } created modified tags`;

/** Components of the OpenAPI document these routes refer to. */
export const bundleSchemas: Record<string, JsonSchema> = {
  Bundle: object({
    _id: string,
    name: string,
    description: string,
    image: nullableString,
    sku: nullableString,
    siteId: string,
    presentmentCurrency: string,
    price: { type: ['number', 'null'] },
    items: arrayOf(object({ id: string, type: string })),
    created: epochMs,
    modified: epochMs,
    tags: arrayOf(string),
  }),
};

export const bundleRoutes: RouteSpec[] = [
  {
    operationId: 'createBundle',
    method: 'post',
    path: '/bundle/v1/',
    summary: 'Create a bundle of items sold together',
    tag: 'Bundles',
    auth: ADMIN,
    body: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: string,
          description: string,
          image: string,
          sku: string,
          siteId: string,
          presentmentCurrency: string,
          price: { type: 'number', minimum: 0 },
          items: arrayOf({ type: 'object', required: ['id', 'type'], additionalProperties: false, properties: { id: string, type: string } }),
          tags: arrayOf(string),
        },
      },
    },
    document: /* GraphQL */ `mutation CreateBundle($input: CreateBundleInput!) { result: createBundle(input: $input) { ${BUNDLE} } }`,
    variables: { input: 'body' },
    response: ref('Bundle'),
  },
  {
    operationId: 'getBundle',
    method: 'get',
    path: '/bundle/v1/{id}',
    summary: 'Get a bundle',
    tag: 'Bundles',
    auth: SITE_ID,
    params: [id()],
    document: /* GraphQL */ `query GetBundle($id: ID!) { result: bundle(id: $id) { ${BUNDLE} } }`,
    variables: { id: 'path.id' },
    response: ref('Bundle'),
  },
];
