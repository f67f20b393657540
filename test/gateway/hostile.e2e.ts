/**
 * Every REST route tried as a hostile client would, driven by GET /openapi.json so a new route is
 * attacked without anyone writing a test for it: missing, garbage, forged, expired and other-site
 * credentials; every body property with wrong types, lone surrogates, NUL, deep nesting and extreme
 * numbers (raw JSON text), hostile strings; hostile query and path values. Every answer is 4xx with
 * { success: false, message }, never 5xx, and input that must be refused writes nothing (row counts of
 * every table before and after). The slowest event-loop block seen while the suite runs is printed.
 */
import jwt from 'jsonwebtoken';
import { createHmac } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Stack } from '../../stack';
import { Prisma } from '../../shared/db/generated/sqlite';
import { signSuperApiKey } from '../../shared/auth/credentials';
import { newId } from '../../shared/ids';
import { provisionSite } from '../../subgraphs/community/sites';
import { rest } from '../helpers/http';
import { startTestStack, stopAll } from '../helpers/stack';
import { connectClient } from '../helpers/viewer';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  format?: string;
  $ref?: string;
};
interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema; content?: unknown }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
}
interface Route {
  method: string;
  path: string;
  op: Operation;
}
interface Attack {
  route: Route;
  what: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The status the answer must have; otherwise any 4xx. */
  status?: number;
  /** Text the message must contain (the field it names). */
  names?: string;
}

const CONCURRENCY = 12;
/**
 * The heavy phases send thousands of requests (a number that grows with the route table): alone one takes about
 * 9 s, and in CI, beside both suites, lint and typecheck on two cores, over 120 s (2026-12-07, 205 routes). The
 * limit is for a hang, not for the machine's load.
 */
const PHASE_TIMEOUT_MS = 360_000;
const ID = '0123456789abcdef01234567';
const PASSWORD = 'a long enough password';

let stack: Stack;
let routes: Route[];
const headersOf: Record<string, Record<string, string>> = {};
let siteId: string;
let otherSiteId: string;
let adminJwt: string;
let accountId: string;
const delay = monitorEventLoopDelay({ resolution: 5 });
let requests = 0;
const statuses: Record<number, number> = {};
/** The slowest event-loop block of each test, and of the whole suite. */
const blocks: Record<string, number> = {};
let slowest = 0;

beforeAll(async () => {
  stack = await startTestStack();
  const db = stack.database.prisma;
  const site = await provisionSite(db, { name: 'Hostile', admin: { email: 'hostile-admin@example.test', password: PASSWORD } });
  const other = await provisionSite(db, { name: 'Other', admin: { email: 'other-admin@example.test', password: PASSWORD } });
  siteId = site.siteId;
  otherSiteId = other.siteId;
  accountId = site.adminAccountId as string;
  const signIn = async (id: string, email: string) =>
    (await rest(stack, 'POST', '/auth/v2/login', { headers: { 'x-service-client-id': id }, body: { email, password: PASSWORD } })).body.jwt as string;
  adminJwt = await signIn(siteId, 'hostile-admin@example.test');
  const otherJwt = await signIn(otherSiteId, 'other-admin@example.test');
  const superKeyId = newId();
  await db.superApiKey.create({ data: { id: superKeyId, name: 'hostile', createdAt: new Date() } });
  const claims = { site: siteId, roles: [{ pageId: [], scope: '*', write: true }] };
  headersOf.C = { 'x-service-client-id': siteId };
  headersOf.D = { 'x-service-developer-key': site.developerKey };
  headersOf.J = { authorization: `Bearer ${adminJwt}` };
  headersOf.S = { 'super-api-key': signSuperApiKey(superKeyId, stack.config.jwtSecret) };
  headersOf.garbageBearer = { 'x-service-client-id': siteId, authorization: 'Bearer garbage' };
  headersOf.garbageKey = { 'x-service-client-id': siteId, 'x-service-developer-key': 'sgk_garbage' };
  headersOf.forged = {
    'x-service-client-id': siteId,
    authorization: `Bearer ${jwt.sign(claims, 'another-secret-0123456789abcdef', { subject: accountId, issuer: 'stagegraph', expiresIn: 600 })}`,
  };
  headersOf.expired = {
    'x-service-client-id': siteId,
    authorization: `Bearer ${jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }, stack.config.jwtSecret, { subject: accountId, issuer: 'stagegraph' })}`,
  };
  headersOf.otherKey = { 'x-service-client-id': siteId, 'x-service-developer-key': other.developerKey };
  headersOf.otherJwt = { 'x-service-client-id': siteId, authorization: `Bearer ${otherJwt}` };
  headersOf.garbageSuper = { 'x-service-client-id': siteId, 'super-api-key': 'garbage' };

  const document = (await rest(stack, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  routes = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  delay.enable();
});

beforeEach(() => delay.reset());
afterEach(() => {
  const ms = delay.max / 1e6;
  blocks[expect.getState().currentTestName ?? 'test'] = Math.round(ms * 10) / 10;
  slowest = Math.max(slowest, ms);
});

afterAll(async () => {
  delay.disable();
  console.log(
    `hostile suite: ${routes?.length ?? 0} routes, ${requests} requests, slowest event-loop block ${slowest.toFixed(1)} ms; ` +
      `statuses ${JSON.stringify(statuses)}; slowest block per test ${JSON.stringify(blocks)}`,
  );
  await stopAll();
});

/** The path with every path parameter filled (a well-formed ID unless given). */
function pathOf(route: Route, values: Record<string, string> = {}): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => values[name] ?? ID);
}

