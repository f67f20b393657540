/**
 * Data providers (seed 000) and their signed events (verified in the subgraph over the exact raw body); answered
 * by the integrations subgraph.
 */
import { arrayOf, epochMs, pathId as id, ref, SITE_ID, PARTNER, SITE_ADMIN } from '../table';
import type { JsonSchema, ParamSpec, RouteSpec } from '../table';

const signature: ParamSpec = {
  name: 'X-DataProvider-Signature',
  in: 'header',
  credential: true,
  schema: { type: 'string' },
  description: 'lowercase hex HMAC-SHA256 with the provider secret',
};

/** Components of the OpenAPI document these routes refer to. */
export const dataProviderSchemas: Record<string, JsonSchema> = {
  DataProviderCredentials: {
    type: 'object',
    required: ['dataProviderId', 'secret'],
    properties: { dataProviderId: { type: 'string' }, secret: { type: 'string', description: 'signs every later request; shown at registration' } },
  },
  AvailableDataProvider: {
    type: 'object',
    required: ['_id', 'name', 'description', 'facts', 'created', 'modified', 'tags'],
    properties: {
      _id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      facts: arrayOf({ type: 'string', description: 'dotted path of a schema leaf, e.g. data.score' }),
      created: epochMs,
      modified: epochMs,
      tags: arrayOf({ type: 'string' }),
    },
  },
};

const dataProviderFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', minLength: 1, maxLength: 2000 },
  schema: { type: 'object', description: 'a JSON Schema of the events' },
  ownerName: { type: 'string', minLength: 1, maxLength: 200 },
  ownerEmail: { type: 'string', format: 'email' },
  realtime: { type: 'boolean' },
  ttl: { type: ['integer', 'null'], minimum: 1, maximum: 2_147_483_647, description: 'seconds an event is kept; null = no expiration' },
  tags: arrayOf({ type: 'string', minLength: 1 }),
};

const registerDataProviderBody: JsonSchema = {
  type: 'object',
  required: ['name', 'description', 'schema', 'ownerName', 'ownerEmail', 'realtime'],
  additionalProperties: false,
  properties: dataProviderFields,
};

const updateDataProviderBody: JsonSchema = { type: 'object', additionalProperties: false, properties: dataProviderFields };

export const dataProviderRoutes: RouteSpec[] = [
  {
    operationId: 'registerDataProvider',
    method: 'post',
    path: '/dataprovider/v1/register',
    summary: 'Register a data provider; the secret is shown once and signs every later request',
    tag: 'Data providers',
    auth: SITE_ADMIN,
    body: { schema: registerDataProviderBody, required: true },
    document: /* GraphQL */ `mutation RegisterDataProvider($input: RegisterDataProviderInput!) { result: registerDataProvider(input: $input) { dataProviderId secret } }`,
    variables: { input: 'body' },
    status: 201,
    response: ref('DataProviderCredentials'),
  },
  {
    operationId: 'availableDataProviders',
    method: 'get',
    path: '/dataprovider/v1/available',
    summary: 'The data providers of the site, with the facts their events carry',
    tag: 'Data providers',
    auth: SITE_ID,
    document: /* GraphQL */ `query AvailableDataProviders { result: availableDataProviders { _id: id name description facts created modified tags } }`,
    envelope: 'results',
    response: {
      type: 'object',
      required: ['success', 'results'],
      properties: { success: { type: 'boolean' }, results: arrayOf(ref('AvailableDataProvider')) },
    },
  },
  {
    operationId: 'updateDataProvider',
    method: 'put',
    path: '/dataprovider/v1/{id}',
    summary: 'The provider updates what is given of its registration, absent fields keep their value; signed over the exact body',
    tag: 'Data providers',
    auth: PARTNER,
    params: [id('id', 'data provider ID'), signature],
    body: { schema: updateDataProviderBody, required: true },
    rawBody: true,
    document: /* GraphQL */ `mutation UpdateDataProvider($id: ID!, $signature: String, $rawBody: String!) {
      result: updateDataProvider(id: $id, signature: $signature, rawBody: $rawBody) { dataProviderId secret } }`,
    variables: { id: 'path.id', signature: 'header.X-DataProvider-Signature', rawBody: 'rawBody' },
    response: ref('DataProviderCredentials'),
  },
  {
    operationId: 'removeDataProvider',
    method: 'delete',
    path: '/dataprovider/v1/{id}',
    summary: 'The provider removes itself, signed over its ID',
    tag: 'Data providers',
    auth: PARTNER,
    params: [id('id', 'data provider ID'), signature],
    document: /* GraphQL */ `mutation RemoveDataProvider($id: ID!, $signature: String) { result: removeDataProvider(id: $id, signature: $signature) { success } }`,
    variables: { id: 'path.id', signature: 'header.X-DataProvider-Signature' },
    response: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } },
  },
  {
    operationId: 'ingestDataEvent',
    rateLimited: true,
    method: 'post',
    path: '/dataprovider/v1/{dataProviderId}/events',
    summary: 'The provider sends one data event, signed over the exact body; it is stored before the answer and evaluated by automation rules',
    tag: 'Data providers',
    auth: PARTNER,
    params: [id('dataProviderId', 'data provider ID'), signature],
    body: { schema: { type: 'object', description: 'conforms to the schema the provider registered' }, required: true },
    rawBody: true,
    bodyLimitBytes: 256 * 1024,
    document: /* GraphQL */ `mutation IngestDataEvent($dataProviderId: ID!, $signature: String, $rawBody: String!) {
      result: ingestDataEvent(dataProviderId: $dataProviderId, signature: $signature, rawBody: $rawBody) { success } }`,
    variables: { dataProviderId: 'path.dataProviderId', signature: 'header.X-DataProvider-Signature', rawBody: 'rawBody' },
    subgraph: 'integrations',
    status: 201,
    response: { type: 'object', required: ['success'], properties: { success: { type: 'boolean', enum: [true] } } },
  },
];
