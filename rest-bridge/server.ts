/** The REST bridge, built and not listening: the router and OpenAPI document derived from the route table. */
import type { RequestHandler } from 'express';
import type { EventBus } from '../shared/bus';
import type { Logger } from '../shared/logger';
import { buildOpenApiDocument } from './openapi';
import { createQuickDoor, type QuickDoor } from './quickRoutes';
import { createRestRouter, type Executor } from './router';
import { routes } from './routes';

export interface RestBridge {
  /** Answers the route table's paths; passes every other request on. */
  router: RequestHandler;
  /** The quick routes' answers before express (quickRoutes.ts); null when the executor offers none. */
  quickDoor: QuickDoor | null;
  openapi: Record<string, unknown>;
}

export function createRestBridge(options: { executor: Executor; logger: Logger; bodyLimitBytes: number; bus?: EventBus }): RestBridge {
  return {
    router: createRestRouter({ routes, ...options }),
    quickDoor: createQuickDoor(routes, options.executor),
    openapi: buildOpenApiDocument(routes),
  };
}

export { routes };