/** Headers meeting the route's first Auth alternative, plus garbage partner credentials it reads itself. */
function credentialsOf(route: Route): Record<string, string> {
  const scheme: Record<string, string> = { clientId: 'C', developerKey: 'D', bearerJwt: 'J', superApiKey: 'S' };
  const [first] = route.op.security;
  const headers: Record<string, string> = { ...headersOf.C };
  for (const name of Object.keys(first ?? {})) Object.assign(headers, headersOf[scheme[name]]);
  for (const param of route.op.parameters.filter((parameter) => parameter.in === 'header' && parameter.required)) {
    headers[param.name.toLowerCase()] ??= param.name.toLowerCase() === 'authorization' ? 'Bearer 00000000-0000-4000-8000-000000000000' : '00';
  }
  return headers;
}

/** A sample value of a schema: what a plausible client sends (URLs stay on loopback, port 9). */
function sample(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 4) return 'x';
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string') return schema.format === 'uri' ? 'http://127.0.0.1:9/x' : schema.format === 'email' ? 'someone@example.test' : 'x';
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object' || schema.properties) {
    return Object.fromEntries((schema.required ?? []).map((name) => [name, sample(schema.properties?.[name], depth + 1)]));
  }
  return 'x';
}

/** A value of another type than the schema asks for, or undefined when the schema takes any type. */
function wrongType(schema: Schema): unknown {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return undefined;
  if (!types.includes('object')) return { not: 'this' };
  if (!types.includes('string')) return 'not this';
  return undefined;
}

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** Values no route may accept, as raw JSON text: each must be 400 naming the field. */
const REFUSED: [string, string][] = [
  ['a lone surrogate', '"\\ud800"'],
  ['a lone low surrogate in text', '"ab\\udc00cd"'],
  ['a NUL character', '"a\\u0000b"'],
  ['nesting 300 levels deep', deep(300)],
  ['2^53 + 1', '9007199254740993'],
  ['1e400', '1e400'],
  ['-1e400', '-1e400'],
];
const HOSTILE_STRINGS = [
  "' OR '1'='1' --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '{{7*7}}${7*7}',
  '\u202egnp.exe',
  '🎉'.repeat(500),
  'x'.repeat(20_000),
  '{"$gt": ""}',
];
const HOSTILE_PARAMS = [
  '%ED%A0%80',
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  "'%20OR%201%3D1--",
  'x'.repeat(5000),
  '9007199254740993',
  '1e400',
  '-1',
  '%7B%22%24ne%22%3Anull%7D',
];
const HOSTILE_JSON_PARAMS = ['["\\ud800"]', '{"a":"\\ud800"}', deep(300), '[9007199254740993]', '{"a":1e400}', '{"$where":"sleep(1000)"}'];

