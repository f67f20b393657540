/**
 * THE route table: every REST path stagegraph serves, as data, one file per answering subgraph, and the
 * OpenAPI components those routes refer to.
 */
import type { JsonSchema, RouteSpec } from '../table';
import { communityRoutes, communitySchemas } from './community';
import { contentRoutes, contentSchemas } from './content';
import { integrationRoutes, integrationSchemas } from './integrations';
import { overlayRoutes, overlaySchemas } from './overlays';

export const routes: readonly RouteSpec[] = [...overlayRoutes, ...contentRoutes, ...communityRoutes, ...integrationRoutes];

export const componentSchemas: Record<string, JsonSchema> = {
  ErrorBody: {
    type: 'object',
    required: ['success', 'message'],
    properties: { success: { type: 'boolean', enum: [false] }, message: { type: 'string' }, requestId: { type: 'string' } },
  },
  ...overlaySchemas,
  ...contentSchemas,
  ...communitySchemas,
  ...integrationSchemas,
};
