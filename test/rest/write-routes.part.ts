/**
 * Every write route of the route table, walked as an attacker would: each property of its body `null`
 * (one at a time, then all at once) and each typed property sent as another type. Each answer is 400 naming
 * the field, and the database is as it was. Derived from the table, so a route added later is walked too.
 */
import { routes } from '../../rest-bridge/server';
import { componentSchemas } from '../../rest-bridge/routes';
import { exampleOf } from '../../rest-bridge/examples';
import { READ_ONLY, type JsonSchema, type RouteSpec } from '../../rest-bridge/table';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { databaseSnapshot } from '../helpers/snapshot';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let headers: Record<string, string>;
beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
  const token = await site.token([{ scope: '*', write: true, pageId: [] }]);
  headers = { ...site.admin, authorization: `Bearer ${token}` };
});
afterAll(stopAll);

const SITE_FIELDS = new Set(['siteId', 'site_id']);

const resolve = (schema: JsonSchema): JsonSchema =>
  typeof schema.$ref === 'string' ? resolve(componentSchemas[schema.$ref.replace('#/components/schemas/', '')]) : schema;

/** The JSON types a schema admits; null when it names none (any value). */
function typesOf(schema: JsonSchema): Set<string> | null {
  const resolved = resolve(schema);
  const choices = (resolved.oneOf ?? resolved.anyOf) as JsonSchema[] | undefined;
  if (choices) {
    const all = choices.map(typesOf);
    return all.some((types) => types === null) ? null : new Set(all.flatMap((types) => [...(types as Set<string>)]));
  }
  if (resolved.type === undefined) return null;
  const types = new Set(Array.isArray(resolved.type) ? (resolved.type as string[]) : [resolved.type as string]);
  if (types.has('integer')) types.add('number');
  if (resolved.nullable === true) types.add('null');
  return types;
}

/** A value of none of the given types. */
function wrongValue(types: Set<string>): unknown {
  const candidates: [string, unknown][] = [
    ['number', 7],
    ['string', 'seven'],
    ['boolean', true],
    ['array', ['seven']],
    ['object', { seven: 7 }],
  ];
  return candidates.find(([type]) => !types.has(type))?.[1];
}

const writeRoutes = routes.filter((route) => route.method !== 'get' && Object.keys((route.body?.schema.properties as object | undefined) ?? {}).length > 0);

/** The path with sample IDs, and the required query and header parameters (partner credentials made up). */
function requestOf(route: RouteSpec): { path: string; headers: Record<string, string> } {
  let path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => `sample-${name}`);
  const sent = { ...headers };
  const query = new URLSearchParams();
  for (const param of route.params ?? []) {
    if (param.in === 'header' && param.credential) sent[param.name.toLowerCase()] = param.name.toLowerCase() === 'authorization' ? 'Bearer made-up' : 'made-up';
    else if (param.required && param.in === 'header') sent[param.name.toLowerCase()] = String(exampleOf(param.schema, componentSchemas));
    else if (param.required && param.in === 'query') query.set(param.name, String(exampleOf(param.schema, componentSchemas)));
  }
  if (query.size) path += `?${query.toString()}`;
  return { path, headers: sent };
}

/** A body the schema takes, its site fields the caller's site. */
function validBody(route: RouteSpec): Record<string, unknown> {
  const body = exampleOf(route.body?.schema as JsonSchema, componentSchemas) as Record<string, unknown>;
  for (const field of SITE_FIELDS) if (Object.hasOwn(body, field)) body[field] = site.siteId;
  return body;
}

describe.each(writeRoutes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s', (_name, route) => {
  const properties = route.body?.schema.properties as Record<string, JsonSchema>;
  // A route's own read-only fields are ignored whatever they hold (docs/api.md, Errors); `_id`, `created`,
  // `modified` and the site fields are checked wherever they are sent.
  const checked = new Set<string>([...READ_ONLY, ...SITE_FIELDS]);
  const ignored = new Set((route.body?.readOnly ?? []).filter((field) => !checked.has(field)));
  const walked = Object.keys(properties).filter((name) => !ignored.has(name));
  const refusingNull = walked.filter((name) => !(typesOf(properties[name])?.has('null') ?? true));
  const typed = walked.filter((name) => typesOf(properties[name]) !== null);

  async function expectRefused(body: Record<string, unknown>, fields: string[]): Promise<void> {
    const request = requestOf(route);
    const before = await databaseSnapshot(stack);
    const reply = await rest(stack, route.method.toUpperCase(), request.path, { headers: request.headers, body });
    const named = fields.find((field) => new RegExp(`\\bbody\\.${field}\\b`).test(String(reply.body?.message)));
    expect({ body, status: reply.status, success: reply.body?.success, named: Boolean(named) }).toEqual({ body, status: 400, success: false, named: true });
    expect(await databaseSnapshot(stack)).toEqual(before);
  }

  if (refusingNull.length > 0) {
    it('refuses every property null at once, naming one', async () => {
      await expectRefused(Object.fromEntries(Object.keys(properties).map((name) => [name, null])), refusingNull);
    });
    it.each(refusingNull)('refuses %s: null', async (name) => {
      await expectRefused({ ...validBody(route), [name]: null }, [name]);
    });
  }
  if (typed.length > 0) {
    it.each(typed)('refuses %s of the wrong type', async (name) => {
      await expectRefused({ ...validBody(route), [name]: wrongValue(typesOf(properties[name]) as Set<string>) }, [name]);
    });
  }
});

it('walks every write route that takes a body with properties', () => {
  // A route added without a body schema would not be walked: each write route either declares its body or none.
  const undeclared = routes.filter((route) => route.method !== 'get' && route.body && !route.rawBody && !route.body.schema.properties);
  expect(undeclared.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  expect(writeRoutes.length).toBeGreaterThan(50);
});

describe('GraphQL update mutations refuse null for a field their create input requires', () => {
  it.each([
    [
      'updateOverlay',
      'UpdateOverlayInput',
      { name: null },
      'name',
      async () =>
        (await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'Bug', type: 'instance', contents: {}, duration: 5 } })).body._id,
    ],
    [
      'updatePoll',
      'PollUpdateInput',
      { question: null },
      'question',
      async () =>
        (
          await rest(stack, 'POST', '/poll/v3/', {
            headers: site.admin,
            body: { type: 'poll', name: 'Mood', question: 'How?', answers: [{ text: 'A' }, { text: 'B' }] },
          })
        ).body._id,
    ],
    [
      'updateEntitlement',
      'UpdateEntitlementInput',
      { prices: null },
      'prices',
      async () =>
        (
          await rest(stack, 'POST', '/entitlement/v1/', {
            headers: site.admin,
            body: { sku: 'gql-null', name: 'Pass', prices: [{ currency: 'USD', default: true, value: 5 }] },
          })
        ).body._id,
    ],
  ] as const)('%s', async (mutation, inputType, input, field, create) => {
    const id = (await create()) as string;
    const before = await databaseSnapshot(stack);
    const reply = await graphql(
      stack,
      `mutation Update($id: ID!, $input: ${inputType}!) { ${mutation}(id: $id, input: $input) { __typename } }`,
      { id, input },
      site.admin,
    );
    expect(reply.body.errors?.[0]).toMatchObject({ message: expect.stringContaining(`${field} must not be null`), extensions: { code: 'BAD_USER_INPUT' } });
    expect(await databaseSnapshot(stack)).toEqual(before);
  });
});
