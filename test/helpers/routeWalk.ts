/**
 * The walk of every REST route in the route table: credentials are required and errors keep the REST
 * shape. It takes a base URL, so the same walk runs against the one-process stack (test/rest/routes.part.ts) and
 * against the REST bridge running as a process of its own (test/operations/split-services.part.ts).
 */
import { routes } from '../../rest-bridge/server';
import { rest } from './http';

/** A route's path with every `{param}` filled by a sample value. */
export const concretePath = (path: string) => path.replace(/\{(\w+)\}/g, (_match, name: string) => `sample-${name}`);
const sampleBody = (route: (typeof routes)[number]) => (route.body ? {} : undefined);

/** Where the walk goes: read when the tests run (after beforeAll started the target). */
export interface RouteWalkTarget {
  /** The base URL serving the REST paths. */
  url: string;
  /** A site of that deployment (its ID alone must not be enough where a route asks for more). */
  siteId: string;
}

/** Declares, for every route of the table, the tests of the walk against `target()`. */
export function walkRoutes(target: () => RouteWalkTarget): void {
  describe.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s', (_name, route) => {
    it('answers 401 with { success: false, message } without credentials', async () => {
      const reply = await rest(target(), route.method.toUpperCase(), concretePath(route.path), { body: sampleBody(route) });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ success: false, message: expect.any(String) });
    });

    if (route.auth.every((codes) => codes.length > 1)) {
      it('answers 401 with the site ID alone', async () => {
        const reply = await rest(target(), route.method.toUpperCase(), concretePath(route.path), {
          headers: { 'x-service-client-id': target().siteId },
          body: sampleBody(route),
        });
        expect(reply.status).toBe(401);
        expect(reply.body.success).toBe(false);
      });
    }
  });
}
