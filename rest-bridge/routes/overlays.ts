/** REST routes answered by the overlays subgraph: overlays and their broadcasts, automation rules (seed 001). */
import { ADMIN, READ_ONLY, ADMIN_OR_TOKEN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { TRIGGER_OPERATORS } from '../../subgraphs/overlays/triggers';

const OVERLAY = /* GraphQL */ `_id: id siteId name description type contents cta { type data } duration created modified`;
const BROADCAST = /* GraphQL */ `broadcastId channelId tagId variables startedAt expiresAt streamSecond overlay { _id: id name type contents cta { type data } duration }`;

const RULE = /* GraphQL */ `_id: id name dataSourceId siteId jsonRule isActive channelId clientRule created modified`;

const broadcastVariables = {
  duration: 'body.duration',
  channelId: ['body.channelId', 'body.targetId'],
  variables: 'body.variables',
} as const;

/** Components of the OpenAPI document these routes refer to. */
export const overlaySchemas: Record<string, JsonSchema> = {
  SiteConcurrents: {
    type: 'object',
    required: ['siteId', 'concurrents', 'totalViews', 'channels'],
    properties: {
      siteId: { type: 'string' },
      concurrents: { type: 'integer' },
      totalViews: { type: 'integer' },
      channels: arrayOf({ type: 'object', properties: { _id: { type: 'string' }, slug: { type: ['string', 'null'], description: 'null for a channel ID with no page' }, concurrents: { type: 'integer' } } }),
    },
  },
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
        properties: { _id: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, contents: { type: 'object' }, cta: {}, duration: { type: 'integer' } },
      },
      startedAt: epochMs,
      expiresAt: epochMs,
      streamSecond: { type: ['integer', 'null'], description: 'whole seconds into the channel\'s recording (its liveBroadcastId); null when its stream is not recording' },
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
        properties: { _id: { type: 'string' }, id: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, contents: { type: 'object' }, cta: {}, duration: { type: 'integer' } },
      },
    },
  },
  AutomationRule: {
    type: 'object',
    required: ['_id', 'name', 'dataSourceId', 'siteId', 'jsonRule', 'isActive', 'clientRule', 'created', 'modified'],
    properties: {
      _id: { type: 'string' },
      name: { type: 'string' },
      dataSourceId: { type: 'string', description: 'the data provider of jsonRule.trigger' },
      siteId: { type: 'string' },
      jsonRule: ref('JsonRule'),
      isActive: { type: 'boolean' },
      channelId: { type: ['string', 'null'] },
      clientRule: { type: 'boolean' },
      created: epochMs,
      modified: epochMs,
    },
  },
  JsonRule: {
    type: 'object',
    required: ['trigger', 'action'],
    properties: {
      trigger: {
        type: 'object',
        required: ['dataProviderId', 'fact', 'operator', 'value'],
        properties: {
          dataProviderId: { type: 'string' },
          fact: { type: 'string', description: 'a fact of the data provider, e.g. data.score' },
          operator: { type: 'string', enum: [...TRIGGER_OPERATORS] },
          value: { description: 'string (numbers compare as numbers); a list or comma-separated string for in / not_in', oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { type: ['string', 'number', 'boolean'] } }] },
          behavior: { type: 'string', enum: ['immediate'] },
        },
      },
      action: {
        type: 'object',
        required: ['type', 'targeting', 'templateId'],
        properties: {
          type: { type: 'string', enum: ['SEND_OVERLAY'] },
          targeting: {
            type: 'object',
            required: ['scope'],
            properties: {
              scope: { type: 'string', enum: ['all_channels', 'specific_channels'] },
              target: arrayOf({ type: 'string', description: 'channel ID' }),
              segment: { type: 'string', enum: ['all_viewers', 'viewers_with_tags'] },
              tags: arrayOf({ type: 'string' }),
              priority: { type: 'number' },
            },
          },
          templateId: { type: 'string', description: 'the overlay to broadcast' },
          dataMap: { type: 'object', additionalProperties: { type: 'string' }, description: 'template variable -> dotted path in the event' },
          broadcastPayload: { type: 'object', description: 'duration (seconds), variables (constants), …' },
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

// Request bodies.

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

const ruleFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  jsonRule: { type: 'object', description: 'see the JsonRule schema' },
  channelId: { type: ['string', 'null'] },
  active: { type: 'boolean', description: 'default true' },
  isActive: { type: 'boolean', description: 'the same as active' },
  clientRule: { type: 'boolean' },
};

const ruleVariables = {
  name: 'body.name',
  jsonRule: 'body.jsonRule',
  channelId: 'body.channelId',
  active: ['body.active', 'body.isActive'],
  clientRule: 'body.clientRule',
} as const;

const successMessage: JsonSchema = { type: 'object', required: ['success', 'message'], properties: { success: { type: 'boolean' }, message: { type: 'string' } } };

export const overlayRoutes: RouteSpec[] = [
  {
    operationId: 'insightsConcurrents',
    method: 'get',
    path: '/insights/v1/concurrents',
    summary: 'Live viewers per site and channel, counted from viewer connections on every instance',
    tag: 'Insights',
    auth: [['S']],
    params: [
      { name: 'siteIds', in: 'query', commaSeparated: true, schema: { type: 'array', items: { type: 'string' } }, description: 'comma-separated site IDs; default: the site of x-service-client-id' },
      { name: 'x-service-client-id', in: 'header', schema: { type: 'string' }, description: 'used only when siteIds is absent' },
    ],
    document: /* GraphQL */ `query Concurrents($siteIds: [ID!], $superApiKey: String!) { result: concurrents(siteIds: $siteIds, superApiKey: $superApiKey) { siteId concurrents totalViews channels { _id: channelId slug concurrents } } }`,
    variables: { siteIds: 'query.siteIds', superApiKey: 'header.super-api-key' },
    response: arrayOf(ref('SiteConcurrents')),
  },
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
    summary: 'The overlays broadcast during a recording, by the second of the video they were shown at (the player helper shows them on each viewer\'s timecode)',
    tag: 'Overlays',
    auth: [['C']],
    anyOrigin: true,
    params: [
      { name: 'liveBroadcastId', in: 'query', schema: { type: 'string', minLength: 1 }, description: 'the live broadcast of startStream' },
      { name: 'videoId', in: 'query', schema: { type: 'string', minLength: 1 }, description: 'the Video a streaming provider\'s VOD became (instead of liveBroadcastId)' },
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
    summary: 'Update any of an overlay’s fields',
    tag: 'Overlays',
    auth: ADMIN_OR_TOKEN,
    params: [id()],
    body: { schema: updateOverlayBody, required: true, readOnly: READ_ONLY },
    document: /* GraphQL */ `mutation UpdateOverlay($id: ID!, $input: UpdateOverlayInput!) { result: updateOverlay(id: $id, input: $input) { ${OVERLAY} } }`,
    variables: {
      id: 'path.id',
      input: { name: 'body.name', description: 'body.description', type: 'body.type', contents: 'body.contents', cta: 'body.cta', duration: 'body.duration', siteId: 'body.siteId' },
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
  {
    operationId: 'listAutomationRules',
    method: 'get',
    path: '/personalization/v1/',
    summary: 'List the automation rules of the site',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [{ name: 'clientRule', in: 'query', schema: { type: 'boolean' }, description: 'only rules with this clientRule value; absent = all' }],
    document: /* GraphQL */ `query ListAutomationRules($clientRule: Boolean) { result: automationRules(clientRule: $clientRule) { results { ${RULE} } message } }`,
    variables: { clientRule: 'query.clientRule' },
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'results', 'message'],
      properties: { success: { type: 'boolean' }, results: arrayOf(ref('AutomationRule')), message: { type: 'string' } },
    },
  },
  {
    operationId: 'createAutomationRule',
    method: 'post',
    path: '/personalization/v1/',
    summary: 'Create an automation rule',
    tag: 'Automation rules',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['name', 'jsonRule'], additionalProperties: false, properties: ruleFields }, required: true },
    document: /* GraphQL */ `mutation CreateAutomationRule($input: CreateAutomationRuleInput!) { result: createAutomationRule(input: $input) { id get } }`,
    variables: { input: ruleVariables },
    status: 201,
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'id', 'get'],
      properties: { success: { type: 'boolean' }, id: { type: 'string' }, get: { type: 'string', description: 'the path that reads the rule' } },
    },
  },
  {
    operationId: 'deleteAutomationRules',
    method: 'put',
    path: '/personalization/v1/automation-rule',
    summary: 'Delete the automation rules named in ids',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [{ name: 'ids', in: 'query', required: true, schema: { type: 'string' }, description: 'rule IDs, comma-separated' }],
    document: /* GraphQL */ `mutation DeleteAutomationRules($ids: [ID!]!) { result: deleteAutomationRules(ids: $ids) { total removed message } }`,
    variables: { ids: 'query.ids' },
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'total', 'removed', 'message'],
      properties: { success: { type: 'boolean' }, total: { type: 'integer' }, removed: { type: 'integer' }, message: { type: 'string' } },
    },
  },
  {
    operationId: 'updateAutomationRule',
    method: 'put',
    path: '/personalization/v1/{id}',
    summary: 'Update any of an automation rule’s fields',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [id('id', 'rule ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: ruleFields }, required: true, readOnly: [...READ_ONLY, 'success', 'dataSourceId', 'siteId'] },
    document: /* GraphQL */ `mutation UpdateAutomationRule($id: ID!, $input: UpdateAutomationRuleInput!) { result: updateAutomationRule(id: $id, input: $input) { message } }`,
    variables: { id: 'path.id', input: ruleVariables },
    envelope: 'success',
    response: successMessage,
  },
  {
    operationId: 'getAutomationRule',
    method: 'get',
    path: '/personalization/v1/{id}',
    summary: 'Get one automation rule',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [id('id', 'rule ID')],
    document: /* GraphQL */ `query GetAutomationRule($id: ID!) { result: automationRule(id: $id) { ${RULE} } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: { allOf: [ref('AutomationRule'), { type: 'object', properties: { success: { type: 'boolean' } } }] },
  },
  {
    operationId: 'deleteAutomationRule',
    method: 'delete',
    path: '/personalization/v1/automation-rule/{id}',
    summary: 'Delete one automation rule',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [id('id', 'rule ID')],
    document: /* GraphQL */ `mutation DeleteAutomationRule($id: ID!) { result: deleteAutomationRule(id: $id) { message } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: successMessage,
  },
];
