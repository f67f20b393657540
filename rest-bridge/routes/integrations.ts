/**
 * REST routes answered by the integrations subgraph (seed 000): streaming provider contracts, the
 * service-side stream control, the provider's webhooks and VOD delivery, data providers and their
 * signed events. Partner credentials (Bearer GUID, X-DataProvider-Signature) are handed over as
 * variables and verified in the subgraph, over the exact raw body where the contract says so.
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { AuthCode, JsonSchema, ParamSpec, RouteSpec } from '../table';

const SITE_ADMIN: readonly (readonly AuthCode[])[] = [['C', 'D']];
const PARTNER: readonly (readonly AuthCode[])[] = [];

const bearer: ParamSpec = { name: 'Authorization', in: 'header', credential: true, schema: { type: 'string' }, description: 'Bearer <authorization> from registration' };
const signature: ParamSpec = {
  name: 'X-DataProvider-Signature',
  in: 'header',
  credential: true,
  schema: { type: 'string' },
  description: 'lowercase hex HMAC-SHA256 with the provider secret',
};

const URLS = /* GraphQL */ `urls { createStream deleteStream deleteVod startStream stopStream verifyAccount activateStream }`;
const CONTRACT = /* GraphQL */ `_id: id siteId name ${URLS} accountCredentials useAccount created modified`;
const STATE = /* GraphQL */ `state { ingestEnabled ingestConnected playbackLive recording ingestChangedAt playbackChangedAt }`;
const STREAM = /* GraphQL */ `_id: id siteId pageId contractId title fallbackImageUrl ingestUrl streamKey playbackUrl providerStreamId liveBroadcastId ${STATE}
  broadcasts { liveBroadcastId started stopped vodId vodUrl durationSeconds videoId vodDeleted } created modified`;

// ---------------------------------------------------------------- components

const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const nullableEpochMs: JsonSchema = { type: ['number', 'null'], description: 'Unix time in milliseconds' };

const streamState: JsonSchema = {
  type: 'object',
  required: ['ingestEnabled', 'ingestConnected', 'playbackLive', 'recording'],
  properties: {
    ingestEnabled: { type: 'boolean', description: 'false after deleteStream until activateStream' },
    ingestConnected: { type: 'boolean', description: 'connected / disconnected' },
    playbackLive: { type: 'boolean', description: 'active / idle' },
    recording: { type: 'boolean', description: 'between startStream and stopStream' },
    ingestChangedAt: nullableEpochMs,
    playbackChangedAt: nullableEpochMs,
  },
};

