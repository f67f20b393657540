/**
 * The gateway's cores: distinct entities, GraphQL lint, production mode, the kept composition, plan cache, response shaping, one-subgraph plans, connections and turns: the capability's in-process tests (`*.unit.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a unit registers its tests where it is required: inside its describe */

describe('distinct-entities', () => {
  require('./distinct-entities.unit');
});
describe('graphql-lint', () => {
  require('./graphql-lint.unit');
});
describe('graphqlProduction', () => {
  require('./graphqlProduction.unit');
});
describe('kept-composition', () => {
  require('./kept-composition.unit');
});
describe('plan-cache', () => {
  require('./plan-cache.unit');
});
describe('response-shaping', () => {
  require('./response-shaping.unit');
});
describe('single-subgraph', () => {
  require('./single-subgraph.unit');
});
describe('takeConnection', () => {
  require('./takeConnection.unit');
});
describe('turns', () => {
  require('./turns.unit');
});
