/**
 * Fleets behind HAProxy: instances killed, Redis outages, viewers over WebSocket and over HTTP: the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them. Each part
 * keeps its own servers and databases: its beforeAll and afterAll run inside its describe, before and after its own
 * tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('fleet', () => {
  require('./fleet.part');
});
describe('fleet-http', () => {
  require('./fleet-http.part');
});
