/** GET /openapi.json is a valid OpenAPI 3.0 document (checked by swagger-parser) covering every route of the table. */
import SwaggerParser from '@apidevtools/swagger-parser';
import { errorStatusesOf } from '../../rest-bridge/openapi';
import { routes } from '../../rest-bridge/server';
import { startTestStack, stopAll } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(stopAll);

it('is a valid OpenAPI 3.0 document, version 2.0.0, with every route, parameter, body and security scheme', async () => {
  const reply = await rest(stack, 'GET', '/openapi.json');
  expect(reply.status).toBe(200);
  const document = reply.body;
  expect(document.openapi).toMatch(/^3\.0\.\d$/);
  expect(document.info.version).toBe('2.0.0');

  const validated = (await SwaggerParser.validate(structuredClone(document))) as {
    paths: Record<string, Record<string, any>>;
    components: { schemas: Record<string, unknown> };
  };
  expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['bearerJwt', 'clientId', 'developerKey', 'superApiKey']);

  for (const route of routes) {
    const operation = validated.paths[route.path]?.[route.method];
    expect(operation).toBeDefined();
    expect(operation.operationId).toBe(route.operationId);
    const names = (operation.parameters ?? []).map((param: { name: string }) => param.name);
    for (const param of route.params ?? []) expect(names).toContain(param.name);
    for (const pathParam of route.path.match(/\{(\w+)\}/g) ?? []) expect(names).toContain(pathParam.slice(1, -1));
    expect(Boolean(operation.requestBody)).toBe(Boolean(route.body));
    expect(operation.responses[String(route.status ?? 200)]).toBeDefined();
    for (const status of errorStatusesOf(route)) {
      expect(operation.responses[String(status)].content['application/json'].schema).toEqual(validated.components.schemas.ErrorBody);
    }
    if (route.body) expect(operation.requestBody.content['application/json'].example).toBeDefined();
    expect(operation.security.length).toBe(route.auth.length);
  }
});
