/**
 * Playlists over their REST paths: create, get, update, delete, lists with projection and members'
 * videos, by ids, references and tenancy (the import from video platforms: playlist-import.part.ts).
 */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Playlists');
  other = await createTestSite(stack, 'Other');
});
afterAll(stopAll);

async function createPlaylist(owner: TestSite, body: Record<string, unknown>) {
  const reply = await rest(stack, 'POST', '/playlist/v1', { headers: owner.admin, body });
  expect(reply.status).toBe(200);
  return reply.body;
}

async function recordVideo(owner: TestSite, title: string) {
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: owner.admin,
    body: { slug: `vods-${title.replace(/\W/g, '')}-${Date.now()}`, type: 'channel' },
  });
  const reply = await graphql(
    stack,
    /* GraphQL */ `mutation($input: RecordVodInput!) { recordVod(input: $input) { id } }`,
    {
      input: { pageId: page.body._id, vodId: `vod-${title}-${Date.now()}`, url: 'https://cdn.example/v.m3u8', title },
    },
    owner.admin,
  );
  return reply.body.data.recordVod.id as string;
}

it('creates, gets (site ID alone), updates and deletes a playlist', async () => {
  const videoId = await recordVideo(site, 'Kickoff');
  const playlist = await createPlaylist(site, { title: 'Replays', description: 'all of them', members: [{ id: videoId, schema: 'video' }], tags: ['sports'] });
  expect(playlist).toEqual({
    _id: expect.stringMatching(/^[0-9a-f]{24}$/),
    siteId: site.siteId,
    title: 'Replays',
    description: 'all of them',
    members: [{ id: videoId, schema: 'video' }],
    tags: ['sports'],
    created: expect.any(Number),
    modified: expect.any(Number),
  });
  const got = await rest(stack, 'GET', `/playlist/v1/${playlist._id}`, { headers: site.admin });
  expect(got.body).toEqual(playlist);
  // The seed's C: a playlist by id needs only the site ID; the site's whole list needs D or J.
  expect((await rest(stack, 'GET', `/playlist/v1/${playlist._id}`, { headers: { 'x-service-client-id': site.siteId } })).body).toEqual(playlist);
  expect((await rest(stack, 'GET', '/playlist/v1/', { headers: { 'x-service-client-id': site.siteId } })).status).toBe(401);

  const updated = await rest(stack, 'POST', `/playlist/v1/${playlist._id}`, { headers: site.admin, body: { title: 'Best replays', members: [] } });
  expect(updated.body).toMatchObject({ title: 'Best replays', description: 'all of them', members: [], tags: ['sports'] });

  const removed = await rest(stack, 'DELETE', `/playlist/v1/${playlist._id}`, { headers: site.admin });
  expect(removed.body).toEqual({ success: true, _id: playlist._id });
  expect((await rest(stack, 'GET', `/playlist/v1/${playlist._id}`, { headers: site.admin })).status).toBe(404);
});

it('refuses bad playlists with 400, and writes without a key or role with 401', async () => {
  for (const body of [
    { members: [] },
    { title: '', members: [] },
    { title: 'x' },
    { title: 'x', members: [{ id: 'a' }] },
    { title: 'x', members: [], extra: 1 },
  ]) {
    expect((await rest(stack, 'POST', '/playlist/v1', { headers: site.admin, body })).status).toBe(400);
  }
  expect((await rest(stack, 'POST', '/playlist/v1', { headers: { 'x-service-client-id': site.siteId }, body: { title: 'x', members: [] } })).status).toBe(401);
});

