/**
 * What an external GraphQL auditor finds at /graphql: each check of the scanner graphql-cop, reproduced
 * as the HTTP requests it sends (its payloads and its own criterion of a finding), against the real
 * stack, for three callers: no credential, the site ID alone, and the site ID with the developer key.
 * The first two find nothing above LOW severity (docs/design.md, "Reliability and security"); the developer key
 * keeps introspection and field suggestions, since admin front ends generate their clients from them.
 * Every answer is also checked for what the scanner does not look at: no 5xx, no stack trace, and a
 * refused document answered with a few errors at most. The same rules on the graphql-ws socket.
 */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { connectedClient } from '../helpers/viewer';

let stack: Stack;
let site: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
});
afterAll(async () => {
  console.log(`graphql-cop checks, finding per caller (false = nothing found):\n${JSON.stringify(findings, null, 1)}`);
  await stopAll();
});

type CallerName = 'anonymous' | 'site ID alone' | 'developer key';
const CALLERS: CallerName[] = ['anonymous', 'site ID alone', 'developer key'];
function headersOf(caller: CallerName): Record<string, string> {
  if (caller === 'anonymous') return {};
  if (caller === 'site ID alone') return { 'x-service-client-id': site.siteId };
  return site.admin;
}

interface Answer {
  status: number;
  text: string;
  json: any;
}

