/**
 * Sites, pages, panels, playlists, the calendar and the content check: the capability's end-to-end parts
 * (`*.part.ts` beside this file), each in a describe of its own and in the order listed, run as one jest file so its
 * packages load once for all of them. Each part keeps its own servers and databases: its beforeAll and afterAll run
 * inside its describe, before and after its own tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('site', () => {
  require('./site.part');
});
describe('pages', () => {
  require('./pages.part');
});
describe('panels', () => {
  require('./panels.part');
});
describe('playlists', () => {
  require('./playlists.part');
});
describe('playlist-import', () => {
  require('./playlist-import.part');
});
describe('calendar', () => {
  require('./calendar.part');
});
describe('literal-search', () => {
  require('./literal-search.part');
});
describe('content-check', () => {
  require('./content-check.part');
});
describe('content-check-kept', () => {
  require('./content-check-kept.part');
});
describe('viewer-reads', () => {
  require('./viewer-reads.part');
});
describe('insights', () => {
  require('./insights.part');
});
