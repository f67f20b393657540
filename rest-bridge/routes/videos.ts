/**
 * Videos (ours, docs/design.md "The show"): a channel's videos newest first, and what an admin changes in one —
 * its title, description and the entitlements (`subscriptions`) the content check asks of viewers.
 * Answered by the content subgraph. The provider's VOD delivery (POST /video/v3/vod) is in streams.ts.
 */
import { SITE_ADMIN, SITE_ID, arrayOf, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { VIDEO, limit, obj, offset, query } from './shared';

const updateVideoBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 5000 },
    subscriptions: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1 }, description: 'entitlement SKUs of the site; [] = free' },
  },
};

/** A clip to cut (ours): exactly one source, checked by the operation (400 naming the field). */
const createClipBody: JsonSchema = {
  type: 'object',
  required: ['startSecond', 'durationSeconds', 'title'],
  additionalProperties: false,
  properties: {
    sourceVideoId: { type: 'string', minLength: 1, description: 'a delivered recording of the site (a Video a provider’s VOD became)' },
    channelId: { type: 'string', minLength: 1, description: 'a channel whose stream is live and recording: cut from the live window' },
    startSecond: { type: 'integer', minimum: 0, description: 'from the recording’s start, or the show’s (channelStatus.streamSecond)' },
    durationSeconds: { type: 'integer', minimum: 1, maximum: 300 },
    title: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

/** Components of the OpenAPI document these routes refer to. */
export const videoSchemas: Record<string, JsonSchema> = {
  VideoList: obj({
    results: arrayOf(ref('Video')),
    pagination: obj({ limit: { type: 'integer' }, offset: { type: 'integer' }, totalCount: { type: 'integer' } }),
  }),
};

export const videoRoutes: RouteSpec[] = [
  {
    operationId: 'listChannelVideos',
    method: 'get',
    path: '/video/v3/',
    summary: 'A channel’s videos (its recordings and others), newest first; each url only when the caller may play it (with D, always)',
    tag: 'Videos',
    auth: SITE_ID,
    params: [
      query('channelId', { type: 'string', minLength: 1 }, true, 'the channel'),
      limit,
      offset,
      {
        name: 'x-service-device-id',
        in: 'header',
        schema: { type: 'string', minLength: 1, maxLength: 128 },
        description: 'the viewer’s device, weighed against the site’s device limit (none: a new device)',
      },
    ],
    document: /* GraphQL */ `query ListChannelVideos($channelId: ID!, $limit: Int, $offset: Int, $deviceId: String) {
      result: channelVideos(channelId: $channelId, limit: $limit, offset: $offset, deviceId: $deviceId) { results { ${VIDEO} } pagination { limit offset totalCount } } }`,
    variables: { channelId: 'query.channelId', limit: 'query.limit', offset: 'query.offset', deviceId: 'header.x-service-device-id' },
    response: ref('VideoList'),
  },
  {
    operationId: 'updateVideo',
    method: 'put',
    path: '/video/v3/{id}',
    summary: 'Change a video’s title, description or entitlements (subscriptions: SKUs of the site)',
    tag: 'Videos',
    auth: SITE_ADMIN,
    params: [id('id', 'video ID')],
    body: {
      schema: updateVideoBody,
      required: true,
      readOnly: ['_id', 'created', 'modified', 'siteId', 'type', 'url', 'durationSeconds', 'player', 'thumbnail', 'uploadStatus', 'tags'],
    },
    document: /* GraphQL */ `mutation UpdateVideo($id: ID!, $input: UpdateVideoInput!) { result: updateVideo(id: $id, input: $input) { ${VIDEO} } }`,
    variables: { id: 'path.id', input: 'body' },
    response: ref('Video'),
  },
  {
    operationId: 'createClip',
    callsOut: true,
    method: 'post',
    path: '/video/v3/clips',
    summary:
      'Cut a clip without re-encoding (ours): a range of a delivered recording or of a live channel’s window, cut by the provider (createClip) into a Video of the channel with its source’s entitlements',
    tag: 'Videos',
    auth: SITE_ADMIN,
    body: { schema: createClipBody, required: true },
    document: /* GraphQL */ `mutation CreateClip($input: CreateClipInput!) { result: createClip(input: $input) { ${VIDEO} } }`,
    variables: { input: 'body' },
    status: 201,
    response: ref('Video'),
  },
  {
    operationId: 'deleteVideo',
    callsOut: true,
    method: 'delete',
    path: '/video/v3/{id}',
    summary: 'Delete a video: a delivered recording is deleted at its provider first (deleteVod), then never offered or listed again',
    tag: 'Videos',
    auth: SITE_ADMIN,
    params: [id('id', 'video ID')],
    document: /* GraphQL */ `mutation DeleteVideo($id: ID!) { result: deleteVideo(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
];
