/**
 * The gateway's answer shaping (gateway/responseShaping.ts) gives @apollo/gateway's own answer, byte for
 * byte, for every query and merged subgraph data: regular answers from its cheaper walk (plain objects), and
 * anything irregular (nulls where the type forbids them, values that do not fit, introspection, a
 * `__proto__` alias) from the gateway's code, errors included.
 */
import { parse } from 'graphql';
import { gatewayModules, shapeResponsesFaster } from '../../gateway/responseShaping';

const { internals, shaping, operations } = gatewayModules();
const original = shaping.computeResponse;
const originalOperationFromDocument = operations.operationFromDocument;
shapeResponsesFaster();
const shaped = shaping.computeResponse;

const { buildSchema } = internals as unknown as { buildSchema: (sdl: string) => object };
const schema = buildSchema(/* GraphQL */ `
  scalar JSON
  enum Kind { INSTANCE TEMPLATE }
  interface Node { id: ID! }
  type Overlay implements Node { id: ID! name: String kind: Kind! duration: Int settings: JSON tags: [String] }
  type Poll implements Node { id: ID! question: String! answers: [Answer!]! open: Boolean }
  type Answer { id: ID! text: String count: Float }
  union Item = Overlay | Poll
  type Site { id: ID! name: String! overlays: [Overlay!]! items: [Item] first: Node }
  type Query { site: Site version: String nodes: [Node!] }
`);

/** Both shapings of `input` for `query`; the shaped one must equal the gateway's. */
function both(query: string, input: Record<string, unknown> | null, variables?: Record<string, unknown>) {
  const document = parse(query);
  const operation = originalOperationFromDocument(schema, document, { validate: false });
  const introspectionHandling = () => ({ queryType: { name: 'Query' } });
  const expected = original({ operation, variables, input, introspectionHandling });
  const actual = shaped({ operation, variables, input, introspectionHandling });
  return compared(actual, expected);
}

function compared(actual: ReturnType<typeof shaped>, expected: ReturnType<typeof original>) {
  expect(JSON.stringify(actual.data)).toBe(JSON.stringify(expected.data));
  expect(JSON.stringify(actual.errors)).toBe(JSON.stringify(expected.errors));
  expect((actual.errors as { path?: unknown }[]).map((error) => error.path)).toEqual((expected.errors as { path?: unknown }[]).map((error) => error.path));
  return { actual, expected };
}

/** Merged subgraph data as the gateway holds it: null-prototype objects with extra key fields and __typename. */
function merged(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(merged);
  if (value === null || typeof value !== 'object') return value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, field] of Object.entries(value)) copy[key] = key === 'settings' ? field : merged(field);
  return copy;
}

const overlay = (id: string, extra: Record<string, unknown> = {}) => ({
  __typename: 'Overlay',
  id,
  name: `Overlay ${id}`,
  kind: 'INSTANCE',
  duration: 10,
  settings: { nested: { deep: [1, 2] } },
  tags: ['a', null, 'b'],
  siteId: 'not asked for',
  ...extra,
});
const poll = (id: string) => ({ __typename: 'Poll', id, question: `Q ${id}`, open: true, answers: [{ id: 'a', text: 'yes', count: 1.5 }] });
const site = (extra: Record<string, unknown> = {}) => ({
  __typename: 'Site',
  id: 's1',
  name: 'Site',
  overlays: [overlay('o1'), overlay('o2')],
  items: [overlay('o3'), null, poll('p1')],
  first: poll('p2'),
  ...extra,
});

it('shapes a regular answer as the gateway does, into plain objects: order, aliases, extra fields dropped, scalars kept', () => {
  const { actual } = both(
    /* GraphQL */ `
      query {
        version
        toString: version
        site {
          name
          id
          constructor: name
          overlays { duration id kind settings tags hasOwnProperty: name }
          again: overlays { id }
          items { __typename ... on Overlay { id name } ... on Poll { question answers { text count } } }
          first { id ... on Poll { open } kind: __typename }
        }
      }
    `,
    merged({ version: '1', toString: '1', site: site({ constructor: 'Site', again: [overlay('o1'), overlay('o2')] }) }) as Record<string, unknown>,
  );
  expect(Object.getPrototypeOf(actual.data)).toBe(Object.prototype);
  expect((actual.data as { toString: unknown }).toString).toBe('1');
});

