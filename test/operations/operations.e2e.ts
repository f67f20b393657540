/**
 * Operations: the health and drain endpoints, logs, traces and Prometheus: the capability's end-to-end parts
 * (`*.part.ts` beside this file), each in a describe of its own and in the order listed, run as one jest file so its
 * packages load once for all of them. Each part keeps its own servers and databases: its beforeAll and afterAll run
 * inside its describe, before and after its own tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('operations', () => {
  require('./operations.part');
});
describe('logging', () => {
  require('./logging.part');
});
describe('trace-ids', () => {
  require('./trace-ids.part');
});
describe('tracing', () => {
  require('./tracing.part');
});
describe('prometheus', () => {
  require('./prometheus.part');
});
describe('cli', () => {
  require('./cli.part');
});
describe('faults', () => {
  require('./faults.part');
});
describe('split-services', () => {
  require('./split-services.part');
});
