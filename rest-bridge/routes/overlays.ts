/**
 * Overlays (seed 001): overlays, their broadcasts to channels, the site or tagged viewers, and the timeline of a
 * recording; answered by the overlays subgraph.
 */
import { READ_ONLY, ADMIN_OR_TOKEN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';

const OVERLAY = /* GraphQL */ `_id: id siteId name description type contents cta { type data } duration created modified`;
const BROADCAST = /* GraphQL */ `broadcastId channelId tagId variables startedAt expiresAt streamSecond overlay { _id: id name type contents cta { type data } duration }`;

const broadcastVariables = {
  duration: 'body.duration',
  channelId: ['body.channelId', 'body.targetId'],
  variables: 'body.variables',
} as const;

/** Components of the OpenAPI document these routes refer to. */
export const overlaySchemas: Record<string, JsonSchema> = {
  OverlayCta: {
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', description: 'login, show_panel, social_share, …' }, data: { description: 'any; may be null' } },
  },
  Overlay: {
    type: 'object',
    required: ['_id', 'siteId', 'name', 'type', 'contents', 'duration', 'created', 'modified'],
    properties: {
      _id: { type: 'string' },
      siteId: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      type: { type: 'string', enum: ['template', 'instance'] },
      contents: { type: 'object', description: 'for a template: { html } with ${var} or {var} variables' },
      cta: { oneOf: [ref('OverlayCta'), { type: 'null' }] },
      duration: { type: 'integer', description: 'seconds' },
      created: epochMs,
      modified: epochMs,
    },
  },
  OverlayBroadcast: {
    type: 'object',
    required: ['success', 'broadcastId', 'startedAt', 'expiresAt'],
    properties: {
      success: { type: 'boolean' },
      broadcastId: { type: 'string' },
      channelId: { type: ['string', 'null'], description: 'null = every channel of the site' },
      tagId: { type: ['string', 'null'] },
      variables: { type: 'object', additionalProperties: { type: 'string' } },
      overlay: {
        type: 'object',
        description: 'the overlay as broadcast, its contents with the variables filled in',
        properties: {
          _id: { type: 'string' },
          name: { type: 'string' },
          type: { type: 'string' },
          contents: { type: 'object' },
          cta: {},
          duration: { type: 'integer' },
        },
      },
      startedAt: epochMs,
      expiresAt: epochMs,
      streamSecond: {
        type: ['integer', 'null'],
        description: "whole seconds into the channel's recording (its liveBroadcastId); null when its stream is not recording",
      },
    },
  },
  TimelineEntry: {
    type: 'object',
    required: ['second', 'overlay'],
    properties: {
      second: { type: 'integer', description: 'whole seconds from the start of the recording' },
      overlay: {
        type: 'object',
        description: 'the overlay as broadcast, its contents with the variables filled in (the data of the show:overlay message)',
        required: ['_id', 'id', 'name', 'type', 'contents', 'duration'],
        properties: {
          _id: { type: 'string' },
          id: { type: 'string' },
          name: { type: 'string' },
          type: { type: 'string' },
          contents: { type: 'object' },
          cta: {},
          duration: { type: 'integer' },
        },
      },
    },
  },
  ClearBroadcastsResult: {
    type: 'object',
    required: ['success', 'cleared', 'message'],
    properties: { success: { type: 'boolean' }, cleared: { type: 'integer' }, message: { type: 'string' } },
  },
};

const ctaInput: JsonSchema = {
  type: ['object', 'null'],
  required: ['type'],
  additionalProperties: false,
  properties: { type: { type: 'string', minLength: 1 }, data: {} },
};

const overlayFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string' },
  type: { type: 'string', enum: ['template', 'instance'] },
  contents: { type: 'object' },
  cta: ctaInput,
  duration: { type: 'integer', minimum: 1, maximum: 86400, description: 'seconds' },
  siteId: { type: 'string' },
};

const createOverlayBody: JsonSchema = {
  type: 'object',
  required: ['name', 'type', 'contents', 'duration'],
  additionalProperties: false,
  properties: overlayFields,
};

const updateOverlayBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { _id: { type: 'string' }, ...overlayFields },
};

const broadcastBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    duration: { type: 'integer', minimum: 1, maximum: 86400, description: 'seconds; default: the overlay duration' },
    channelId: { type: 'string', minLength: 1, description: 'default: every channel of the site' },
    targetId: { type: 'string', minLength: 1, description: 'the sports workflow name of channelId' },
    variables: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
  },
};