async function send(attack: Attack) {
  requests += 1;
  const response = await fetch(`${stack.url}${attack.path}`, {
    method: attack.route.method,
    headers: { ...attack.headers, ...(attack.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: attack.body,
  });
  statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text: the check below reports it
  }
  return { status: response.status, body };
}

/** Runs the attacks with bounded concurrency; answers the ones whose reply broke the rules. */
async function run(attacks: Attack[]): Promise<string[]> {
  const broken: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < attacks.length) {
      const attack = attacks[next++];
      const reply = await send(attack);
      const message = (reply.body as { message?: unknown })?.message;
      const shaped = (reply.body as { success?: unknown })?.success === false && typeof message === 'string' && message.length > 0;
      const statusOk = attack.status ? reply.status === attack.status : reply.status >= 400 && reply.status < 500;
      const named = !attack.names || (typeof message === 'string' && message.includes(attack.names));
      if (!statusOk || !shaped || !named) {
        broken.push(`${attack.route.method} ${attack.route.path} [${attack.what}] → ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return broken;
}

/** Rows of every table, to prove refused input wrote nothing. */
async function rowCounts(): Promise<Record<string, number>> {
  const db = stack.database.prisma as unknown as Record<string, { count(): Promise<number> }>;
  const names = Object.values(Prisma.ModelName).map((name) => name.charAt(0).toLowerCase() + name.slice(1));
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await db[name].count()] as const)));
}

it('reads the routes from /openapi.json', () => {
  expect(routes.length).toBeGreaterThan(150);
});

it(
  'refuses missing, garbage, forged, expired and other-site credentials on every route with 401',
  async () => {
    const attacks: Attack[] = routes.flatMap((route) => {
      const path = pathOf(route);
      const partner = route.op.security.length === 0;
      const cases: [string, Record<string, string>][] = [
        ['no credentials', {}],
        ['a garbage Bearer', headersOf.garbageBearer],
        ['a garbage developer key', headersOf.garbageKey],
        ['a JWT signed with another secret', headersOf.forged],
        ['an expired JWT', headersOf.expired],
        ['another site’s developer key', headersOf.otherKey],
        ['another site’s JWT', headersOf.otherJwt],
        ['an unknown site', { 'x-service-client-id': ID, ...headersOf.D }],
      ];
      // The super API key is a credential only where a route asks for it.
      if (route.op.security.some((alternative) => 'superApiKey' in alternative)) cases.push(['a garbage super API key', headersOf.garbageSuper]);
      // A partner route's Bearer is its contract's token, checked by the operation: any Bearer it refuses is 401 or 403.
      const bearerCase = (what: string) => /Bearer|JWT/.test(what);
      return cases.map(([what, headers]) => ({ route, what, path, headers, status: partner && bearerCase(what) ? undefined : 401 }));
    });
    expect(await run(attacks)).toEqual([]);
  },
  PHASE_TIMEOUT_MS,
);

it(
  'refuses every body property with a wrong type, a lone surrogate, NUL, deep nesting or an extreme number, naming it, and writes nothing',
  async () => {
    const before = await rowCounts();
    const attacks: Attack[] = [];
    for (const route of routes.filter((candidate) => candidate.op.requestBody)) {
      const schema = route.op.requestBody!.content['application/json'].schema;
      const headers = credentialsOf(route);
      const path = pathOf(route);
      const base = (sample(schema) ?? {}) as Record<string, unknown>;
      const withRaw = (name: string, raw: string) => {
        const text = JSON.stringify({ ...base, [name]: '\u0001placeholder' });
        return text.replace('"\\u0001placeholder"', raw);
      };
      attacks.push({ route, what: 'a body nested 300 levels deep', path, headers, body: deep(300), status: 400, names: 'body' });
      attacks.push({ route, what: 'a body that is not JSON', path, headers, body: '{"a":', status: 400 });
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        for (const [what, raw] of REFUSED)
          attacks.push({ route, what: `${name}: ${what}`, path, headers, body: withRaw(name, raw), status: 400, names: `body.${name}` });
        const wrong = wrongType(property);
        if (wrong !== undefined) attacks.push({ route, what: `${name}: a wrong type`, path, headers, body: JSON.stringify({ ...base, [name]: wrong }) });
      }
    }
    expect(attacks.length).toBeGreaterThan(500);
    expect(await run(attacks)).toEqual([]);
    expect(await rowCounts()).toEqual(before);
  },
  PHASE_TIMEOUT_MS,
);

it(
  'never answers a hostile string in a body property, or a hostile query or path value, with a 5xx',
  async () => {
    const attacks: Attack[] = [];
    for (const route of routes) {
      const headers = credentialsOf(route);
      const schema = route.op.requestBody?.content['application/json'].schema;
      // Every string property alone (nothing else sent): refused, or stored and read back as sent.
      for (const [name, property] of Object.entries(schema?.properties ?? {})) {
        const type = Array.isArray(property.type) ? property.type : [property.type];
        if (!type.includes('string')) continue;
        for (const value of HOSTILE_STRINGS)
          attacks.push({ route, what: `${name}: ${value.slice(0, 20)}`, path: pathOf(route), headers, body: JSON.stringify({ [name]: value }) });
      }
      for (const param of route.op.parameters.filter((parameter) => parameter.in === 'path')) {
        for (const value of HOSTILE_PARAMS)
          attacks.push({ route, what: `path ${param.name} = ${value.slice(0, 20)}`, path: pathOf(route, { [param.name]: value }), headers });
      }
      for (const param of route.op.parameters.filter((parameter) => parameter.in === 'query')) {
        const values = param.content ? [...HOSTILE_JSON_PARAMS.map(encodeURIComponent), ...HOSTILE_PARAMS] : HOSTILE_PARAMS;
        for (const value of values)
          attacks.push({ route, what: `query ${param.name} = ${value.slice(0, 20)}`, path: `${pathOf(route)}?${param.name}=${value}`, headers });
      }
    }
    const broken = await run(attacks.map((attack) => ({ ...attack, status: undefined })));
    // Hostile strings of the right type may be accepted (2xx): what must never happen is a 5xx or a shapeless error.
    expect(broken.filter((line) => !/ → 2\d\d /.test(line))).toEqual([]);
  },
  PHASE_TIMEOUT_MS,
);

describe('GraphQL over HTTP and graphql-ws: the same rules', () => {
  const post = async (body: string, headers: Record<string, string> = headersOf.C) => {
    requests += 1;
    const response = await fetch(`${stack.url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] } };
  };
  const admin = () => ({ ...headersOf.C, ...headersOf.D });
  const CREATE = 'mutation($input: OverlayInput!) { createOverlay(input: $input) { id } }';

  it('refuses surrogates, NUL, deep nesting and extreme numbers in variables with 400 naming the variable, and writes nothing', async () => {
    const before = await rowCounts();
    const input = (raw: string) =>
      `{"query":${JSON.stringify(CREATE)},"variables":{"input":{"name":${raw},"type":"instance","contents":{"text":"x"},"duration":5}}}`;
    for (const [, raw] of REFUSED) {
      const reply = await post(input(raw), admin());
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('variables.input.name'), extensions: { code: 'BAD_USER_INPUT' } });
    }
    const inline = await post(
      JSON.stringify({ query: 'mutation { createOverlay(input: { name: "\\ud800", type: "instance", contents: {}, duration: 5 }) { id } }' }),
      admin(),
    );
    expect(inline.status).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });

  it('refuses a present but invalid credential with 401, and list or admin reads with the site ID alone', async () => {
    for (const headers of [headersOf.garbageBearer, headersOf.forged, headersOf.expired, headersOf.otherJwt, headersOf.garbageKey]) {
      const reply = await post(JSON.stringify({ query: '{ site { id } }' }), headers);
      expect(reply.status).toBe(401);
      expect(reply.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    }
    for (const query of [
      '{ site { name } }',
      '{ panels { results { id } } }',
      '{ polls { id correctAnswerId } }',
      '{ quests { results { id } } }',
      '{ playlists { results { id } } }',
      '{ entitlements { id } }',
      '{ calendarFilters { title } }',
    ]) {
      const reply = await post(JSON.stringify({ query }));
      expect({ query, code: reply.body.errors?.[0]?.extensions?.code }).toEqual({ query, code: 'UNAUTHENTICATED' });
      expect(Object.values(reply.body.data ?? {}).every((value) => value === null)).toBe(true);
    }
    expect((await post(JSON.stringify({ query: '{ site { name } }' }), { ...headersOf.C, ...headersOf.J })).body).toEqual({
      data: { site: { name: expect.any(String) } },
    });
  });

  it('closes a graphql-ws connection whose connectionParams carry a garbage or forged Bearer', async () => {
    for (const authorization of [headersOf.garbageBearer.authorization, headersOf.forged.authorization]) {
      const code = await new Promise<number>((resolve) => {
        const client = connectClient(stack, { 'x-service-client-id': siteId, Authorization: authorization }, resolve);
        client.on('connected', () => resolve(0));
      });
      expect(code).toBe(4403);
    }
  });
});

