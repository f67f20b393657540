/**
 * The GraphQL surface as outside tools see it: GraphiQL in Chromium, the security auditor, operation limits and a generated client: the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them. Each part
 * keeps its own servers and databases: its beforeAll and afterAll run inside its describe, before and after its own
 * tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('graphiql', () => {
  require('./graphiql.part');
});
describe('graphql-auditor', () => {
  require('./graphql-auditor.part');
});
describe('graphql-limits', () => {
  require('./graphql-limits.part');
});
describe('generated-client', () => {
  require('./generated-client.part');
});
