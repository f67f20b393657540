/**
 * No request holds the event loop: GraphQL bombs (repeated fields, aliases, deep nesting, directives,
 * huge token counts) over HTTP /graphql, the in-process path the REST bridge uses, and graphql-ws with
 * the real client, each refused with a GraphQL error, with /health asked at the same time still answering; field
 * suggestions only for callers with D or J; the cap on subscriptions per socket; and a data-provider
 * schema whose pattern backtracks without bound. The event loop's longest block is measured with
 * perf_hooks.monitorEventLoopDelay and printed (speed is proven in the bench, not asserted here).
 */
import { createHmac } from 'node:crypto';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { Client } from 'graphql-ws';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest, type Reply } from '../helpers/http';
import { connectedClient, VIEWER_SUBSCRIPTION } from '../helpers/viewer';
import { eventually } from '../helpers/wait';
import { BACKTRACKING_TEXT, GRAPHQL_BOMBS, HOSTILE_PATTERN, REFUSED_PATTERNS, schemaWithPattern } from '../helpers/hostileInputs';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
/** The longest event-loop block seen while each case ran (ms), and the longest GC pause within it. */
const blocks: Record<string, number> = {};
const gcPauses: Record<string, number> = {};
let longestGc = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longestGc = Math.max(longestGc, entry.duration);
});

const MAX_SUBSCRIPTIONS = 3;

beforeAll(async () => {
  stack = await startTestStack({ env: { LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET: String(MAX_SUBSCRIPTIONS) } });
  site = await createTestSite(stack);
  // Warm-up: the first request of a process compiles code paths once; that is not what is measured.
  await graphql(stack, `{ site { name } }`, {}, { 'x-service-client-id': site.siteId });
  await graphql(stack, `{ site { ${'name '.repeat(600)}} }`, {}, { 'x-service-client-id': site.siteId });
  loopDelay.enable();
  gcObserver.observe({ entryTypes: ['gc'] });
});
afterAll(async () => {
  loopDelay.disable();
  gcObserver.disconnect();
  const slowest = Math.max(...Object.values(blocks));
  console.log(`event-loop max block per case (ms): ${JSON.stringify(blocks)}; slowest ${slowest} ms`);
  console.log(`longest GC pause of the test process per case (ms): ${JSON.stringify(gcPauses)}`);
  await stopAll();
});

const viewerHeaders = () => ({ 'x-service-client-id': site.siteId });

/**
 * Runs `attack` with /health asked at the same moment, and records (prints, never asserts) the longest
 * event-loop block while both ran. What it checks is that the server still answers /health 200 after the
 * attack: a refusal that took the process down or wedged it fails here. How long the loop was held is
 * `npm run bench -- loopblock`'s figure, not this test's.
 */
async function alongsideHealth<T>(name: string, attack: () => Promise<T>): Promise<T> {
  loopDelay.reset();
  longestGc = 0;
  const [result, health] = await Promise.all([attack(), fetch(`${stack.url}/health`)]);
  expect(health.status).toBe(200);
  blocks[name] = Math.round(loopDelay.max / 1e5) / 10;
  gcPauses[name] = Math.round(longestGc * 10) / 10;
  return result;
}

function expectRefused(reply: Reply, code: string, message: RegExp) {
  expect(reply.status).toBe(400);
  expect(reply.body.errors?.[0]?.extensions?.code).toBe(code);
  expect(reply.body.errors?.[0]?.message).toMatch(message);
}

const BOMBS = GRAPHQL_BOMBS;

