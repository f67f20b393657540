/**
 * Federation, local queries and trusted documents at the gateway (hostile input, the longest, is a file of its own):
 * the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the order
 * listed, run as one jest file so its packages load once for all of them. Each part keeps its own servers and
 * databases: its beforeAll and afterAll run inside its describe, before and after its own tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('federation', () => {
  require('./federation.part');
});
describe('local-queries', () => {
  require('./local-queries.part');
});
describe('trusted-documents', () => {
  require('./trusted-documents.part');
});
describe('root-fields', () => {
  require('./root-fields.part');
});
describe('stock-path', () => {
  require('./stock-path.part');
});
