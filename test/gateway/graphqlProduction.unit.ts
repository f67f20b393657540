/**
 * shared/graphqlProduction.ts: graphql-js loaded after it runs in production mode (no check for schema
 * objects of another copy of graphql), and NODE_ENV is what it was, unset included. Each case loads
 * graphql afresh (jest.isolateModules), as a process starting does.
 */
import type * as Graphql from 'graphql';

/** An object that claims to be a schema without being one: development mode throws on it, production mode answers false. */
const impostor = { [Symbol.toStringTag]: 'GraphQLSchema' };

function loadGraphql(first: boolean): typeof Graphql {
  let graphql: typeof Graphql | undefined;
  jest.isolateModules(() => {
    if (first) jest.requireActual('../../shared/graphqlProduction');
    graphql = jest.requireActual<typeof Graphql>('graphql');
  });
  return graphql as typeof Graphql;
}

const original = process.env.NODE_ENV;
afterEach(() => {
  if (original === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = original;
});

it('without it, graphql-js runs in development mode here (what the other cases would see otherwise)', () => {
  process.env.NODE_ENV = 'development';
  expect(() => loadGraphql(false).isSchema(impostor)).toThrow(/another module or realm/);
});

it.each([['development'], ['test'], [undefined]])('NODE_ENV=%s: graphql-js runs in production mode and NODE_ENV stays as it was', (value) => {
  if (value === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = value;
  const graphql = loadGraphql(true);
  expect(graphql.isSchema(impostor)).toBe(false);
  expect(process.env.NODE_ENV).toBe(value);
  expect('NODE_ENV' in process.env).toBe(value !== undefined);
  // Still graphql: a real schema is one.
  expect(graphql.isSchema(graphql.buildSchema('type Query { ok: Boolean }'))).toBe(true);
});
