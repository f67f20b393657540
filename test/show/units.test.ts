/**
 * The show's cores: the status feed, the latency clock, playback signing, the provider's core, schedules and simulcast targets: the capability's in-process tests (`*.unit.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a unit registers its tests where it is required: inside its describe */

describe('channel-status-feed', () => {
  require('./channel-status-feed.unit');
});
describe('latency-clock', () => {
  require('./latency-clock.unit');
});
describe('playback-signing', () => {
  require('./playback-signing.unit');
});
describe('provider-core', () => {
  require('./provider-core.unit');
});
describe('schedule', () => {
  require('./schedule.unit');
});
describe('simulcast-targets', () => {
  require('./simulcast-targets.unit');
});
