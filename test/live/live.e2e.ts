/**
 * The live transports: graphql-ws, graphql-sse and multipart subscriptions, their callers and clients, across instances and through a Redis blip: the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them. Each part
 * keeps its own servers and databases: its beforeAll and afterAll run inside its describe, before and after its own
 * tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('live', () => {
  require('./live.part');
});
describe('cross-instance', () => {
  require('./cross-instance.part');
});
describe('blip', () => {
  require('./blip.part');
});
describe('subscriptions-http', () => {
  require('./subscriptions-http.part');
});
describe('subscriptions-http-callers', () => {
  require('./subscriptions-http-callers.part');
});
describe('subscriptions-http-clients', () => {
  require('./subscriptions-http-clients.part');
});