export const integrationSchemas: Record<string, JsonSchema> = {
  StreamProviderContract: {
    type: 'object',
    required: ['_id', 'siteId', 'name', 'urls', 'accountCredentials', 'useAccount', 'created', 'modified'],
    properties: {
      _id: { type: 'string' },
      siteId: { type: 'string' },
      name: { type: 'string' },
      urls: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      accountCredentials: stringMap,
      useAccount: { type: 'boolean' },
      created: epochMs,
      modified: epochMs,
    },
  },
  StreamState: streamState,
  Stream: {
    type: 'object',
    required: ['_id', 'siteId', 'pageId', 'contractId', 'title', 'ingestUrl', 'streamKey', 'playbackUrl', 'providerStreamId', 'state', 'created', 'modified'],
    properties: {
      _id: { type: 'string' },
      siteId: { type: 'string' },
      pageId: { type: 'string', description: 'the channel' },
      contractId: { type: 'string' },
      title: { type: 'string', description: 'the unique title sent to the provider' },
      fallbackImageUrl: { type: 'string' },
      ingestUrl: { type: 'string', description: 'RTMP URL the encoder connects to' },
      streamKey: { type: 'string' },
      playbackUrl: { type: 'string', description: 'live HLS manifest' },
      providerStreamId: { type: 'string' },
      liveBroadcastId: { type: ['string', 'null'], description: 'the broadcast being recorded, or the last one' },
      state: ref('StreamState'),
      broadcasts: arrayOf({
        type: 'object',
        properties: {
          liveBroadcastId: { type: 'string' },
          started: epochMs,
          stopped: nullableEpochMs,
          vodId: { type: ['string', 'null'] },
          vodUrl: { type: ['string', 'null'] },
          durationSeconds: { type: ['number', 'null'] },
          videoId: { type: ['string', 'null'], description: 'the Video the VOD became' },
          vodDeleted: { type: 'boolean' },
        },
      }),
      created: epochMs,
      modified: epochMs,
    },
  },
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

// ---------------------------------------------------------------- request bodies

const httpUrl: JsonSchema = { type: 'string', minLength: 1, description: 'http(s) URL' };
const urlKeys = ['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream', 'verifyAccount', 'activateStream'];

const registerStreamProviderBody: JsonSchema = {
  type: 'object',
  required: ['name', 'urls', 'useAccount'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    urls: {
      type: 'object',
      required: ['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream'],
      additionalProperties: false,
      properties: Object.fromEntries(urlKeys.map((key) => [key, httpUrl])),
    },
    accountCredentials: { ...stringMap, description: 'credential key -> input label (required with useAccount)' },
    useAccount: { type: 'boolean' },
  },
};

const updateStreamProviderBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    urls: {
      type: 'object',
      additionalProperties: false,
      description: 'merged into the registered URLs; null removes an optional one',
      properties: Object.fromEntries(urlKeys.map((key) => [key, { type: ['string', 'null'] }])),
    },
    accountCredentials: stringMap,
    useAccount: { type: 'boolean' },
  },
};

const createStreamBody: JsonSchema = {
  type: 'object',
  required: ['pageId', 'contractId'],
  additionalProperties: false,
  properties: {
    pageId: { type: 'string', minLength: 1, description: 'the channel to stream' },
    contractId: { type: 'string', minLength: 1 },
    accountCredentials: { ...stringMap, description: 'for a contract with useAccount' },
    fallbackImageUrl: { ...httpUrl, description: 'default: STREAM_FALLBACK_IMAGE_URL' },
  },
};

const webhookBody: JsonSchema = {
  type: 'object',
  required: ['type', 'id', 'time'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['connected', 'active', 'disconnected', 'idle'] },
    id: { type: 'string', minLength: 1, description: 'the providerStreamId' },
    time: { type: 'number', minimum: 0, description: 'Unix time in milliseconds' },
  },
};

