/**
 * The OpenAPI 3.0 document of the REST paths, derived from the route table: each route's parameters,
 * body (with an example), success answer, and the error answers its spec implies.
 */
import { componentSchemas, tagDescriptions } from './routes';
import { exampleOf } from './examples';
import { ref, type AuthCode, type JsonSchema, type RouteSpec } from './table';

const SECURITY_SCHEME: Record<AuthCode, string> = { C: 'clientId', D: 'developerKey', J: 'bearerJwt', S: 'superApiKey' };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid input: the message names the field',
  401: 'credentials missing or invalid',
  403: 'valid credentials that may not do this (roles, another site’s token)',
  404: 'not found, or another site’s',
  409: 'conflicts with what exists (a duplicate, a state that forbids the change)',
  413: 'the body is larger than the route reads',
  415: 'the body is not sent as application/json',
  422: 'the document the request names is not one the operation reads, or holds more than it takes',
  429: 'rate limited: retry after the seconds in Retry-After',
  500: 'server error, with a request id to quote',
  502: 'the streaming provider or video platform failed, answered nonsense or did not answer in time',
  503: 'the database is unavailable for a moment: retry',
};

/**
 * The error statuses a route can answer, derived from its spec: any input (or, for a mutation, the
 * site's state) can be invalid (400), and an input can name what does not exist (404, as can a route
 * that reads what the site may not have yet: notFoundWhen); credentials can be missing (401) or not
 * enough (403); a body can be too large (413) or not JSON (415); a mutation can conflict with what
 * exists (409: a duplicate, a code already used); rate-limited operations answer 429 and those that
 * call out 502; one that reads a document from elsewhere can find it too large (413) or not what it reads
 * (422); every route can fail (500) or find the database away (503).
 */
export function errorStatusesOf(route: RouteSpec): number[] {
  const statuses = new Set<number>([500, 503]);
  const takesInput = Boolean(route.body || route.rawBody || route.params?.length || route.projection);
  const mutation = /^\s*mutation\b/.test(route.document);
  // A mutation can also find the site's state unfit for it (400: a setting it needs is missing).
  if (takesInput || mutation) statuses.add(400);
  if (takesInput || route.notFoundWhen) statuses.add(404);
  if (route.auth.length || route.params?.some((param) => param.credential)) [401, 403].forEach((status) => statuses.add(status));
  if (route.body || route.rawBody) statuses.add(413);
  if (route.body) statuses.add(415);
  if (mutation) statuses.add(409);
  if (route.rateLimited) statuses.add(429);
  if (route.callsOut) statuses.add(502);
  if (route.readsDocument) [413, 422].forEach((status) => statuses.add(status));
  return [...statuses].sort((a, b) => a - b);
}

/** What an error status of a route means, with what the route's spec says of it (notFoundWhen, readsDocument). */
function errorDescription(route: RouteSpec, status: number): string {
  if (status === 404 && route.notFoundWhen) return `${ERROR_DESCRIPTIONS[status]}; ${route.notFoundWhen}`;
  if (status === 413 && route.readsDocument) return `the body is larger than the route reads, or ${route.readsDocument} is larger than the operation reads`;
  if (status === 422 && route.readsDocument) return `${route.readsDocument} is not one the operation reads, or holds more than it takes`;
  return ERROR_DESCRIPTIONS[status];
}

/**
 * JSON Schema to OpenAPI 3.0.3, which forbids type arrays: ["string","null"] becomes { type: string,
 * nullable: true }.
 */
function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      const types = (value as unknown[]).filter((type) => type !== 'null');
      if (types.length === 1) result.type = types[0];
      else result.anyOf = types.map((type) => ({ type }));
      if (types.length !== value.length) result.nullable = true;
    } else if (key === 'oneOf' && Array.isArray(value) && value.some((item) => (item as { type?: string }).type === 'null')) {
      // `nullable` only counts beside a `type`: the one of the alternatives, looked up through its $ref.
      const rest = value.filter((item) => (item as { type?: string }).type !== 'null');
      const types = new Set(rest.map((item) => typeOf(item as JsonSchema)));
      const type = types.size === 1 ? [...types][0] : undefined;
      if (rest.length === 1) Object.assign(result, { allOf: rest.map(toOpenApiSchema), nullable: true }, type && { type });
      else Object.assign(result, { oneOf: rest.map(toOpenApiSchema), nullable: true }, type && { type });
    } else {
      result[key] = typeof value === 'object' ? toOpenApiSchema(value) : value;
    }
  }
  // A free-form object (contents, variables, data) says so, or generators type it as an empty object.
  if (result.type === 'object' && !result.properties && result.additionalProperties === undefined) result.additionalProperties = true;
  return result;
}

function typeOf(schema: JsonSchema): string | undefined {
  const component = componentOf(schema);
  if (component) return typeOf(component);
  return typeof schema.type === 'string' ? schema.type : undefined;
}

/**
 * The project is proprietary (package.json `UNLICENSED`): no licence to use, copy or distribute it is
 * granted. The URL is npm's definition of that word, the only honest link there is.
 */
const LICENSE = { name: 'UNLICENSED (proprietary)', url: 'https://docs.npmjs.com/cli/v11/configuring-npm/package-json#license' };

