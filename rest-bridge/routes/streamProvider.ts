/**
 * Streaming providers (seed 000, hosted by the service): registration, contract updates and test triggers;
 * answered by the integrations subgraph. Partner credentials are handed over as variables and verified in the
 * subgraph.
 */
import { epochMs, pathId as id, ref, PARTNER, SITE_ADMIN } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { STREAM, bearer, httpUrl, stringMap } from './shared';

const URLS = /* GraphQL */ `urls { createStream deleteStream deleteVod startStream stopStream verifyAccount activateStream createClip setSimulcastTargets }`;
const SIGNING = /* GraphQL */ `playbackSigning { scheme keyId key }`;
const CONTRACT = /* GraphQL */ `_id: id siteId name ${URLS} accountCredentials useAccount signedPlayback ${SIGNING} created modified`;

/** The signed-playback key as shown once (registration, rotation); null when none was made. */
const playbackSigning: JsonSchema = {
  type: ['object', 'null'],
  required: ['scheme', 'keyId', 'key'],
  properties: { scheme: { type: 'string' }, keyId: { type: 'string' }, key: { type: 'string' } },
  description: 'the signed-playback key, shown once (path-hmac-sha256: shared/playbackSigning.ts)',
};

/** What a provider asks: signed playback in a scheme it checks. */
const playbackSigningRequest: JsonSchema = {
  type: 'object',
  required: ['scheme'],
  additionalProperties: false,
  properties: { scheme: { type: 'string', minLength: 1, maxLength: 64, description: 'path-hmac-sha256' } },
};

/** Components of the OpenAPI document these routes refer to. */
export const streamProviderSchemas: Record<string, JsonSchema> = {
  StreamProviderContract: {
    type: 'object',
    required: ['_id', 'siteId', 'name', 'urls', 'accountCredentials', 'useAccount', 'signedPlayback', 'created', 'modified'],
    properties: {
      _id: { type: 'string' },
      siteId: { type: 'string' },
      name: { type: 'string' },
      urls: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      accountCredentials: stringMap,
      useAccount: { type: 'boolean' },
      signedPlayback: { type: 'boolean', description: 'whether the provider takes signed playback (false: plain URLs)' },
      playbackSigning,
      created: epochMs,
      modified: epochMs,
    },
  },
};

const urlKeys = [
  'createStream',
  'deleteStream',
  'deleteVod',
  'startStream',
  'stopStream',
  'verifyAccount',
  'activateStream',
  'createClip',
  'setSimulcastTargets',
];

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
    playbackSigning: { ...playbackSigningRequest, description: 'signed playback the provider takes (ours); absent: plain URLs' },
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
    playbackSigning: playbackSigningRequest,
  },
};

export const streamProviderRoutes: RouteSpec[] = [
  {
    operationId: 'registerStreamProvider',
    method: 'post',
    path: '/streamprovider/v1/register',
    summary: 'Register a streaming provider contract; the answered authorization is its Bearer token, shown once',
    tag: 'Streaming providers',
    auth: SITE_ADMIN,
    body: { schema: registerStreamProviderBody, required: true },
    document: /* GraphQL */ `mutation RegisterStreamProvider($input: RegisterStreamProviderInput!) { result: registerStreamProvider(input: $input) { id authorization ${SIGNING} } }`,
    variables: { input: 'body' },
    status: 201,
    response: {
      type: 'object',
      required: ['id', 'authorization'],
      properties: { id: { type: 'string' }, authorization: { type: 'string', description: 'GUID' }, playbackSigning },
    },
  },
  {
    operationId: 'updateStreamProvider',
    method: 'put',
    path: '/streamprovider/v1/{id}',
    summary: 'The provider updates what is given of its contract, absent fields keep their value (Bearer of the contract)',
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
    body: {
      schema: { type: 'object', required: ['accountCredentials'], additionalProperties: false, properties: { accountCredentials: stringMap } },
      required: true,
    },
    document: /* GraphQL */ `mutation VerifyStreamProviderAccount($id: ID!, $accountCredentials: JSON!) {
      result: verifyStreamProviderAccount(contractId: $id, accountCredentials: $accountCredentials) { valid message } }`,
    variables: { id: 'path.id', accountCredentials: 'body.accountCredentials' },
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'valid', 'message'],
      properties: { success: { type: 'boolean' }, valid: { type: 'boolean' }, message: { type: 'string' } },
    },
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
];
