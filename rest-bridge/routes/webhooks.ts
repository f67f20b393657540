/**
 * Webhooks: ours, the seed leaves how a site registers webhook targets to us; answered by the content subgraph.
 */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { limit, nullableNum, nullableStr, obj, offset, str } from './shared';

const WEBHOOK = /* GraphQL */ `_id: id siteId url events description active created modified`;
const WEBHOOK_WITH_SECRET = /* GraphQL */ `${WEBHOOK} secret`;
const DELIVERY = /* GraphQL */ `_id: id endpointId event status attempts nextAttemptAt lastStatusCode lastError deliveredAt body created`;

/** Components of the OpenAPI document these routes refer to. */
export const webhookSchemas: Record<string, JsonSchema> = {
  WebhookEndpoint: obj({
    _id: str,
    siteId: str,
    url: str,
    events: arrayOf(str),
    description: str,
    active: { type: 'boolean' },
    created: epochMs,
    modified: epochMs,
  }),
  WebhookEndpointWithSecret: {
    allOf: [ref('WebhookEndpoint'), obj({ secret: { type: 'string', description: 'whsec_…, shown only now: the HMAC-SHA256 key of x-stagegraph-signature' } })],
  },
  WebhookDelivery: obj({
    _id: str,
    endpointId: str,
    event: str,
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    nextAttemptAt: nullableNum,
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: nullableStr,
    deliveredAt: nullableNum,
    body: str,
    created: epochMs,
  }),
};

const webhookFields: Record<string, JsonSchema> = {
  url: { type: 'string', minLength: 1, maxLength: 2048, description: 'http(s) URL that receives signed POSTs' },
  events: {
    type: 'array',
    minItems: 1,
    maxItems: 20,
    items: { type: 'string' },
    description: 'event names: admin.channelUpdated, poll.closed, poll.resolved, quest.completed; or * for every event',
  },
  description: { type: 'string', maxLength: 500 },
  active: { type: 'boolean' },
};

export const webhookRoutes: RouteSpec[] = [
  {
    operationId: 'createWebhookEndpoint',
    method: 'post',
    path: '/webhook/v1/',
    summary: 'Register where the site’s webhooks go; the answer holds the signing secret, shown only now',
    tag: 'Webhooks',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['url', 'events'], additionalProperties: false, properties: webhookFields }, required: true },
    document: /* GraphQL */ `mutation CreateWebhookEndpoint($input: WebhookEndpointInput!) { result: createWebhookEndpoint(input: $input) { ${WEBHOOK_WITH_SECRET} } }`,
    variables: { input: { url: 'body.url', events: 'body.events', description: 'body.description', active: 'body.active' } },
    status: 201,
    response: ref('WebhookEndpointWithSecret'),
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'get',
    path: '/webhook/v1/',
    summary: 'The site’s webhook endpoints',
    tag: 'Webhooks',
    auth: ADMIN,
    document: /* GraphQL */ `query ListWebhookEndpoints { result: webhookEndpoints { ${WEBHOOK} } }`,
    response: arrayOf(ref('WebhookEndpoint')),
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'get',
    path: '/webhook/v1/{id}',
    summary: 'One webhook endpoint',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    document: /* GraphQL */ `query GetWebhookEndpoint($id: ID!) { result: webhookEndpoint(id: $id) { ${WEBHOOK} } }`,
    variables: { id: 'path.id' },
    response: ref('WebhookEndpoint'),
  },
  {
    operationId: 'updateWebhookEndpoint',
    method: 'put',
    path: '/webhook/v1/{id}',
    summary: 'Update what is given of a webhook endpoint: URL, events, description or activity (absent fields keep their value)',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: webhookFields }, required: true, readOnly: [...READ_ONLY, 'siteId'] },
    document: /* GraphQL */ `mutation UpdateWebhookEndpoint($id: ID!, $input: WebhookEndpointUpdateInput!) { result: updateWebhookEndpoint(id: $id, input: $input) { ${WEBHOOK} } }`,
    variables: { id: 'path.id', input: { url: 'body.url', events: 'body.events', description: 'body.description', active: 'body.active' } },
    response: ref('WebhookEndpoint'),
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'delete',
    path: '/webhook/v1/{id}',
    summary: 'Remove a webhook endpoint (its pending deliveries are dropped)',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    document: /* GraphQL */ `mutation DeleteWebhookEndpoint($id: ID!) { result: deleteWebhookEndpoint(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
  {
    operationId: 'rotateWebhookSecret',
    method: 'post',
    path: '/webhook/v1/{id}/rotate-secret',
    summary: 'Replace an endpoint’s signing secret; the answer holds the new one, shown only now',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    document: /* GraphQL */ `mutation RotateWebhookSecret($id: ID!) { result: rotateWebhookSecret(id: $id) { ${WEBHOOK_WITH_SECRET} } }`,
    variables: { id: 'path.id' },
    response: ref('WebhookEndpointWithSecret'),
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/webhook/v1/{id}/deliveries',
    summary: 'An endpoint’s deliveries, newest first, with how each went',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID'), limit, offset],
    document: /* GraphQL */ `query ListWebhookDeliveries($id: ID!, $limit: Int, $offset: Int) { result: webhookDeliveries(endpointId: $id, limit: $limit, offset: $offset) { ${DELIVERY} } }`,
    variables: { id: 'path.id', limit: 'query.limit', offset: 'query.offset' },
    response: arrayOf(ref('WebhookDelivery')),
  },
];
