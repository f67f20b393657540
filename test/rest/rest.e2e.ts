/**
 * The REST routes of the table and their rate limits: the capability's end-to-end parts (`*.part.ts` beside this
 * file), each in a describe of its own and in the order listed, run as one jest file so its packages load once for
 * all of them. Each part keeps its own servers and databases: its beforeAll and afterAll run inside its describe,
 * before and after its own tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('routes', () => {
  require('./routes.part');
});
describe('rate-limit-rules', () => {
  require('./rate-limit-rules.part');
});
describe('write-routes', () => {
  require('./write-routes.part');
});