const vodBody: JsonSchema = {
  type: 'object',
  required: ['liveBroadcastId', 'vodId', 'streamId', 'url'],
  additionalProperties: false,
  properties: {
    durationSeconds: { type: 'number', minimum: 0 },
    liveBroadcastId: { type: 'string', minLength: 1, description: 'from the startStream request that began the recording' },
    vodId: { type: 'string', minLength: 1 },
    streamId: { type: 'string', minLength: 1, description: 'the providerStreamId' },
    url: { ...httpUrl, description: 'playback URL of the recording' },
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

// ---------------------------------------------------------------- routes

const streamControl = (action: 'start' | 'stop' | 'activate', summary: string): RouteSpec => ({
  operationId: `${action}Stream`,
  callsOut: true,
  method: 'post',
  path: `/stream/v1/{id}/${action}`,
  summary,
  tag: 'Streams',
  auth: SITE_ADMIN,
  params: [id('id', 'stream ID')],
  document: /* GraphQL */ `mutation ${action[0].toUpperCase()}${action.slice(1)}Stream($id: ID!) { result: ${action}Stream(id: $id) { ${STREAM} } }`,
  variables: { id: 'path.id' },
  response: ref('Stream'),
});

export const integrationRoutes: RouteSpec[] = [
  {
    operationId: 'registerStreamProvider',
    method: 'post',
    path: '/streamprovider/v1/register',
    summary: 'Register a streaming provider contract; the answered authorization is its Bearer token, shown once',
    tag: 'Streaming providers',
    auth: SITE_ADMIN,
    body: { schema: registerStreamProviderBody, required: true },
    document: /* GraphQL */ `mutation RegisterStreamProvider($input: RegisterStreamProviderInput!) { result: registerStreamProvider(input: $input) { id authorization } }`,
    variables: { input: 'body' },
    status: 201,
    response: { type: 'object', required: ['id', 'authorization'], properties: { id: { type: 'string' }, authorization: { type: 'string', description: 'GUID' } } },
  },
  {
    operationId: 'updateStreamProvider',
    method: 'put',
    path: '/streamprovider/v1/{id}',
    summary: 'The provider modifies its contract (Bearer of the contract)',
    tag: 'Streaming providers',
    auth: PARTNER,
    params: [id('id', 'contract ID'), bearer],
    body: { schema: updateStreamProviderBody, required: true },
    document: /* GraphQL */ `mutation UpdateStreamProvider($id: ID!, $authorization: String, $input: UpdateStreamProviderInput!) {
      result: updateStreamProvider(id: $id, authorization: $authorization, input: $input) { ${CONTRACT} } }`,
    variables: { id: 'path.id', authorization: 'header.Authorization', input: 'body' },
    response: ref('StreamProviderContract'),
  },
  {
    operationId: 'verifyStreamProviderAccount',
    callsOut: true,
    method: 'post',
    path: '/streamprovider/v1/{id}/verify-account',
    summary: 'Check customer account credentials with the provider (verifyAccount)',
    tag: 'Streaming providers',
    auth: SITE_ADMIN,
    params: [id('id', 'contract ID')],
    body: { schema: { type: 'object', required: ['accountCredentials'], additionalProperties: false, properties: { accountCredentials: stringMap } }, required: true },
    document: /* GraphQL */ `mutation VerifyStreamProviderAccount($id: ID!, $accountCredentials: JSON!) {
      result: verifyStreamProviderAccount(contractId: $id, accountCredentials: $accountCredentials) { valid message } }`,
    variables: { id: 'path.id', accountCredentials: 'body.accountCredentials' },
    envelope: 'success',
    response: { type: 'object', required: ['success', 'valid', 'message'], properties: { success: { type: 'boolean' }, valid: { type: 'boolean' }, message: { type: 'string' } } },
  },
  {
    operationId: 'testDeleteStream',
    callsOut: true,
    method: 'post',
    path: '/streamprovider/v1/test/delete-stream/{streamId}',
    summary: 'Test trigger: ask the provider to block a stream’s ingest (deleteStream)',
    tag: 'Streaming providers',
    auth: SITE_ADMIN,
    params: [id('streamId', 'stream ID')],
    document: /* GraphQL */ `mutation TestDeleteStream($id: ID!) { result: deleteProviderStream(streamId: $id) { ${STREAM} } }`,
    variables: { id: 'path.streamId' },
    response: ref('Stream'),
  },
  {
    operationId: 'testDeleteVod',
    callsOut: true,
    method: 'post',
    path: '/streamprovider/v1/test/delete-vod/{vodId}',
    summary: 'Test trigger: ask the provider to delete a delivered recording (deleteVod)',
    tag: 'Streaming providers',
    auth: SITE_ADMIN,
    params: [id('vodId', 'VOD ID')],
    document: /* GraphQL */ `mutation TestDeleteVod($vodId: ID!) { result: deleteProviderVod(vodId: $vodId) { success vodId } }`,
    variables: { vodId: 'path.vodId' },
    response: { type: 'object', required: ['success', 'vodId'], properties: { success: { type: 'boolean' }, vodId: { type: 'string' } } },
  },
  {
    operationId: 'createStream',
    callsOut: true,
    method: 'post',
    path: '/stream/v1/',
    summary: 'Create a stream for a channel at a contract’s provider (createStream)',
    tag: 'Streams',
    auth: SITE_ADMIN,
    body: { schema: createStreamBody, required: true },
    document: /* GraphQL */ `mutation CreateStream($input: CreateStreamInput!) { result: createStream(input: $input) { ${STREAM} } }`,
    variables: { input: 'body' },
    status: 201,
    response: ref('Stream'),
  },
  {
    operationId: 'listStreams',
    method: 'get',
    path: '/stream/v1/',
    summary: 'List the streams of the site, or of one channel',
    tag: 'Streams',
    auth: ADMIN,
    params: [{ name: 'pageId', in: 'query', schema: { type: 'string' }, description: 'only this channel' }],
    document: /* GraphQL */ `query ListStreams($pageId: ID) { result: streams(pageId: $pageId) { ${STREAM} } }`,
    variables: { pageId: 'query.pageId' },
    envelope: 'results',
    response: { type: 'object', required: ['success', 'results'], properties: { success: { type: 'boolean' }, results: arrayOf(ref('Stream')) } },
  },
  {
    operationId: 'receiveStreamWebhook',
    method: 'post',
    path: '/stream/v1/webhook',
    summary: 'The provider reports a stream state change (Bearer of the contract); repeats and older deliveries change nothing',
    tag: 'Streams',
    auth: PARTNER,
    params: [bearer],
    body: { schema: webhookBody, required: true },
    document: /* GraphQL */ `mutation ReceiveStreamWebhook($authorization: String, $input: StreamWebhookInput!) {
      result: receiveStreamWebhook(authorization: $authorization, input: $input) { success changed ${STATE} } }`,
    variables: { authorization: 'header.Authorization', input: 'body' },
    response: {
      type: 'object',
      required: ['success', 'changed', 'state'],
      properties: { success: { type: 'boolean' }, changed: { type: 'boolean', description: 'false for a repeated or older delivery' }, state: ref('StreamState') },
    },
  },
  {
    operationId: 'getStream',
    method: 'get',
    path: '/stream/v1/{id}',
    summary: 'A stream with its current state',
    tag: 'Streams',
    auth: ADMIN,
    params: [id('id', 'stream ID')],
    document: /* GraphQL */ `query GetStream($id: ID!) { result: stream(id: $id) { ${STREAM} } }`,
    variables: { id: 'path.id' },
    response: ref('Stream'),
  },
  streamControl('start', 'Start VOD recording (startStream with a new liveBroadcastId)'),
  streamControl('stop', 'Stop VOD recording (stopStream); the provider then delivers the VOD'),
  streamControl('activate', 'Enable the stream’s ingest again (activateStream)'),
  {
    operationId: 'deliverVod',
    method: 'post',
    path: '/video/v3/vod',
    summary: 'The provider delivers a finished recording (Bearer of the contract); it becomes a Video of the channel',
    tag: 'Streams',
    auth: PARTNER,
    params: [bearer],
    body: { schema: vodBody, required: true },
    document: /* GraphQL */ `mutation DeliverVod($authorization: String, $input: VodDeliveryInput!) {
      result: deliverVod(authorization: $authorization, input: $input) { success vodId liveBroadcastId videoId } }`,
    variables: { authorization: 'header.Authorization', input: 'body' },
    response: {
      type: 'object',
      required: ['success', 'vodId', 'liveBroadcastId', 'videoId'],
      properties: { success: { type: 'boolean' }, vodId: { type: 'string' }, liveBroadcastId: { type: 'string' }, videoId: { type: 'string' } },
    },
  },
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
    response: { type: 'object', required: ['success', 'results'], properties: { success: { type: 'boolean' }, results: arrayOf(ref('AvailableDataProvider')) } },
  },
  {
    operationId: 'updateDataProvider',
    method: 'put',
    path: '/dataprovider/v1/{id}',
    summary: 'The provider updates its registration, signed over the exact body',
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