export const overlayRoutes: RouteSpec[] = [
  {
    operationId: 'listOverlays',
    method: 'get',
    path: '/overlay/v1',
    summary: 'List the overlays of the site',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    document: /* GraphQL */ `query ListOverlays { result: overlays { ${OVERLAY} } }`,
    response: arrayOf(ref('Overlay')),
  },
  {
    operationId: 'createOverlay',
    method: 'post',
    path: '/overlay/v1',
    summary: 'Create an overlay (template or instance); keep the returned _id to broadcast it',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    body: { schema: createOverlayBody, required: true },
    document: /* GraphQL */ `mutation CreateOverlay($input: CreateOverlayInput!) { result: createOverlay(input: $input) { ${OVERLAY} } }`,
    variables: { input: 'body' },
    response: ref('Overlay'),
  },
  {
    // Before GET /overlay/v1/{id}, which would take "timeline" for an overlay ID.
    operationId: 'getOverlayTimeline',
    method: 'get',
    path: '/overlay/v1/timeline',
    summary:
      "The overlays broadcast during a recording, by the second of the video they were shown at (the player helper shows them on each viewer's timecode)",
    tag: 'Overlays',
    auth: [['C']],
    anyOrigin: true,
    params: [
      { name: 'liveBroadcastId', in: 'query', schema: { type: 'string', minLength: 1 }, description: 'the live broadcast of startStream' },
      {
        name: 'videoId',
        in: 'query',
        schema: { type: 'string', minLength: 1 },
        description: "the Video a streaming provider's VOD became (instead of liveBroadcastId)",
      },
    ],
    document: /* GraphQL */ `query OverlayTimeline($liveBroadcastId: ID, $videoId: ID) { result: overlayTimeline(liveBroadcastId: $liveBroadcastId, videoId: $videoId) { second overlay { _id: id id name type contents cta { type data } duration } } }`,
    variables: { liveBroadcastId: 'query.liveBroadcastId', videoId: 'query.videoId' },
    envelope: 'none',
    response: arrayOf(ref('TimelineEntry')),
  },
  {
    operationId: 'getOverlay',
    method: 'get',
    path: '/overlay/v1/{id}',
    summary: 'Get one overlay',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    params: [id()],
    document: /* GraphQL */ `query GetOverlay($id: ID!) { result: overlay(id: $id) { ${OVERLAY} } }`,
    variables: { id: 'path.id' },
    response: ref('Overlay'),
  },
  {
    operationId: 'updateOverlay',
    method: 'put',
    path: '/overlay/v1/{id}',
    summary: 'Update what is given of an overlay’s fields (absent fields keep their value)',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    params: [id()],
    body: { schema: updateOverlayBody, required: true, readOnly: READ_ONLY },
    document: /* GraphQL */ `mutation UpdateOverlay($id: ID!, $input: UpdateOverlayInput!) { result: updateOverlay(id: $id, input: $input) { ${OVERLAY} } }`,
    variables: {
      id: 'path.id',
      input: {
        name: 'body.name',
        description: 'body.description',
        type: 'body.type',
        contents: 'body.contents',
        cta: 'body.cta',
        duration: 'body.duration',
        siteId: 'body.siteId',
      },
    },
    response: ref('Overlay'),
  },
  {
    operationId: 'broadcastOverlay',
    method: 'post',
    path: '/overlay/v1/broadcast/{id}',
    summary: 'Show an overlay to the live viewers of a channel, or of every channel of the site',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    params: [id('id', 'overlay ID')],
    body: { schema: broadcastBody },
    document: /* GraphQL */ `mutation BroadcastOverlay($id: ID!, $input: BroadcastOverlayInput) { result: broadcastOverlay(id: $id, input: $input) { ${BROADCAST} } }`,
    variables: { id: 'path.id', input: broadcastVariables },
    envelope: 'success',
    response: ref('OverlayBroadcast'),
  },
  {
    operationId: 'clearAllBroadcasts',
    method: 'post',
    path: '/overlay/v1/clear-broadcast',
    summary: 'Take down every live broadcast of the site',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    document: /* GraphQL */ `mutation ClearAllBroadcasts { result: clearOverlayBroadcasts { success cleared message } }`,
    response: ref('ClearBroadcastsResult'),
  },
  {
    operationId: 'clearChannelBroadcasts',
    method: 'post',
    path: '/overlay/v1/clear-broadcast/{targetId}',
    summary: 'Take down the live broadcasts targeted at one channel',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    params: [id('targetId', 'channel ID')],
    document: /* GraphQL */ `mutation ClearChannelBroadcasts($channelId: ID!) { result: clearOverlayBroadcasts(channelId: $channelId) { success cleared message } }`,
    variables: { channelId: 'path.targetId' },
    response: ref('ClearBroadcastsResult'),
  },
  {
    operationId: 'broadcastOverlayToTag',
    method: 'post',
    path: '/broadcast/{id}/tag/{tagId}',
    summary: 'Show an overlay only to live viewers whose account carries a tag',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    params: [id('id', 'overlay ID'), id('tagId', 'account tag')],
    body: { schema: broadcastBody },
    document: /* GraphQL */ `mutation BroadcastOverlayToTag($id: ID!, $tagId: ID!, $input: BroadcastOverlayInput) { result: broadcastOverlayToTag(id: $id, tagId: $tagId, input: $input) { ${BROADCAST} } }`,
    variables: { id: 'path.id', tagId: 'path.tagId', input: broadcastVariables },
    envelope: 'success',
    response: ref('OverlayBroadcast'),
  },
];
