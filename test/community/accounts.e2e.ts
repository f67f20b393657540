/**
 * Accounts, sign-in, the community, invites, wallet pay and the community's logs: the capability's end-to-end parts
 * (`*.part.ts` beside this file), each in a describe of its own and in the order listed, run as one jest file so its
 * packages load once for all of them. Each part keeps its own servers and databases: its beforeAll and afterAll run
 * inside its describe, before and after its own tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('accounts', () => {
  require('./accounts.part');
});
describe('community', () => {
  require('./community.part');
});
describe('invites', () => {
  require('./invites.part');
});
describe('wallet-pay', () => {
  require('./wallet-pay.part');
});
describe('community-logs', () => {
  require('./community-logs.part');
});
describe('bundles', () => {
  require('./bundles.part');
});
describe('seed-auth', () => {
  require('./seed-auth.part');
});