describe('GraphQL bombs over HTTP /graphql', () => {
  it('answers /health 200 on its own (the baseline of the printed event-loop figures)', async () => {
    await alongsideHealth('baseline /health alone', async () => undefined);
  });

  it.each([
    ['repeatedFields', 'GRAPHQL_PARSE_FAILED', /500 tokens/],
    ['aliases', 'GRAPHQL_PARSE_FAILED', /500 tokens/],
    ['hugeTokens', 'GRAPHQL_PARSE_FAILED', /500 tokens/],
    ['aliasesPastLimit', 'GRAPHQL_VALIDATION_FAILED', /Aliases limit of 20 exceeded, found 21/],
    ['deepNesting', 'GRAPHQL_VALIDATION_FAILED', /depth limit of 12 exceeded/],
    ['directives', 'GRAPHQL_VALIDATION_FAILED', /Directives limit of 20 exceeded, found 21/],
  ] as const)('refuses %s with 400 %s, and /health asked at the same time answers 200', async (name, code, message) => {
    const anonymous = await alongsideHealth(`http ${name}`, () => graphql(stack, BOMBS[name], {}, viewerHeaders()));
    expectRefused(anonymous, code, message);
    // The same for an admin: limits are for everyone.
    expectRefused(await graphql(stack, BOMBS[name], {}, site.admin), code, message);
  });

  it('counts depth through fragment spreads', async () => {
    const reply = await alongsideHealth('http deepFragments', () => graphql(stack, BOMBS.deepFragments, {}, site.admin));
    expectRefused(reply, 'GRAPHQL_VALIDATION_FAILED', /depth limit of 12 exceeded/);
  });

  it('refuses a bomb sent with GET as well', async () => {
    const response = await alongsideHealth('http GET repeatedFields', () =>
      fetch(`${stack.url}/graphql?query=${encodeURIComponent(`{ site { ${'name '.repeat(2_000)}} }`)}`, {
        headers: { ...viewerHeaders(), 'apollo-require-preflight': 'true' },
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('still answers documents within the limits, introspection included', async () => {
    const reply = await graphql(stack, `{ a: site { name } b: site { id } site { name @include(if: true) } }`, {}, site.admin);
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data).toMatchObject({ a: { name: 'Test site' }, site: { name: 'Test site' } });
    const introspection = await graphql(
      stack,
      `{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }`,
      {},
      site.admin,
    );
    expect(introspection.status).toBe(200);
    expect(introspection.body.data.__schema.types.length).toBeGreaterThan(10);
  });
});

describe('the in-process path of the REST bridge', () => {
  it('answers a bomb with the error instead of running it, and REST routes keep working', async () => {
    const result = await alongsideHealth('in-process repeatedFields', () =>
      stack.gateway.execute({ query: BOMBS.repeatedFields }, { siteId: site.siteId, developerKey: true, account: null, requestId: 'limits-test' }),
    );
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(result.data).toBeUndefined();
    const listed = await rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
    expect(listed.status).toBe(200);
  });
});

describe('field suggestions', () => {
  const TYPO = `{ site { nme } }`;

  it('are cut for a caller with the site ID alone, and kept for D and J', async () => {
    const anonymous = await graphql(stack, TYPO, {}, viewerHeaders());
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.errors?.[0]?.message).toMatch(/Cannot query field "nme" on type "Site"/);
    expect(anonymous.body.errors?.[0]?.message).not.toMatch(/Did you mean/);

    const admin = await graphql(stack, TYPO, {}, site.admin);
    expect(admin.body.errors?.[0]?.message).toMatch(/Did you mean "name"\?/);
    const signedIn = await graphql(stack, TYPO, {}, { ...viewerHeaders(), authorization: `Bearer ${await site.token([])}` });
    expect(signedIn.body.errors?.[0]?.message).toMatch(/Did you mean "name"\?/);
  });
});

// ---------------------------------------------------------------- graphql-ws

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
});

const connected = (params: Record<string, unknown>) => connectedClient(stack, params, clients);

/**
 * Subscribes and resolves with what ends it first: its errors, 'next' when data arrives, or 'open' once the
 * server has registered it as a live subscription (a condition, not a pause: a refusal that arrives late
 * on a loaded machine is still seen as a refusal).
 */
function outcome(
  client: Client,
  query: string,
): Promise<{ errors?: { message: string; extensions?: { code?: string } }[]; state: 'error' | 'next' | 'open' | 'complete' }> {
  const before = stack.gateway.live.stats().subscriptions;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: { errors?: { message: string; extensions?: { code?: string } }[]; state: 'error' | 'next' | 'open' | 'complete' }) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    client.subscribe(
      { query },
      {
        next: () => settle({ state: 'next' }),
        error: (errors) => settle({ errors: errors as { message: string }[], state: 'error' }),
        complete: () => settle({ state: 'complete' }),
      },
    );
    void eventually(() => settled || stack.gateway.live.stats().subscriptions > before, 'the subscription answered or registered').then(
      () => settle({ state: 'open' }),
      (error: Error) => settle({ state: 'error', errors: [{ message: error.message }] }),
    );
  });
}

describe('GraphQL bombs over graphql-ws', () => {
  it.each([
    ['repeated fields', `subscription { overlayBroadcasts { ${'kind '.repeat(10_000)}} }`, 'GRAPHQL_PARSE_FAILED'],
    ['aliases', `subscription { overlayBroadcasts { ${Array.from({ length: 5_000 }, (_, index) => `a${index}: kind`).join(' ')} } }`, 'GRAPHQL_PARSE_FAILED'],
    [
      'aliases past the limit',
      `subscription { overlayBroadcasts { ${Array.from({ length: 21 }, (_, index) => `a${index}: kind`).join(' ')} } }`,
      'GRAPHQL_VALIDATION_FAILED',
    ],
    ['directives', `subscription { overlayBroadcasts { kind ${'@include(if: true) '.repeat(21)}} }`, 'GRAPHQL_VALIDATION_FAILED'],
    ['a query bomb', `{ site { ${'name '.repeat(10_000)}} }`, 'GRAPHQL_PARSE_FAILED'],
  ])('refuses %s with an error message, the socket staying open', async (name, query, code) => {
    const client = await connected({ 'x-service-client-id': site.siteId });
    const result = await alongsideHealth(`ws ${name}`, () => outcome(client, query));
    expect(result.state).toBe('error');
    expect(result.errors?.[0]?.extensions?.code).toBe(code);
    // The same socket still serves a document within the limits.
    expect((await outcome(client, VIEWER_SUBSCRIPTION)).state).toBe('open');
  });

  it('cuts suggestions for a viewer with the site ID alone', async () => {
    const client = await connected({ 'x-service-client-id': site.siteId });
    const result = await outcome(client, `subscription { overlayBroadcasts { knd } }`);
    expect(result.state).toBe('error');
    expect(result.errors?.[0]?.message).toMatch(/Cannot query field "knd"/);
    expect(result.errors?.[0]?.message).not.toMatch(/Did you mean/);
    const admin = await connected({ 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey });
    expect((await outcome(admin, `subscription { overlayBroadcasts { knd } }`)).errors?.[0]?.message).toMatch(/Did you mean "kind"\?/);
  });
});

