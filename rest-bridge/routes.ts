/**
 * THE route table: every REST path stagegraph serves, as data. Grouped by the subgraph that answers.
 */
import { arrayOf, broadcastBody, createOverlayBody, ref, updateOverlayBody } from './schemas';
import type { ParamSpec, RouteSpec } from './table';

const ADMIN = [['C', 'D'], ['C', 'J']] as const;
const id = (name = 'id', description = 'resource ID'): ParamSpec => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

// ---------------------------------------------------------------- overlays

const OVERLAY = /* GraphQL */ `_id: id siteId name description type contents cta { type data } duration created modified`;
const BROADCAST = /* GraphQL */ `broadcastId channelId tagId variables startedAt expiresAt overlay { _id: id name type contents cta { type data } duration }`;

const broadcastVariables = {
  duration: 'body.duration',
  channelId: ['body.channelId', 'body.targetId'],
  variables: 'body.variables',
} as const;

const overlayRoutes: RouteSpec[] = [
  {
    operationId: 'listOverlays',
    method: 'get',
    path: '/overlay/v1',
    summary: 'List the overlays of the site',
    tag: 'Overlays',
    auth: ADMIN,
    document: /* GraphQL */ `query ListOverlays { result: overlays { ${OVERLAY} } }`,
    response: arrayOf(ref('Overlay')),
  },
  {
    operationId: 'createOverlay',
    method: 'post',
    path: '/overlay/v1',
    summary: 'Create an overlay (template or instance); keep the returned _id to broadcast it',
    tag: 'Overlays',
    auth: ADMIN,
    body: { schema: createOverlayBody, required: true },
    document: /* GraphQL */ `mutation CreateOverlay($input: CreateOverlayInput!) { result: createOverlay(input: $input) { ${OVERLAY} } }`,
    variables: { input: 'body' },
    response: ref('Overlay'),
  },
  {
    operationId: 'getOverlay',
    method: 'get',
    path: '/overlay/v1/{id}',
    summary: 'Get one overlay',
    tag: 'Overlays',
    auth: ADMIN,
    params: [id()],
    document: /* GraphQL */ `query GetOverlay($id: ID!) { result: overlay(id: $id) { ${OVERLAY} } }`,
    variables: { id: 'path.id' },
    response: ref('Overlay'),
  },
  {
    operationId: 'updateOverlay',
    method: 'put',
    path: '/overlay/v1/{id}',
    summary: 'Update any of an overlay’s fields',
    tag: 'Overlays',
    auth: ADMIN,
    params: [id()],
    body: { schema: updateOverlayBody, required: true },
    document: /* GraphQL */ `mutation UpdateOverlay($id: ID!, $input: UpdateOverlayInput!) { result: updateOverlay(id: $id, input: $input) { ${OVERLAY} } }`,
    variables: {
      id: 'path.id',
      input: { name: 'body.name', description: 'body.description', type: 'body.type', contents: 'body.contents', cta: 'body.cta', duration: 'body.duration', siteId: 'body.siteId' },
    },
    response: ref('Overlay'),
  },
  {
    operationId: 'broadcastOverlay',
    method: 'post',
    path: '/overlay/v1/broadcast/{id}',
    summary: 'Show an overlay to the live viewers of a channel, or of every channel of the site',
    tag: 'Overlays',
    auth: ADMIN,
    params: [id('id', 'overlay ID')],
    body: { schema: broadcastBody },
    document: /* GraphQL */ `mutation BroadcastOverlay($id: ID!, $input: BroadcastOverlayInput) { result: broadcastOverlay(id: $id, input: $input) { ${BROADCAST} } }`,
    variables: { id: 'path.id', input: broadcastVariables },
    envelope: 'success',
    response: ref('OverlayBroadcast'),
  },
  {
    operationId: 'clearAllBroadcasts',
    method: 'post',
    path: '/overlay/v1/clear-broadcast',
    summary: 'Take down every live broadcast of the site',
    tag: 'Overlays',
    auth: ADMIN,
    document: /* GraphQL */ `mutation ClearAllBroadcasts { result: clearOverlayBroadcasts { success cleared message } }`,
    response: ref('ClearBroadcastsResult'),
  },
  {
    operationId: 'clearChannelBroadcasts',
    method: 'post',
    path: '/overlay/v1/clear-broadcast/{targetId}',
    summary: 'Take down the live broadcasts targeted at one channel',
    tag: 'Overlays',
    auth: ADMIN,
    params: [id('targetId', 'channel ID')],
    document: /* GraphQL */ `mutation ClearChannelBroadcasts($channelId: ID!) { result: clearOverlayBroadcasts(channelId: $channelId) { success cleared message } }`,
    variables: { channelId: 'path.targetId' },
    response: ref('ClearBroadcastsResult'),
  },
  {
    operationId: 'broadcastOverlayToTag',
    method: 'post',
    path: '/broadcast/{id}/tag/{tagId}',
    summary: 'Show an overlay only to live viewers whose account carries a tag',
    tag: 'Overlays',
    auth: ADMIN,
    params: [id('id', 'overlay ID'), id('tagId', 'account tag')],
    body: { schema: broadcastBody },
    document: /* GraphQL */ `mutation BroadcastOverlayToTag($id: ID!, $tagId: ID!, $input: BroadcastOverlayInput) { result: broadcastOverlayToTag(id: $id, tagId: $tagId, input: $input) { ${BROADCAST} } }`,
    variables: { id: 'path.id', tagId: 'path.tagId', input: broadcastVariables },
    envelope: 'success',
    response: ref('OverlayBroadcast'),
  },
];

export const routes: readonly RouteSpec[] = [...overlayRoutes];
