/** JSON Schemas of the REST shapes (seed field names: _id, created/modified in epoch milliseconds). */
import type { JsonSchema } from './table';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

const epochMs = { type: 'number', description: 'Unix time in milliseconds' };

export const componentSchemas: Record<string, JsonSchema> = {
  ErrorBody: {
    type: 'object',
    required: ['success', 'message'],
    properties: { success: { type: 'boolean', enum: [false] }, message: { type: 'string' }, requestId: { type: 'string' } },
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
    },
  },
  ClearBroadcastsResult: {
    type: 'object',
    required: ['success', 'cleared', 'message'],
    properties: { success: { type: 'boolean' }, cleared: { type: 'integer' }, message: { type: 'string' } },
  },
};

// ---------------------------------------------------------------- request bodies

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

export const createOverlayBody: JsonSchema = {
  type: 'object',
  required: ['name', 'type', 'contents', 'duration'],
  additionalProperties: false,
  properties: overlayFields,
};

export const updateOverlayBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { _id: { type: 'string' }, ...overlayFields },
};

export const broadcastBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    duration: { type: 'integer', minimum: 1, maximum: 86400, description: 'seconds; default: the overlay duration' },
    channelId: { type: 'string', minLength: 1, description: 'default: every channel of the site' },
    targetId: { type: 'string', minLength: 1, description: 'the sports workflow name of channelId' },
    variables: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
  },
};