describe('what is accepted can be read back', () => {
  const admin = () => ({ ...headersOf.C, ...headersOf.D });

  it('a signed data-provider update with ttl 2^53+1 (or beyond a GraphQL Int) is 400 and stores nothing; the listing still reads', async () => {
    const registered = await rest(stack, 'POST', '/dataprovider/v1/register', {
      headers: admin(),
      body: {
        name: `Scores ${Date.now()}`,
        description: 'scores',
        ownerName: 'Ada',
        ownerEmail: 'ada@example.test',
        realtime: true,
        ttl: 60,
        schema: { type: 'object' },
      },
    });
    expect(registered.status).toBe(201);
    const { dataProviderId, secret } = registered.body as { dataProviderId: string; secret: string };
    for (const ttl of ['9007199254740993', '1e400', '1099511627776']) {
      const text = `{"ttl":${ttl}}`;
      const signature = createHmac('sha256', secret).update(text).digest('hex');
      const reply = await rest(stack, 'PUT', `/dataprovider/v1/${dataProviderId}`, { headers: { 'X-DataProvider-Signature': signature }, rawBody: text });
      expect({ ttl, status: reply.status, message: reply.body.message }).toEqual({ ttl, status: 400, message: expect.stringContaining('ttl') });
    }
    const row = await stack.database.prisma.dataProvider.findUniqueOrThrow({ where: { id: dataProviderId } });
    expect(row.ttl).toBe(60);
    expect((await rest(stack, 'GET', '/dataprovider/v1/available', { headers: admin() })).status).toBe(200);
  });

  it('a purchase with amounts no charge can hold is 400 naming the field, and records nothing', async () => {
    const sku = await rest(stack, 'POST', '/entitlement/v1/', {
      headers: admin(),
      body: { sku: `big-${Date.now()}`, name: 'Big', prices: [{ currency: 'USD', value: 5, default: true }] },
    });
    const before = await stack.database.prisma.charge.count();
    for (const [field, raw] of [
      ['serviceCharge', '4000000000000000'],
      ['tax', '1e400'],
      ['serviceCharge', '9007199254740993'],
    ]) {
      const reply = await rest(stack, 'POST', '/billing/v1/purchase', {
        headers: admin(),
        rawBody: `{"accountId":"${accountId}","sku":"${sku.body.sku}","paymentMethod":"card","${field}":${raw}}`,
      });
      expect({ field, status: reply.status, message: reply.body.message }).toEqual({ field, status: 400, message: expect.stringContaining(field) });
    }
    expect(await stack.database.prisma.charge.count()).toBe(before);
  });
});
