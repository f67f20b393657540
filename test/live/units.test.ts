/**
 * The live cores: the bus announcer, feed reads, the full-selection check and pass slices: the capability's in-process tests (`*.unit.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a unit registers its tests where it is required: inside its describe */

describe('bus-announcer', () => {
  require('./bus-announcer.unit');
});
describe('feed-reads', () => {
  require('./feed-reads.unit');
});
describe('full-selection-check', () => {
  require('./full-selection-check.unit');
});
describe('pass-slices', () => {
  require('./pass-slices.unit');
});
