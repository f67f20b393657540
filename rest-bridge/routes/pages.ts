/**
 * Pages and channels (seed 001): both read forms (/page/v2 and /pages/v2), configuration, content check, writes
 * and cloning; answered by the content subgraph.
 */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { THEME, VIDEO, freeObject, nullableStr, obj, str, strings, tags } from './shared';

const PAGE = /* GraphQL */ `_id: id slug site_id: siteId collection type base_language: baseLanguage active_renderers: activeRenderers renderers seo style data metadata tags created modified last_modified: lastModified`;
const PAGE_SUMMARY = /* GraphQL */ `_id: id base_language: baseLanguage created modified tags`;

const CONFIGURATION = /* GraphQL */ `panels { _id: id slug panel_name: panelName panel_type: panelType icon_name: iconName renderer } page { _id: id slug type name } insights { _id: id version } site { _id: id checkout_url: checkoutUrl } theme { ${THEME} }`;
const CONTENT_CHECK = /* GraphQL */ `canIPlayResponse {
  contentCheck { access live offset previewTimeRemainingSeconds userHasChannelGateEntitlement userHasVideoEntitlement video { video { ${VIDEO} } } }
  deviceCheck { accountDevices accountOverDeviceLimit siteDeviceLimit }
  error { type message }
} channel { ${PAGE} }`;

const pageFields: Record<string, JsonSchema> = {
  _id: str,
  slug: str,
  site_id: str,
  collection: { type: 'string', enum: ['pages'] },
  type: { type: 'string', enum: ['channel', 'landing'] },
  base_language: str,
  active_renderers: freeObject('{ livestream, sidebar }'),
  renderers: freeObject('{ livestream { livestream_published, video_id, stream_id, … }, sidebar { items [{ array_id, id }] } }'),
  seo: freeObject('{ title, description, image, keywords }'),
  style: freeObject('{ channel_background_color }'),
  data: freeObject('name, gate, schedule, content, theme, …'),
  metadata: freeObject('{ external_field_1 … external_field_5 }'),
  tags,
  created: epochMs,
  modified: epochMs,
  last_modified: epochMs,
};

/** Components of the OpenAPI document these routes refer to. */
export const pageSchemas: Record<string, JsonSchema> = {
  Page: { type: 'object', required: ['_id', 'slug', 'site_id', 'type'], properties: pageFields },
  PageConfiguration: obj({
    panels: arrayOf(
      obj({
        _id: str,
        slug: str,
        panel_name: str,
        panel_type: str,
        icon_name: nullableStr,
        renderer: { type: 'object', description: 'ours: the renderer a viewer draws (no chat word lists)' },
      }),
    ),
    page: obj({ _id: str, slug: str, type: str, name: str }),
    insights: obj({ _id: { type: 'string', description: 'token' }, version: str }),
    site: obj({ _id: str, checkout_url: { ...nullableStr, description: 'ours: settings.checkout_url, where Buy goes (with ?sku=)' } }),
    theme: ref('Theme'),
  }),
  ContentCheck: obj({
    canIPlayResponse: obj({
      contentCheck: obj({
        access: { type: 'string', enum: ['full', 'preview', 'none'] },
        live: { type: 'boolean' },
        offset: { type: 'number', description: 'seconds into the scheduled video' },
        previewTimeRemainingSeconds: { type: 'number' },
        userHasChannelGateEntitlement: { type: 'boolean' },
        userHasVideoEntitlement: { type: 'boolean' },
        video: obj({ video: { oneOf: [ref('Video'), { type: 'null' }] } }),
      }),
      deviceCheck: obj({
        accountDevices: { type: 'object', additionalProperties: str },
        accountOverDeviceLimit: { type: 'boolean' },
        siteDeviceLimit: { type: 'integer' },
      }),
      error: { oneOf: [obj({ type: str, message: str }), { type: 'null' }] },
    }),
    channel: ref('Page'),
  }),
};

/** A part of the page document: null removes it (a read answers null for a part the page has not). */
const json = (description: string): JsonSchema => ({ type: ['object', 'null'], description: `${description}; null removes it` });

const pageBodyFields: Record<string, JsonSchema> = {
  slug: { type: 'string', minLength: 1, maxLength: 128 },
  type: { type: 'string', enum: ['channel', 'landing'] },
  base_language: { type: 'string', maxLength: 35 },
  site_id: { type: 'string' },
  collection: { type: 'string', enum: ['pages'] },
  active_renderers: {
    type: ['object', 'null'],
    description: 'null removes it',
    additionalProperties: false,
    properties: { livestream: { type: 'boolean' }, sidebar: { type: 'boolean' } },
  },
  renderers: json('{ livestream, sidebar { items [{ array_id, id }] } }'),
  seo: json('{ title, description, image, keywords }'),
  style: json('{ channel_background_color }'),
  data: json(
    'name, gate { active, kind: none | password | login | subscription, gate { subscriptions, password }, preview_seconds }, schedule, content, theme, …',
  ),
  metadata: {
    type: ['object', 'null'],
    description: 'null removes it',
    additionalProperties: false,
    properties: Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`external_field_${n}`, { type: ['string', 'null'], maxLength: 200 }])),
  },
  tags: strings(100),
};
const pageParts = {
  activeRenderers: 'body.active_renderers',
  renderers: 'body.renderers',
  seo: 'body.seo',
  style: 'body.style',
  data: 'body.data',
  metadata: 'body.metadata',
  tags: 'body.tags',
  baseLanguage: 'body.base_language',
} as const;

