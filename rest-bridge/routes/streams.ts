/**
 * Streams (seed 000): the service-side stream control, the provider's webhooks and VOD delivery; answered by the
 * integrations subgraph.
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref, PARTNER, SITE_ADMIN } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { STATE, STREAM, bearer, httpUrl, stringMap } from './shared';

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

const liveCheck: JsonSchema = {
  type: 'object',
  description: 'Whether the stream’s channel plays it, and which switch of the channel is off when the stream is on air and the channel is not live',
  required: ['show', 'streamOnAir', 'channelLive', 'switchesOff', 'channelNamesStream', 'reason'],
  properties: {
    show: { type: 'string', enum: ['OFFLINE', 'STARTING', 'LIVE', 'RECONNECTING', 'ENDED'], description: 'the show as the provider’s webhooks moved it' },
    streamOnAir: { type: 'boolean', description: 'LIVE or RECONNECTING' },
    channelLive: { type: 'boolean', description: 'the channel plays the stream to its viewers now' },
    switchesOff: arrayOf({ type: 'string', enum: ['active_renderers.livestream', 'renderers.livestream.livestream_published'] }),
    channelNamesStream: { type: 'boolean', description: 'renderers.livestream.stream_id is this stream' },
    reason: { type: ['string', 'null'], description: 'why the channel is not live while the stream is on air; null otherwise' },
  },
};

/** A simulcast target as admins read it (ours): never its key. */
const simulcastTarget: JsonSchema = {
  type: 'object',
  required: ['name', 'url', 'state'],
  properties: {
    name: { type: 'string' },
    url: { type: 'string', description: 'rtmp:// or rtmps://, without the key' },
    state: { type: 'string', enum: ['idle', 'connecting', 'live', 'failed'], description: 'as the provider last reported it' },
    reason: { type: ['string', 'null'], description: 'why it failed; null otherwise' },
    stateChanged: nullableEpochMs,
  },
};

/**
 * Simulcast targets as an admin gives them (ours). The limits (at most 5, names 1..60 and unique, rtmp(s) URLs
 * on allowed hosts, keys 1..500) are checked by the service, whose 400 names the target and field.
 */
const simulcastTargetsInput: JsonSchema = arrayOf({
  type: 'object',
  required: ['name', 'url'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    url: { type: 'string', description: 'rtmp:// or rtmps://' },
    streamKey: { type: 'string', description: 'required for a new target; left out on an update, the target keeps its key' },
  },
});

/** Components of the OpenAPI document these routes refer to. */
export const streamSchemas: Record<string, JsonSchema> = {
  StreamState: streamState,
  StreamLiveCheck: liveCheck,
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
      liveCheck: ref('StreamLiveCheck'),
      simulcastTargets: arrayOf(simulcastTarget),
    },
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
    simulcastTargets: { ...simulcastTargetsInput, description: 'platforms to relay to while live (ours); the contract must simulcast' },
  },
};

const updateStreamBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { simulcastTargets: { ...simulcastTargetsInput, description: 'replaces the list (ours); [] removes every target' } },
};

const webhookBody: JsonSchema = {
  type: 'object',
  required: ['type', 'id', 'time'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['connected', 'active', 'disconnected', 'idle', 'simulcast'], description: 'simulcast: ours, a target’s state' },
    id: { type: 'string', minLength: 1, description: 'the providerStreamId' },
    time: { type: 'number', minimum: 0, description: 'Unix time in milliseconds' },
    simulcastTarget: {
      type: 'object',
      required: ['name', 'state'],
      additionalProperties: false,
      description: 'with type simulcast only',
      properties: {
        name: { type: 'string', minLength: 1 },
        state: { type: 'string', enum: ['idle', 'connecting', 'live', 'failed'] },
        reason: { type: ['string', 'null'] },
      },
    },
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

export const streamRoutes: RouteSpec[] = [
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
    // An idle that ends a recording show calls the provider's stopStream (502 when it fails; the provider retries).
    callsOut: true,
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
      properties: {
        success: { type: 'boolean' },
        changed: { type: 'boolean', description: 'false for a repeated or older delivery' },
        state: ref('StreamState'),
      },
    },
  },
  {
    operationId: 'getStream',
    method: 'get',
    path: '/stream/v1/{id}',
    summary: 'A stream with its current state, and whether its channel plays it (liveCheck: which switch is off when not)',
    tag: 'Streams',
    auth: ADMIN,
    params: [id('id', 'stream ID')],
    document: /* GraphQL */ `query GetStream($id: ID!) {
      result: stream(id: $id) { ${STREAM} liveCheck { show streamOnAir channelLive switchesOff channelNamesStream reason } } }`,
    variables: { id: 'path.id' },
    response: ref('Stream'),
  },
  {
    operationId: 'updateStream',
    callsOut: true,
    method: 'put',
    path: '/stream/v1/{id}',
    summary: 'Change a stream: its simulcast targets (ours), handed to the provider’s setSimulcastTargets; keys are never returned',
    tag: 'Streams',
    auth: SITE_ADMIN,
    params: [id('id', 'stream ID')],
    body: { schema: updateStreamBody, required: true },
    document: /* GraphQL */ `mutation UpdateStream($id: ID!, $input: UpdateStreamInput!) { result: updateStream(id: $id, input: $input) { ${STREAM} } }`,
    variables: { id: 'path.id', input: 'body' },
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
];
