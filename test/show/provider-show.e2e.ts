/**
 * The reference provider with the whole stack: in the background, signed, its lapse, renditions, clips and simulcast: the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them. Each part
 * keeps its own servers and databases: its beforeAll and afterAll run inside its describe, before and after its own
 * tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('provider-background', () => {
  require('./provider-background.part');
});
describe('provider-signed', () => {
  require('./provider-signed.part');
});
describe('signed-lapse', () => {
  require('./signed-lapse.part');
});
describe('provider-ladder', () => {
  require('./provider-ladder.part');
});
describe('clips', () => {
  require('./clips.part');
});
describe('simulcast', () => {
  require('./simulcast.part');
});