function pageReadRoutes(base: '/page/v2' | '/pages/v2', suffix: string): RouteSpec[] {
  const op = (name: string) => `${name}${suffix}`;
  const tag = 'Pages and channels';
  return [
    {
      operationId: op('listPages'),
      method: 'get',
      path: `${base}/`,
      summary:
        'Pages of the site: by ids, sorted, projected, searched on data.name; without ids or projection each is { _id, base_language, created, modified, tags }',
      tag,
      auth: SITE_ID,
      params: [
        { name: 'ids', in: 'query', schema: { type: 'array', maxItems: 500, items: { type: 'string' } }, description: 'JSON array of page IDs of the site' },
        {
          name: 'options',
          in: 'query',
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: {
              sortBy: { type: 'string', enum: ['created', 'modified', 'name', 'slug'] },
              sortDirection: { type: 'integer', enum: [1, -1] },
              sort: { type: 'integer', enum: [1, -1], description: 'the same as sortDirection' },
              projection: { type: 'object', additionalProperties: { enum: [0, 1, true, false] } },
            },
          },
          description: 'JSON { sortBy, sortDirection, projection }',
        },
        {
          name: 'search',
          in: 'query',
          schema: { type: 'object', additionalProperties: false, properties: { 'data.name': { type: 'string', maxLength: 200 } } },
          description: 'JSON {"data.name": "part of the name"} (any case)',
        },
      ],
      document: /* GraphQL */ `query ListPages($ids: [ID!], $search: String, $sortBy: PageSortField, $sortDirection: Int, $full: Boolean!) {
        result: pages(ids: $ids, search: $search, sortBy: $sortBy, sortDirection: $sortDirection) { ${PAGE_SUMMARY} ... @include(if: $full) { ${PAGE} } }
      }`,
      variables: {
        ids: 'query.ids',
        search: 'query.search.data.name',
        sortBy: 'query.options.sortBy',
        sortDirection: ['query.options.sortDirection', 'query.options.sort'],
        full: { given: ['query.ids', 'query.options.projection'] },
      },
      projection: { source: 'query.options.projection' },
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('listChannels'),
      method: 'get',
      path: `${base}/channel`,
      summary: 'The channels of the site',
      tag,
      auth: SITE_ID,
      document: /* GraphQL */ `query ListChannels { result: pages(type: channel) { ${PAGE} } }`,
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('listChannelsAndLandings'),
      method: 'get',
      path: `${base}/channel/channels-landings`,
      summary: 'The channels and landing pages of the site',
      tag,
      auth: SITE_ID,
      document: /* GraphQL */ `query ListChannelsAndLandings { result: pages(types: [channel, landing]) { ${PAGE} } }`,
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('listLandings'),
      method: 'get',
      path: `${base}/landing`,
      summary: 'The landing pages of the site',
      tag,
      auth: SITE_ID,
      document: /* GraphQL */ `query ListLandings { result: pages(type: landing) { ${PAGE} } }`,
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('getPageConfigurationByMetadata'),
      method: 'get',
      path: `${base}/configuration`,
      summary: 'What a player needs to draw the page whose metadata (external_field_1..5) holds the value',
      tag,
      auth: SITE_ID,
      params: [{ name: 'metadata', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 200 } }],
      document: /* GraphQL */ `query PageConfigurationByMetadata($metadata: String!) { result: pageConfiguration(metadata: $metadata) { ${CONFIGURATION} } }`,
      variables: { metadata: 'query.metadata' },
      cache: 'shared',
      subgraph: 'content',
      response: ref('PageConfiguration'),
    },
    {
      operationId: op('getPageConfiguration'),
      method: 'get',
      path: `${base}/configuration/{pageId}`,
      summary: 'What a player needs to draw a page: its panels, the page, insights, the site and the theme',
      tag,
      auth: SITE_ID,
      params: [{ name: 'pageId', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' }, description: 'page ID' }],
      document: /* GraphQL */ `query PageConfiguration($pageId: ID!) { result: pageConfiguration(pageId: $pageId) { ${CONFIGURATION} } }`,
      variables: { pageId: 'path.pageId' },
      cache: 'shared',
      subgraph: 'content',
      response: ref('PageConfiguration'),
    },
    ...(['id', 'slug'] as const).map((by): RouteSpec => ({
      operationId: op(by === 'id' ? 'checkContentById' : 'checkContentBySlug'),
      method: 'get',
      path: by === 'id' ? `${base}/content/id/{pageId}` : `${base}/content/slug/{pageSlug}`,
      summary: 'Whether the caller may play the channel now (gate, entitlements, preview, live, device limit), and the channel',
      tag,
      auth: [['C'], ['J']],
      params: [
        by === 'id' ? id('pageId', 'page ID') : id('pageSlug', 'page slug'),
        {
          name: 'x-service-device-id',
          in: 'header',
          required: true,
          schema: { type: 'string', minLength: 1, maxLength: 128 },
          description: 'the viewer’s device',
        },
        { name: 'x-service-gate-password', in: 'header', schema: { type: 'string', maxLength: 200 }, description: 'the password of a password gate' },
      ],
      document: /* GraphQL */ `query CheckContent($pageId: ID, $slug: String, $deviceId: String!, $password: String) {
          result: contentCheck(pageId: $pageId, slug: $slug, deviceId: $deviceId, password: $password) { ${CONTENT_CHECK} }
        }`,
      variables: {
        ...(by === 'id' ? { pageId: 'path.pageId' } : { slug: 'path.pageSlug' }),
        deviceId: 'header.x-service-device-id',
        password: 'header.x-service-gate-password',
      },
      cache: 'private',
      subgraph: 'content',
      quick: 'contentCheck',
      response: ref('ContentCheck'),
    })),
  ];
}

