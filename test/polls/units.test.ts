/**
 * Polls' cores: the display and the results feed: the capability's in-process tests (`*.unit.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a unit registers its tests where it is required: inside its describe */

describe('poll-display', () => {
  require('./poll-display.unit');
});
describe('poll-results-feed', () => {
  require('./poll-results-feed.unit');
});
