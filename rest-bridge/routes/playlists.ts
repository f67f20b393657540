/**
 * Playlists (seed 001), including the import from the external video platform; answered by the content subgraph.
 */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { JsonSchema, ParamSpec, RouteSpec } from '../table';
import { REFERENCE, VIDEO, limit, listVariables, obj, offset, property, sortBy, sortDirection, str, strings, tags } from './shared';

const PLAYLIST = /* GraphQL */ `_id: id siteId title description members { id schema video @include(if: $withVideos) { ${VIDEO} } } tags created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const playlistSchemas: Record<string, JsonSchema> = {
  Playlist: obj({
    _id: str,
    siteId: str,
    title: str,
    description: str,
    members: arrayOf({
      type: 'object',
      required: ['id', 'schema'],
      properties: { id: str, schema: str, video: { oneOf: [ref('Video'), { type: 'null' }], description: 'with projection {"video": 1}' } },
    }),
    tags,
    created: epochMs,
    modified: epochMs,
  }),
  PlaylistList: obj({
    pagination: obj({
      limit: { type: 'integer' },
      offset: { type: 'integer' },
      pageResults: { type: 'integer' },
      searchFields: arrayOf(str),
      sortBy: str,
      sortDirection: str,
      totalCount: { type: 'integer' },
    }),
    results: arrayOf(ref('Playlist')),
  }),
  PlaylistsById: {
    type: 'object',
    required: ['pagination'],
    properties: {
      pagination: obj({ limit: { type: 'integer' }, offset: { type: 'integer' }, sortDirection: { type: 'integer' }, totalCount: { type: 'integer' } }),
    },
    additionalProperties: ref('Playlist'),
    description: 'the pagination, and one entry per playlist ID holding the playlist',
  },
};

const memberSchema: JsonSchema = { type: 'object', required: ['id', 'schema'], additionalProperties: false, properties: { id: str, schema: str } };
const playlistFields: Record<string, JsonSchema> = {
  _id: str,
  title: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 5000 },
  members: { type: 'array', maxItems: 5000, items: memberSchema },
  tags: strings(100),
  siteId: str,
};

const playlistProjection: ParamSpec = {
  name: 'projection',
  in: 'query',
  schema: { type: 'object', additionalProperties: { enum: [0, 1, true, false] } },
  description: 'JSON of fields, e.g. {"title": 1}; "video": 1 adds each member’s video',
};

export const playlistRoutes: RouteSpec[] = [
  {
    operationId: 'listPlaylists',
    method: 'get',
    path: '/playlist/v1/',
    summary: 'The site’s playlists, a page at a time, optionally filtered and projected',
    tag: 'Playlists',
    auth: ADMIN,
    params: [limit, offset, sortBy(['created', 'modified', 'title'], 'created'), sortDirection, property('title=Highlights'), playlistProjection],
    document: /* GraphQL */ `query ListPlaylists($limit: Int, $offset: Int, $sortBy: String, $sortDirection: Int, $property: String, $withVideos: Boolean!) {
      result: playlists(limit: $limit, offset: $offset, sortBy: $sortBy, sortDirection: $sortDirection, property: $property) {
        pagination { limit offset pageResults searchFields sortBy sortDirection: sortDirectionText totalCount } results { ${PLAYLIST} }
      }
    }`,
    variables: { ...listVariables, property: 'query.property', withVideos: { given: 'query.projection.video' } },
    projection: { source: 'query.projection', at: 'results', ignore: ['video'] },
    response: ref('PlaylistList'),
  },
  {
    operationId: 'createPlaylist',
    method: 'post',
    path: '/playlist/v1',
    summary: 'Create a playlist',
    tag: 'Playlists',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['title', 'members'], additionalProperties: false, properties: playlistFields }, required: true },
    document: /* GraphQL */ `mutation CreatePlaylist($input: PlaylistInput!, $withVideos: Boolean! = false) { result: createPlaylist(input: $input) { ${PLAYLIST} } }`,
    variables: { input: { title: 'body.title', description: 'body.description', members: 'body.members', tags: 'body.tags' } },
    response: ref('Playlist'),
  },
  {
    operationId: 'listPlaylistsById',
    method: 'get',
    path: '/playlist/v1/list',
    summary: 'Playlists by ID: the pagination and one entry per playlist ID (a developer key is optional)',
    tag: 'Playlists',
    auth: SITE_ID,
    params: [
      {
        name: 'ids',
        in: 'query',
        required: true,
        commaSeparated: true,
        schema: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'string' } },
        description: 'comma-separated playlist IDs',
      },
      offset,
      limit,
      playlistProjection,
    ],
    document: /* GraphQL */ `query ListPlaylistsById($ids: [ID!]!, $limit: Int, $offset: Int, $withVideos: Boolean!) {
      result: playlists(ids: $ids, limit: $limit, offset: $offset) { pagination { limit offset sortDirection totalCount } results { ${PLAYLIST} } }
    }`,
    variables: { ids: 'query.ids', limit: 'query.limit', offset: 'query.offset', withVideos: { given: 'query.projection.video' } },
    projection: { source: 'query.projection', at: 'results', ignore: ['video'] },
    keyBy: { at: 'results', key: '_id' },
    response: ref('PlaylistsById'),
  },
  {
    operationId: 'validatePlaylistReferences',
    method: 'get',
    path: '/playlist/v1/validate-references/{id}',
    summary: 'What points at the playlist (panels that play it)',
    tag: 'Playlists',
    auth: SITE_ID,
    params: [id('id', 'playlist ID')],
    document: /* GraphQL */ `query PlaylistReferences($id: ID!) { result: playlistReferences(id: $id) { ${REFERENCE} } }`,
    variables: { id: 'path.id' },
    response: arrayOf(ref('ContentReference')),
  },
  {
    operationId: 'importPlaylist',
    callsOut: true,
    readsDocument: 'the playlist document at the URL',
    method: 'post',
    path: '/playlist/v1/external/import/videoplatform',
    summary:
      'Import a playlist from a YouTube, PeerTube or Dailymotion playlist URL, an M3U/M3U8 media playlist or a media RSS feed (400: a URL it cannot use; 413: a document over 5 MiB; 422: not a playlist of videos, an HLS stream playlist, or over 5,000 videos; 502: the platform failed)',
    tag: 'Playlists',
    auth: ADMIN,
    body: {
      schema: { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string', minLength: 1, maxLength: 2048 } } },
      required: true,
    },
    document: /* GraphQL */ `mutation ImportPlaylist($url: String!, $withVideos: Boolean! = true) { result: importPlaylist(url: $url) { ${PLAYLIST} } }`,
    variables: { url: 'body.url' },
    response: ref('Playlist'),
  },
  {
    operationId: 'getPlaylist',
    method: 'get',
    path: '/playlist/v1/{id}',
    summary: 'One playlist',
    tag: 'Playlists',
    auth: SITE_ID,
    params: [id('id', 'playlist ID')],
    document: /* GraphQL */ `query GetPlaylist($id: ID!, $withVideos: Boolean! = false) { result: playlist(id: $id) { ${PLAYLIST} } }`,
    variables: { id: 'path.id' },
    response: ref('Playlist'),
  },
  {
    operationId: 'updatePlaylist',
    method: 'post',
    path: '/playlist/v1/{id}',
    summary: 'Update what is given of a playlist: title, description, members or tags (absent fields keep their value)',
    tag: 'Playlists',
    auth: ADMIN,
    params: [id('id', 'playlist ID')],
    body: {
      schema: { type: 'object', additionalProperties: false, properties: { ...playlistFields, created: epochMs, modified: epochMs } },
      required: true,
      readOnly: [...READ_ONLY, 'siteId'],
    },
    document: /* GraphQL */ `mutation UpdatePlaylist($id: ID!, $input: PlaylistUpdateInput!, $withVideos: Boolean! = false) { result: updatePlaylist(id: $id, input: $input) { ${PLAYLIST} } }`,
    variables: { id: 'path.id', input: { title: 'body.title', description: 'body.description', members: 'body.members', tags: 'body.tags' } },
    response: ref('Playlist'),
  },
  {
    operationId: 'deletePlaylist',
    method: 'delete',
    path: '/playlist/v1/{id}',
    summary: 'Delete a playlist',
    tag: 'Playlists',
    auth: ADMIN,
    params: [id('id', 'playlist ID')],
    document: /* GraphQL */ `mutation DeletePlaylist($id: ID!) { result: deletePlaylist(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
];