/** GET {base}/{id}, after every other read path of the base so it does not swallow them. */
const getPageRoute = (base: '/page/v2' | '/pages/v2', suffix: string): RouteSpec => ({
  operationId: `getPage${suffix}`,
  method: 'get',
  path: `${base}/{id}`,
  summary: 'One page of the site',
  tag: 'Pages and channels',
  auth: SITE_ID,
  params: [id('id', 'page ID')],
  document: /* GraphQL */ `query GetPage($id: ID!) { result: page(id: $id) { ${PAGE} } }`,
  variables: { id: 'path.id' },
  response: ref('Page'),
});

export const pageRoutes: RouteSpec[] = [
  ...pageReadRoutes('/page/v2', ''),
  ...pageReadRoutes('/pages/v2', 'V2'),
  getPageRoute('/page/v2', ''),
  getPageRoute('/pages/v2', 'V2'),
  {
    operationId: 'createPage',
    method: 'post',
    path: '/pages/v3',
    summary: 'Create a page (channel or landing); its slug is unique in the site (409 otherwise)',
    tag: 'Pages and channels',
    auth: ADMIN,
    body: {
      schema: {
        type: 'object',
        required: ['slug', 'type'],
        additionalProperties: false,
        properties: { ...pageBodyFields, template_id: { ...str, description: 'A channel template whose panels, rules and theme the channel starts with' } },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation CreatePage($input: PageInput!) { result: createPage(input: $input) { ${PAGE} } }`,
    variables: { input: { slug: 'body.slug', type: 'body.type', siteId: 'body.site_id', templateId: 'body.template_id', ...pageParts } },
    response: ref('Page'),
  },
  {
    operationId: 'updatePage',
    method: 'put',
    path: '/pages/v3/{id}',
    summary:
      'Update what is given of a page: the parts given (active_renderers, renderers, seo, style, data, metadata, slug, tags) replace the stored ones, absent parts keep their value',
    tag: 'Pages and channels',
    auth: ADMIN,
    params: [id('id', 'page ID')],
    body: {
      schema: { type: 'object', additionalProperties: false, properties: { _id: str, ...pageBodyFields } },
      required: true,
      readOnly: [...READ_ONLY, 'last_modified', 'site_id'],
    },
    document: /* GraphQL */ `mutation UpdatePage($id: ID!, $input: PageUpdateInput!) { result: updatePage(id: $id, input: $input) { ${PAGE} } }`,
    variables: { id: 'path.id', input: { slug: 'body.slug', ...pageParts } },
    response: ref('Page'),
  },
  {
    operationId: 'deletePage',
    method: 'delete',
    path: '/pages/v3/{id}',
    summary: 'Delete a page',
    tag: 'Pages and channels',
    auth: ADMIN,
    params: [id('id', 'page ID')],
    document: /* GraphQL */ `mutation DeletePage($id: ID!) { result: deletePage(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
  {
    operationId: 'clonePage',
    method: 'post',
    path: '/page/v2/clone/{basePageId}',
    summary: 'A deep copy of a page with a new ID and slug, its sidebar panels copied too',
    tag: 'Pages and channels',
    auth: [['J'], ['C', 'D']],
    params: [
      id('basePageId', 'the page to copy'),
      { name: 'localizedTitle', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 200 }, description: 'data.name of the copy' },
      { name: 'localizedSlug', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 128 }, description: 'slug of the copy (default: <slug>-copy)' },
    ],
    document: /* GraphQL */ `mutation ClonePage($id: ID!, $localizedTitle: String, $localizedSlug: String) {
      result: clonePage(id: $id, localizedTitle: $localizedTitle, localizedSlug: $localizedSlug) { ${PAGE} }
    }`,
    variables: { id: 'path.basePageId', localizedTitle: 'query.localizedTitle', localizedSlug: 'query.localizedSlug' },
    response: ref('Page'),
  },
];
