/** The OpenAPI 3.0 document of the REST paths, derived from the route table. */
import { componentSchemas } from './routes';
import { ref, type AuthCode, type RouteSpec } from './table';

const SECURITY_SCHEME: Record<AuthCode, string> = { C: 'clientId', D: 'developerKey', J: 'bearerJwt', S: 'superApiKey' };

const ERROR_RESPONSES = {
  '400': 'invalid input (the message names the field)',
  '401': 'missing or invalid credentials',
  '403': 'not allowed',
  '404': 'not found, or another site’s',
  '429': 'rate limited (see Retry-After)',
  '500': 'server error (with a request id)',
};

/** OpenAPI 3.0.3 forbids type arrays; ["string","null"] becomes { type: string, nullable: true }. */
function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((type) => type !== 'null');
      if (types.length === 1) result.type = types[0];
      else result.anyOf = types.map((type) => ({ type }));
      if (types.length !== value.length) result.nullable = true;
    } else if (key === 'oneOf' && Array.isArray(value) && value.some((item) => (item as { type?: string }).type === 'null')) {
      const rest = value.filter((item) => (item as { type?: string }).type !== 'null');
      if (rest.length === 1) Object.assign(result, { allOf: rest.map(toOpenApiSchema), nullable: true });
      else Object.assign(result, { oneOf: rest.map(toOpenApiSchema), nullable: true });
    } else {
      result[key] = typeof value === 'object' ? toOpenApiSchema(value) : value;
    }
  }
  return result;
}

export function buildOpenApiDocument(routes: readonly RouteSpec[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const content = Object.fromEntries(
      (route.file?.contentTypes ?? ['application/json']).map((type) => [
        type,
        { schema: type === 'application/json' ? toOpenApiSchema(route.response) : { type: 'string', description: `the ${type} file` } },
      ]),
    );
    const responses: Record<string, unknown> = { [String(route.status ?? 200)]: { description: 'success', content } };
    if (route.cache) {
      const success = responses[String(route.status ?? 200)] as Record<string, unknown>;
      success.headers = {
        ETag: { description: 'the answer’s entity tag; send it back in If-None-Match', schema: { type: 'string' } },
        'Cache-Control': { description: route.cache === 'shared' ? 'public, max-age=1 (the same for every viewer of the site)' : 'private, no-cache', schema: { type: 'string' } },
      };
      responses['304'] = { description: 'not modified: If-None-Match named the current answer' };
    }
    for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
      responses[status] = { description, content: { 'application/json': { schema: ref('ErrorBody') } } };
    }
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: route.auth.map((codes) => Object.fromEntries(codes.map((code) => [SECURITY_SCHEME[code], []]))),
      parameters: (route.params ?? []).map((param) => ({
        name: param.name,
        in: param.in,
        required: param.in === 'path' ? true : Boolean(param.required || param.credential),
        description: param.description,
        // A JSON-encoded parameter (an object or array in one query value) is described by its media type.
        ...(param.commaSeparated
          ? { schema: toOpenApiSchema(param.schema), style: 'form', explode: false }
          : param.schema.type === 'object' || param.schema.type === 'array'
            ? { content: { 'application/json': { schema: toOpenApiSchema(param.schema) } } }
            : { schema: toOpenApiSchema(param.schema) }),
      })),
      responses,
    };
    if (route.cache) {
      (operation.parameters as unknown[]).push({ name: 'If-None-Match', in: 'header', required: false, description: 'an ETag of an earlier answer: 304 while it is still the answer', schema: { type: 'string' } });
    }
    if (route.body) {
      operation.requestBody = {
        required: Boolean(route.body.required),
        content: { 'application/json': { schema: toOpenApiSchema(route.body.schema) } },
      };
    }
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'stagegraph REST API',
      version: '2.0.0',
      description: 'The documented REST paths of the platform; each is served by translating it into a GraphQL operation on the supergraph.',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: toOpenApiSchema(componentSchemas),
      securitySchemes: {
        clientId: { type: 'apiKey', in: 'header', name: 'x-service-client-id', description: 'C: the site ID (Client ID)' },
        developerKey: { type: 'apiKey', in: 'header', name: 'x-service-developer-key', description: 'D: developer API key of the site' },
        bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'J: JWT from sign-in' },
        superApiKey: { type: 'apiKey', in: 'header', name: 'super-api-key', description: 'super API key (a JWT from `cli superkey create`), insights only' },
      },
    },
  };
}