const componentOf = (schema: JsonSchema): JsonSchema | undefined =>
  typeof schema.$ref === 'string' ? componentSchemas[schema.$ref.replace('#/components/schemas/', '')] : undefined;

/** The schema with no property required, deeply: what a projection (`{ field: 1 }`) may leave of it. */
function partialOf(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((item) => partialOf(item, depth));
  if (!schema || typeof schema !== 'object' || depth > 8) return schema;
  const component = componentOf(schema as JsonSchema);
  if (component) return partialOf(component, depth + 1);
  const { required: _required, ...rest } = schema as JsonSchema;
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, typeof value === 'object' ? partialOf(value, depth + 1) : value]));
}

/** The success body of a route: with a projection, the projected items keep only what was asked. */
function responseSchemaOf(route: RouteSpec): JsonSchema {
  if (!route.projection) return route.response;
  const partial = (list: JsonSchema): JsonSchema => ({ ...list, items: partialOf(list.items), description: 'fields as the projection asks (all without one)' });
  const response = componentOf(route.response) ?? route.response;
  const at = route.projection.at;
  if (!at) return response.type === 'array' ? partial(response) : (partialOf(response) as JsonSchema);
  // Keyed by ID (keyBy), the projected items are the answer's other properties.
  if (route.keyBy?.at === at) return { ...response, additionalProperties: partialOf(response.additionalProperties) };
  const properties = response.properties as Record<string, JsonSchema>;
  return { ...response, properties: { ...properties, [at]: partial(componentOf(properties[at]) ?? properties[at]) } };
}

/** The components the paths refer to, directly or through other components (a projection inlines its own). */
function usedComponents(paths: unknown): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        const name = inner.replace('#/components/schemas/', '');
        if (!used.has(name)) {
          used.add(name);
          visit(componentSchemas[name]);
        }
      } else visit(inner);
    }
  };
  visit(paths);
  return Object.fromEntries(Object.entries(componentSchemas).filter(([name]) => used.has(name)));
}

/** The document the route table describes (served at GET /openapi.json). */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const content = Object.fromEntries(
      (route.file?.contentTypes ?? ['application/json']).map((type) => [
        type,
        { schema: type === 'application/json' ? toOpenApiSchema(responseSchemaOf(route)) : { type: 'string', description: `the ${type} file` } },
      ]),
    );
    const responses: Record<string, unknown> = { [String(route.status ?? 200)]: { description: 'success', content } };
    if (route.acceptedWhen) {
      const conditions = route.acceptedWhen.map((condition) => (condition.includes('=') ? condition.replace('=', ' is ') : `${condition} is set`));
      responses['202'] = { description: `taken, but it waits: ${conditions.join(' or ')}`, content };
    }
    if (route.cache) {
      const success = responses[String(route.status ?? 200)] as Record<string, unknown>;
      success.headers = {
        ETag: { description: 'the answer’s entity tag; send it back in If-None-Match', schema: { type: 'string' } },
        'Cache-Control': {
          description: route.cache === 'shared' ? 'public, max-age=1 (the same for every viewer of the site)' : 'private, no-cache',
          schema: { type: 'string' },
        },
      };
      responses['304'] = { description: 'not modified: If-None-Match named the current answer' };
    }
    for (const status of errorStatusesOf(route)) {
      responses[String(status)] = {
        description: errorDescription(route, status),
        ...(status === 429 && { headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } } }),
        content: { 'application/json': { schema: ref('ErrorBody') } },
      };
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
      (operation.parameters as unknown[]).push({
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'an ETag of an earlier answer: 304 while it is still the answer',
        schema: { type: 'string' },
      });
    }
    if (route.body) {
      operation.requestBody = {
        required: Boolean(route.body.required),
        content: { 'application/json': { schema: toOpenApiSchema(route.body.schema), example: exampleOf(route.body.schema, componentSchemas) } },
      };
    }
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'stagegraph REST API',
      version: '2.0.0',
      description: [
        'The documented REST paths of the platform; each is served by translating it into a GraphQL operation on the supergraph.',
        '',
        "Credentials are the seeds' Auth codes: C `x-service-client-id` (the site ID) scopes every call, another site's",
        'resource is 404; D `x-service-developer-key`; J `Authorization: Bearer <JWT>` from `POST /auth/v2/login`. Writes need',
        'D or J. Errors answer `{"success": false, "message"}`: 400 names the field, 401 missing or wrong credentials,',
        '403 not allowed, 404, 409, 413, 415, 429 with Retry-After, 500 with a request id.',
      ].join('\n'),
      license: LICENSE,
    },
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name, description: tagDescriptions[name] })),
    paths,
    components: {
      schemas: toOpenApiSchema(usedComponents(paths)),
      securitySchemes: {
        clientId: { type: 'apiKey', in: 'header', name: 'x-service-client-id', description: 'C: the site ID (Client ID)' },
        developerKey: { type: 'apiKey', in: 'header', name: 'x-service-developer-key', description: 'D: developer API key of the site' },
        bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'J: JWT from sign-in' },
        superApiKey: { type: 'apiKey', in: 'header', name: 'super-api-key', description: 'super API key (a JWT from `cli superkey create`), insights only' },
      },
    },
  };
}