/** One HTTP request to /graphql (as the scanner's python `requests` sends it), its body parsed when JSON. */
async function call(init: {
  method?: string;
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  path?: string;
}): Promise<Answer> {
  const query = init.params ? `?${new URLSearchParams(init.params).toString()}` : '';
  const response = await fetch(`${stack.url}${init.path ?? '/graphql'}${query}`, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  // Whatever the scanner sends: never a server error, never a stack trace.
  expect(response.status).toBeLessThan(500);
  expect(text.toLowerCase()).not.toContain('stacktrace');
  expect(text).not.toMatch(/\n\s+at /);
  return { status: response.status, text, json };
}

/** graphql-cop's graph_query: a POST with the JSON body {query}. */
const postQuery = (caller: CallerName, query: string, extra: Record<string, string> = {}) =>
  call({ method: 'POST', headers: { ...headersOf(caller), 'content-type': 'application/json', ...extra }, body: JSON.stringify({ query }) });

/** A document refused before it ran: 400, no data, and at most a few errors. */
function expectRefused(answer: Answer, message?: RegExp) {
  expect(answer.status).toBe(400);
  expect(answer.json?.data ?? undefined).toBeUndefined();
  expect(answer.json.errors.length).toBeGreaterThanOrEqual(1);
  expect(answer.json.errors.length).toBeLessThanOrEqual(3);
  if (message) expect(answer.json.errors[0].message).toMatch(message);
}

const SEVERITY = {
  'alias overloading': 'HIGH',
  'batch queries': 'HIGH',
  'directive overloading': 'HIGH',
  'field duplication': 'HIGH',
  'introspection-based circular query': 'HIGH',
  introspection: 'HIGH',
  'field suggestions': 'LOW',
  'GraphQL IDE': 'LOW',
  'GET method query support': 'MEDIUM',
  'GET-based mutation': 'MEDIUM',
  'POST-based CSRF': 'MEDIUM',
  'trace mode': 'INFO',
  'unhandled errors': 'INFO',
} as const;
type Check = keyof typeof SEVERITY;
const findings: Record<string, Partial<Record<CallerName, boolean>>> = {};

/** Each check: its requests, extra assertions, and graphql-cop's own criterion of a finding. */
const CHECKS: Record<Check, (caller: CallerName) => Promise<boolean>> = {
  async 'alias overloading'(caller) {
    const aliases = Array.from({ length: 101 }, (_, index) => `alias${index}:__typename \n`).join('');
    const answer = await postQuery(caller, `query { ${aliases} }`);
    // The alias limit is for everybody, and __typename counts like any field.
    expectRefused(answer, /Aliases limit of 20 exceeded, found 101/);
    return Boolean(answer.json?.data?.alias100);
  },

  async 'batch queries'(caller) {
    const batch = Array.from({ length: 11 }, () => ({ query: 'query { __typename }' }));
    const answer = await call({ method: 'POST', headers: { ...headersOf(caller), 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    expect(answer.status).toBe(400);
    expect(Array.isArray(answer.json)).toBe(false);
    expect(answer.json?.data).toBeUndefined();
    return (answer.json?.data?.length ?? 0) >= 10 || (Array.isArray(answer.json) && answer.json.length >= 10);
  },

  async 'directive overloading'(caller) {
    const answer = await postQuery(caller, 'query { __typename @aa@aa@aa@aa@aa@aa@aa@aa@aa@aa }');
    expectRefused(answer, /Unknown directive "@aa"/);
    expect(answer.json.errors).toHaveLength(1);
    // Known but not repeatable, repeated: refused as one error as well.
    const repeated = await postQuery(caller, `query { __typename ${'@include(if: true)'.repeat(10)} }`);
    expectRefused(repeated, /can only be used once/);
    expect(repeated.json.errors).toHaveLength(1);
    // Any document of many mistakes: a few errors, not one per mistake.
    const mistakes = await postQuery(caller, `query { ${Array.from({ length: 10 }, (_, index) => `f${index}`).join(' ')} }`);
    expectRefused(mistakes, /Cannot query field "f0"/);
    return answer.json?.errors?.length === 10;
  },

  async 'field duplication'(caller) {
    const answer = await postQuery(caller, `query { ${'__typename \n'.repeat(500)}} `);
    expectRefused(answer, /500 tokens/);
    return Boolean(answer.json?.data?.__typename);
  },

  async 'introspection-based circular query'(caller) {
    const answer = await postQuery(
      caller,
      'query { __schema { types { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } }',
    );
    // graphql-js's own rule on the depth of introspection refuses it, developer key or not.
    expectRefused(answer, /introspection depth/);
    return (answer.json?.data?.__schema?.types?.length ?? 0) > 25;
  },

  async introspection(caller) {
    const answer = await postQuery(caller, 'query { __schema { types { name fields { name } } } }');
    const byType = await postQuery(caller, '{ __type(name: "Site") { fields { name } } }');
    // Hidden in a fragment, or sent with GET: the same.
    const inFragment = await postQuery(caller, 'query { ...F } fragment F on Query { __schema { queryType { name } } }');
    const byGet = await call({
      params: { query: '{ __schema { queryType { name } } }' },
      headers: { ...headersOf(caller), 'apollo-require-preflight': 'true' },
    });
    if (caller === 'developer key') {
      for (const reply of [answer, byType, inFragment, byGet]) {
        expect(reply.status).toBe(200);
        expect(reply.json.errors).toBeUndefined();
      }
      expect(answer.json.data.__schema.types.length).toBeGreaterThan(25);
      expect(byType.json.data.__type.fields.map((field: { name: string }) => field.name)).toContain('name');
    } else {
      for (const reply of [answer, byType, inFragment, byGet]) {
        expectRefused(reply, /introspection needs a developer key or a signed-in account/);
        expect(reply.json.errors).toHaveLength(1);
      }
    }
    // __typename alone is not introspection: everybody may ask it.
    const typename = await postQuery(caller, '{ __typename }');
    expect(typename.status).toBe(200);
    expect(typename.json).toEqual({ data: { __typename: 'Query' } });
    return Boolean(answer.json?.data?.__schema?.types);
  },

  async 'field suggestions'(caller) {
    const answer = await postQuery(caller, 'query { __schema { directive } }');
    const typo = await postQuery(caller, '{ site { nme } }');
    expectRefused(answer, /Cannot query field "directive" on type "__Schema"/);
    expectRefused(typo, /Cannot query field "nme" on type "Site"/);
    if (caller === 'developer key') {
      expect(answer.json.errors[0].message).toMatch(/Did you mean "directives"\?/);
      expect(typo.json.errors[0].message).toMatch(/Did you mean "name"\?/);
    } else {
      expect(answer.text).not.toContain('Did you mean');
      expect(typo.text).not.toContain('Did you mean');
    }
    return String(answer.json?.errors?.[0]?.message).includes('Did you mean');
  },

  async 'GraphQL IDE'(caller) {
    const heuristics = ['graphiql.min.css', 'GraphQL Playground', 'GraphiQL', 'graphql-playground'];
    let found = false;
    for (const path of ['/graphiql', '/playground', '/console', '/graphql']) {
      const answer = await call({ path, headers: { ...headersOf(caller), accept: 'text/html,application/xhtml+xml' } });
      // Nothing from another host (Apollo's Sandbox) anywhere; the one IDE is ours, at /graphiql.
      expect(answer.text).not.toMatch(/sandbox|apollographql\.com|https?:\/\//i);
      if (path !== '/graphiql') expect(answer.text).not.toMatch(/<html/i);
      found ||= heuristics.some((word) => answer.text.includes(word));
    }
    return found;
  },

  async 'GET method query support'(caller) {
    // A browser sends a cross-site GET with no custom header: Apollo Server's CSRF prevention refuses it.
    const answer = await call({ params: { query: '{__typename}' }, headers: headersOf(caller) });
    expect(answer.status).toBe(400);
    expect(answer.json.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    // A GET that could only come from a script that passed a preflight is a plain read.
    const preflighted = await call({ params: { query: '{__typename}' }, headers: { ...headersOf(caller), 'apollo-require-preflight': 'true' } });
    expect(preflighted.json).toEqual({ data: { __typename: 'Query' } });
    return Boolean(answer.json?.data?.__typename);
  },

  async 'GET-based mutation'(caller) {
    const answer = await call({ params: { query: 'mutation {__typename}' }, headers: headersOf(caller) });
    expect(answer.status).toBe(400);
    expect(answer.json?.data).toBeUndefined();
    // Even past the CSRF rule, GET runs queries only.
    const preflighted = await call({ params: { query: 'mutation {__typename}' }, headers: { ...headersOf(caller), 'apollo-require-preflight': 'true' } });
    expect(preflighted.status).toBe(405);
    expect(preflighted.json?.data).toBeUndefined();
    return Boolean(answer.json?.data?.__typename || preflighted.json?.data?.__typename);
  },

  async 'POST-based CSRF'(caller) {
    const q = 'query {__typename}';
    const attempts = [
      // graphql-cop's request: the query in the URL of a POST without a body.
      call({ method: 'POST', params: { query: q }, headers: headersOf(caller) }),
      call({
        method: 'POST',
        headers: { ...headersOf(caller), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query: q }).toString(),
      }),
      call({ method: 'POST', headers: { ...headersOf(caller), 'content-type': 'text/plain' }, body: JSON.stringify({ query: q }) }),
      call({
        method: 'POST',
        headers: { ...headersOf(caller), 'content-type': 'multipart/form-data; boundary=x' },
        body: `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${q}\r\n--x--\r\n`,
      }),
    ];
    let found = false;
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(400);
      expect(answer.json?.data).toBeUndefined();
      found ||= Boolean(answer.json?.data?.__typename);
    }
    return found;
  },

  async 'trace mode'(caller) {
    // Apollo's inline traces (ftv1) are asked for with this header; the gateway answers none to anybody.
    const answer = await postQuery(caller, 'query { __typename }', { 'apollo-federation-include-trace': 'ftv1' });
    expect(answer.json).toEqual({ data: { __typename: 'Query' } });
    const failing = await postQuery(caller, 'query { __typename nope }', { 'apollo-federation-include-trace': 'ftv1' });
    expect(failing.json.extensions).toBeUndefined();
    for (const reply of [answer, failing]) {
      expect(reply.text).not.toMatch(/"(tracing|ftv1|exception)"/);
    }
    return [answer, failing].some((reply) => Boolean(reply.json?.extensions?.tracing || reply.json?.errors?.[0]?.extensions?.exception));
  },

  async 'unhandled errors'(caller) {
    const headers = { ...headersOf(caller), 'content-type': 'application/json' };
    const malformedDocument = await postQuery(caller, 'qwerty cop { abc }');
    expectRefused(malformedDocument, /Syntax Error/);
    expect(malformedDocument.json.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const wrongVariable = await call({
      method: 'POST',
      headers,
      body: JSON.stringify({ query: 'query ($b: Boolean!) { __typename @include(if: $b) }', variables: { b: 'abc' } }),
    });
    expectRefused(wrongVariable, /\$b/);
    expect(wrongVariable.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const variablesNotAnObject = await call({ method: 'POST', headers, body: JSON.stringify({ query: '{ __typename }', variables: '{"n":' }) });
    expect(variablesNotAnObject.status).toBe(400);
    const variablesByGet = await call({
      params: { query: '{ __typename }', variables: '{"n":' },
      headers: { ...headersOf(caller), 'apollo-require-preflight': 'true' },
    });
    expect(variablesByGet.status).toBe(400);
    const notJson = await call({ method: 'POST', headers, body: '{"query": "{ __typename }"' });
    expect(notJson.status).toBe(400);
    const circularFragments = await postQuery(caller, 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }');
    expectRefused(circularFragments);
    const answers = [malformedDocument, wrongVariable, variablesNotAnObject, variablesByGet, notJson, circularFragments];
    return answers.some((answer) => Boolean(answer.json?.errors?.[0]?.extensions?.exception));
  },
};

/**
 * What each caller may find: the developer key keeps introspection and suggestions on purpose, and
 * GraphiQL is served at /graphiql to everybody on purpose (LOW: the page holds no credential and
 * gets no schema without D or J; `GRAPHIQL=off` removes it).
 */
function expectedFinding(check: Check, caller: CallerName): boolean {
  if (check === 'GraphQL IDE') return true;
  return caller === 'developer key' && (check === 'introspection' || check === 'field suggestions');
}

describe.each(CALLERS)('graphql-cop against /graphql, caller: %s', (caller) => {
  it.each(Object.keys(CHECKS) as Check[])('%s', async (check) => {
    const found = await CHECKS[check](caller);
    (findings[`${check} (${SEVERITY[check]})`] ??= {})[caller] = found;
    expect(found).toBe(expectedFinding(check, caller));
  });
});

it('finds nothing above LOW for a caller with no credential or the site ID alone', () => {
  for (const caller of ['anonymous', 'site ID alone'] as const) {
    const aboveLow = (Object.keys(SEVERITY) as Check[]).filter(
      (check) => SEVERITY[check] !== 'LOW' && SEVERITY[check] !== 'INFO' && findings[`${check} (${SEVERITY[check]})`]?.[caller] !== false,
    );
    expect({ caller, aboveLow }).toEqual({ caller, aboveLow: [] });
  }
});

it('lets a signed-in account (J) introspect as well', async () => {
  const headers = { 'x-service-client-id': site.siteId, authorization: `Bearer ${await site.token([])}`, 'content-type': 'application/json' };
  const answer = await call({ method: 'POST', headers, body: JSON.stringify({ query: '{ __type(name: "Site") { name } }' }) });
  expect(answer.json).toEqual({ data: { __type: { name: 'Site' } } });
});

// ---------------------------------------------------------------- graphql-ws

describe('the same rules on the graphql-ws socket', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map(async (client) => client.dispose()));
  });

  const connected = (params: Record<string, unknown>) => connectedClient(stack, params, clients);

  /** The first answer to a document: its data, or its errors. */
  function first(client: Client, query: string): Promise<{ data?: any; errors?: { message: string }[] }> {
    return new Promise((resolve) => {
      client.subscribe(
        { query },
        {
          next: (result) => resolve(result as { data?: unknown; errors?: { message: string }[] }),
          error: (errors) => resolve({ errors: errors as { message: string }[] }),
          complete: () => undefined,
        },
      );
    });
  }

  it('refuses introspection, repeated directives and __typename aliases past the limit to the site ID alone; the developer key keeps introspection', async () => {
    const viewer = await connected({ 'x-service-client-id': site.siteId });
    const admin = await connected({ 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey });
    const introspection = '{ __schema { types { name } } }';

    const refused = await first(viewer, introspection);
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.message).toMatch(/introspection needs a developer key or a signed-in account/);
    expect((await first(admin, introspection)).data.__schema.types.length).toBeGreaterThan(25);
    expect((await first(viewer, '{ __typename }')).data).toEqual({ __typename: 'Query' });

    const directives = await first(viewer, 'query { __typename @aa@aa@aa@aa@aa@aa@aa@aa@aa@aa }');
    expect(directives.errors).toHaveLength(1);
    const mistakes = await first(viewer, `subscription { overlayBroadcasts { ${Array.from({ length: 10 }, (_, index) => `f${index}`).join(' ')} } }`);
    expect(mistakes.errors?.length).toBeGreaterThanOrEqual(1);
    expect(mistakes.errors?.length).toBeLessThanOrEqual(3);
    expect(JSON.stringify(mistakes.errors)).not.toContain('Did you mean');

    const aliases = await first(viewer, `query { ${Array.from({ length: 101 }, (_, index) => `alias${index}:__typename`).join(' ')} }`);
    expect(aliases.errors?.[0]?.message).toMatch(/Aliases limit of 20 exceeded, found 101/);
  });
});
