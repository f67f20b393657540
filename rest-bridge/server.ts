/** The REST bridge, built and not listening: the router and OpenAPI document derived from the route table. */
import type { RequestHandler } from 'express';
import type { EventBus } from '../shared/bus';
import type { Logger } from '../shared/logger';
import { buildOpenApiDocument } from './openapi';
import { createRestRouter, type Executor } from './router';
import { routes } from './routes';

export interface RestBridge {
  /** Answers the route table's paths; passes every other request on. */
  router: RequestHandler;
  openapi: Record<string, unknown>;
}

export function createRestBridge(options: { executor: Executor; logger: Logger; bodyLimitBytes: number; bus?: EventBus }): RestBridge {
  return {
    router: createRestRouter({ routes, ...options }),
    openapi: buildOpenApiDocument(routes),
  };
}

export { routes };