describe('subscriptions per socket', () => {
  it(`allows ${MAX_SUBSCRIPTIONS} at once; one more is an error for that subscription only`, async () => {
    const client = await connected({ 'x-service-client-id': site.siteId });
    const first: (() => void)[] = [];
    const before = stack.gateway.live.stats().subscriptions;
    for (let index = 0; index < MAX_SUBSCRIPTIONS; index += 1) {
      first.push(client.subscribe({ query: VIEWER_SUBSCRIPTION }, { next: () => undefined, error: () => undefined, complete: () => undefined }));
    }
    await eventually(() => stack.gateway.live.stats().subscriptions >= before + MAX_SUBSCRIPTIONS, 'every subscription of the full socket registered');
    const over = await outcome(client, VIEWER_SUBSCRIPTION);
    expect(over.state).toBe('error');
    expect(over.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(over.errors?.[0]?.message).toMatch(new RegExp(`at most ${MAX_SUBSCRIPTIONS} subscriptions`));
    // Queries are not subscriptions: they still run on the full socket.
    expect((await outcome(client, `{ site { name } }`)).state).toBe('next');
    // Completing one frees its place.
    first[0]();
    await eventually(() => stack.gateway.live.stats().subscriptions < before + MAX_SUBSCRIPTIONS, 'the completed subscription freed');
    expect((await outcome(client, VIEWER_SUBSCRIPTION)).state).toBe('open');
  });
});

// ---------------------------------------------------------------- data-provider patterns

describe('data-provider schema patterns', () => {
  const HOSTILE = HOSTILE_PATTERN;
  const sign = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');
  const schemaWith = schemaWithPattern;
  const registration = (pattern: string) => ({
    name: `Patterned ${pattern}`,
    description: 'text events',
    schema: schemaWith(pattern),
    ownerName: 'Ada',
    ownerEmail: 'ada@example.test',
    realtime: true,
    ttl: null,
  });
  const event = JSON.stringify({ data: { text: BACKTRACKING_TEXT } });
  const send = (provider: { dataProviderId: string; secret: string }, text: string) =>
    rest(stack, 'POST', `/dataprovider/v1/${provider.dataProviderId}/events`, {
      headers: { 'X-DataProvider-Signature': sign(provider.secret, text) },
      rawBody: text,
    });

  beforeAll(async () => {
    // Warm-up: the first registration compiles Ajv's meta-schema and starts the proof worker.
    expect((await rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body: registration('^[0-9]+$') })).status).toBe(201);
  });

  it('refuses a pattern that backtracks without bound at registration and in a signed update, naming schema', async () => {
    const refused = await alongsideHealth('register hostile pattern', () =>
      rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body: registration(HOSTILE) }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false });
    expect(refused.body.message).toMatch(/schema/);
    expect(refused.body.message).toMatch(/linear/);
    for (const pattern of REFUSED_PATTERNS) {
      const reply = await rest(stack, 'POST', '/dataprovider/v1/register', {
        headers: site.admin,
        body: { ...registration(pattern), schema: { type: 'object', patternProperties: { [pattern]: { type: 'string' } } } },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(/schema/);
    }

    const safe = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body: registration('^[a-z]+$') });
    expect(safe.status).toBe(201);
    const update = JSON.stringify({ schema: schemaWith(HOSTILE) });
    const put = await rest(stack, 'PUT', `/dataprovider/v1/${safe.body.dataProviderId}`, {
      headers: { 'X-DataProvider-Signature': sign(safe.body.secret, update) },
      rawBody: update,
    });
    expect(put.status).toBe(400);
    expect(put.body.message).toMatch(/schema/);
    // A proven pattern works as patterns do.
    expect((await send(safe.body, JSON.stringify({ data: { text: 'abc' } }))).status).toBe(201);
    expect((await send(safe.body, event)).status).toBe(400);
  });

  it('refuses the hostile pattern of a schema stored before the check when the signed event arrives, with 400 naming schema', async () => {
    const provider = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body: registration('^[a-z]+!?$') });
    expect(provider.status).toBe(201);
    // A row written before this check existed (no event sent yet, so nothing is cached).
    await stack.database.prisma.dataProvider.update({ where: { id: provider.body.dataProviderId }, data: { schema: schemaWith(HOSTILE) } });
    const reply = await alongsideHealth('event against stored hostile pattern', () => send(provider.body, event));
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/schema/);
  });
});