it('merges fields selected twice and follows @skip / @include with variables and literals', () => {
  const query = /* GraphQL */ `
    query ($skipName: Boolean!, $withTags: Boolean = true) {
      site {
        overlays { id name @skip(if: $skipName) }
        overlays { id tags @include(if: $withTags) duration @include(if: false) }
        ... on Query @skip(if: true) { version }
      }
    }
  `;
  const input = merged({ site: site() }) as Record<string, unknown>;
  for (const variables of [{ skipName: true }, { skipName: false, withTags: false }, { skipName: false }]) {
    const { actual } = both(query, input, variables);
    expect(Object.getPrototypeOf(actual.data)).toBe(Object.prototype);
  }
});

it('keeps nulls where the schema allows them and answers an absent root as the gateway does', () => {
  both(
    '{ site { id items { __typename } first { id } } version }',
    merged({ site: site({ items: null, first: null }), version: null }) as Record<string, unknown>,
  );
  both('{ version }', null);
  both('{ nodes { id } }', merged({ nodes: null }) as Record<string, unknown>);
});

it('leaves irregular answers to the gateway: its errors, paths and nulls, exactly', () => {
  const irregular: [string, unknown][] = [
    ['{ site { name } }', { site: site({ name: null }) }],
    ['{ site { overlays { id kind } } }', { site: site({ overlays: [overlay('o1'), overlay('o2', { kind: 'NOT_A_KIND' })] }) }],
    ['{ site { overlays { duration } } }', { site: site({ overlays: [overlay('o1', { duration: 'ten' })] }) }],
    ['{ site { overlays { duration } } }', { site: site({ overlays: [overlay('o1', { duration: 1.5 })] }) }],
    ['{ site { overlays { name } } }', { site: site({ overlays: [overlay('o1', { name: 5 })] }) }],
    ['{ site { first { ... on Poll { open } } } }', { site: site({ first: { ...poll('p1'), open: 'yes' } }) }],
    ['{ site { first { id } } }', { site: site({ first: { __typename: 'Nope', id: 'x' } }) }],
    ['{ site { items { __typename } } }', { site: site({ items: [{ id: 'x' }] }) }],
    ['{ nodes { id } }', { nodes: [poll('p1'), null] }],
    // An own "__proto__" key, as JSON.parse makes one.
    ['{ __proto__: version }', JSON.parse('{"__proto__": "1"}')],
    ['{ __schema { queryType { name } } version }', { version: '1' }],
  ];
  for (const [query, input] of irregular) {
    const { actual, expected } = both(query, merged(input) as Record<string, unknown>);
    expect(actual).toEqual(expected);
    // The gateway's own code answered (its null-prototype objects).
    expect(actual.data === null || Object.getPrototypeOf(actual.data) === null).toBe(true);
  }
});

it('throws what the gateway throws for data it cannot shape at all', () => {
  const cases: [string, unknown, Record<string, unknown>?][] = [
    ['query ($s: Boolean) { version @skip(if: $s) }', { version: '1' }, {}],
    ['{ site { overlays { id } } }', { site: site({ overlays: 'not a list' }) }],
    ['{ site { overlays { id } } }', { site: site({ overlays: [overlay('o1'), undefined] }) }],
  ];
  for (const [query, input, variables] of cases) {
    const operation = originalOperationFromDocument(schema, parse(query), { validate: false });
    const options = { operation, variables, input: merged(input) as Record<string, unknown>, introspectionHandling: () => null };
    const thrown = (compute: typeof original) => {
      try {
        compute(options);
      } catch (error) {
        return (error as Error).message;
      }
      return 'nothing thrown';
    };
    expect(thrown(shaped)).toBe(thrown(original));
    expect(thrown(original)).not.toBe('nothing thrown');
  }
});

it('builds the operation of an operation node once per schema, and passes other calls on', () => {
  const document = parse('{ site { id } }');
  const asExecuted = () => ({ kind: document.kind, definitions: [document.definitions[0]] }) as typeof document;
  const first = operations.operationFromDocument(schema, asExecuted(), { validate: false });
  expect(operations.operationFromDocument(schema, asExecuted(), { validate: false })).toBe(first);
  expect(operations.operationFromDocument(buildSchema('type Query { site: Site } type Site { id: ID }'), asExecuted(), { validate: false })).not.toBe(first);
  expect(operations.operationFromDocument(schema, asExecuted())).not.toBe(first);
  expect(operations.operationFromDocument(schema, parse('{ site { id } }'), { validate: false })).not.toBe(first);
});
