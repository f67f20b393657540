/**
 * The show: channels and streams, schedules, its end, two instances, stream bindings and providers, paid video and signed playback, deletion: the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them. Each part
 * keeps its own servers and databases: its beforeAll and afterAll run inside its describe, before and after its own
 * tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('show', () => {
  require('./show.part');
});
describe('show-instances', () => {
  require('./show-instances.part');
});
describe('schedule', () => {
  require('./schedule.part');
});
describe('show-end', () => {
  require('./show-end.part');
});
describe('live-channels', () => {
  require('./live-channels.part');
});
describe('stream-binding', () => {
  require('./stream-binding.part');
});
describe('stream-providers', () => {
  require('./stream-providers.part');
});
describe('show-provider', () => {
  require('./show-provider.part');
});
describe('paid-video', () => {
  require('./paid-video.part');
});
describe('signed-playback', () => {
  require('./signed-playback.part');
});
describe('video-deletion', () => {
  require('./video-deletion.part');
});
