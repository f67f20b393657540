/**
 * The REST cores: the OpenAPI check and lint, quick selections: the capability's in-process tests (`*.unit.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a unit registers its tests where it is required: inside its describe */

describe('openapi-check', () => {
  require('./openapi-check.unit');
});
describe('openapi-lint', () => {
  require('./openapi-lint.unit');
});
describe('quick-selection', () => {
  require('./quick-selection.unit');
});