describe('lists', () => {
  let listed: TestSite;
  const ids: string[] = [];
  let videoId: string;
  beforeAll(async () => {
    listed = await createTestSite(stack, 'Listed playlists');
    videoId = await recordVideo(listed, 'Final');
    for (const title of ['Alpha', 'Beta', 'Gamma']) {
      ids.push(
        (
          await createPlaylist(listed, {
            title,
            members: [
              { id: videoId, schema: 'video' },
              { id: 'ext-1', schema: 'link' },
            ],
          })
        )._id,
      );
    }
  });

  it('pages, sorts and filters, with the playlist pagination', async () => {
    const reply = await rest(stack, 'GET', '/playlist/v1/?limit=2&sortBy=title&sortDirection=1', { headers: listed.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.pagination).toEqual({ limit: 2, offset: 0, pageResults: 2, searchFields: [], sortBy: 'title', sortDirection: '1', totalCount: 3 });
    expect(reply.body.results.map((playlist: { title: string }) => playlist.title)).toEqual(['Alpha', 'Beta']);
    const filtered = await rest(stack, 'GET', '/playlist/v1/?property=title%3DGamma', { headers: listed.admin });
    expect(filtered.body.results.map((playlist: { _id: string }) => playlist._id)).toEqual([ids[2]]);
    expect(filtered.body.pagination).toMatchObject({ totalCount: 1, searchFields: ['title'], sortBy: 'created', sortDirection: '-1' });
  });

  it('projects fields, and adds the members’ videos when the projection asks for video', async () => {
    const projection = (value: object) => `projection=${encodeURIComponent(JSON.stringify(value))}`;
    const titles = await rest(stack, 'GET', `/playlist/v1/?sortBy=title&sortDirection=1&${projection({ title: 1 })}`, { headers: listed.admin });
    expect(titles.body.results[0]).toEqual({ _id: ids[0], title: 'Alpha' });
    const plain = await rest(stack, 'GET', '/playlist/v1/', { headers: listed.admin });
    expect(plain.body.results[0].members[0]).toEqual({ id: videoId, schema: 'video' });

    const withVideos = await rest(stack, 'GET', `/playlist/v1/?sortBy=title&sortDirection=1&${projection({ video: 1 })}`, { headers: listed.admin });
    expect(withVideos.body.results[0].members[0]).toEqual({
      id: videoId,
      schema: 'video',
      video: expect.objectContaining({ _id: videoId, title: 'Final', type: 'vod', url: 'https://cdn.example/v.m3u8', subscriptions: [] }),
    });
    expect(withVideos.body.results[0].members[1]).toEqual({ id: 'ext-1', schema: 'link', video: null });
    const both = await rest(stack, 'GET', `/playlist/v1/?${projection({ title: 1, members: 1, video: 1 })}`, { headers: listed.admin });
    expect(Object.keys(both.body.results[0]).sort()).toEqual(['_id', 'members', 'title']);
    expect(both.body.results[0].members[0].video._id).toBe(videoId);
  });

  it('lists by ids: the pagination and one entry per id', async () => {
    const reply = await rest(stack, 'GET', `/playlist/v1/list?ids=${ids[0]},${ids[2]},${'0'.repeat(24)}`, { headers: listed.admin });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual([ids[0], ids[2], 'pagination'].sort());
    expect(reply.body.pagination).toEqual({ limit: 50, offset: 0, sortDirection: -1, totalCount: 2 });
    expect(reply.body[ids[0]]).toMatchObject({ _id: ids[0], title: 'Alpha' });
    const projected = await rest(stack, 'GET', `/playlist/v1/list?ids=${ids[1]}&projection=${encodeURIComponent('{"title":1}')}`, { headers: listed.admin });
    expect(projected.body[ids[1]]).toEqual({ _id: ids[1], title: 'Beta' });
    expect((await rest(stack, 'GET', '/playlist/v1/list', { headers: listed.admin })).status).toBe(400);
    // "D optional": the site ID alone reads playlists by id.
    expect((await rest(stack, 'GET', `/playlist/v1/list?ids=${ids[0]}`, { headers: { 'x-service-client-id': listed.siteId } })).body[ids[0]]._id).toBe(ids[0]);
  });
});

it('validates references: the panels that play the playlist', async () => {
  const playlist = await createPlaylist(site, { title: 'Referenced', members: [] });
  expect((await rest(stack, 'GET', `/playlist/v1/validate-references/${playlist._id}`, { headers: site.admin })).body).toEqual([]);
  const panel = await rest(stack, 'POST', '/panel/v3/', {
    headers: site.admin,
    body: { siteId: site.siteId, renderer: { panel_type: 'playlist', panel_name: 'Replays panel', playlist_id: playlist._id } },
  });
  const references = await rest(stack, 'GET', `/playlist/v1/validate-references/${playlist._id}`, { headers: site.admin });
  expect(references.body).toEqual([{ _id: panel.body._id, collection: 'panels', name: 'Replays panel' }]);
  await rest(stack, 'PATCH', `/panel/v3/${panel.body._id}`, { headers: site.admin, body: { renderer: { playlist_id: null } } });
  expect((await rest(stack, 'GET', `/playlist/v1/validate-references/${playlist._id}`, { headers: site.admin })).body).toEqual([]);
});

it('keeps playlists to their site', async () => {
  const theirs = await createPlaylist(other, { title: 'Theirs', members: [] });
  expect((await rest(stack, 'GET', `/playlist/v1/${theirs._id}`, { headers: site.admin })).status).toBe(404);
  expect((await rest(stack, 'POST', `/playlist/v1/${theirs._id}`, { headers: site.admin, body: { title: 'Mine now' } })).status).toBe(404);
  expect((await rest(stack, 'DELETE', `/playlist/v1/${theirs._id}`, { headers: site.admin })).status).toBe(404);
  expect((await rest(stack, 'GET', `/playlist/v1/validate-references/${theirs._id}`, { headers: site.admin })).status).toBe(404);
  const list = await rest(stack, 'GET', `/playlist/v1/list?ids=${theirs._id}`, { headers: site.admin });
  expect(list.body).toEqual({ pagination: expect.objectContaining({ totalCount: 0 }) });
});
