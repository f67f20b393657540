/**
 * REST routes answered by the content subgraph (seed 001: Pages and channels, Channel templates, Panels,
 * Playlists, Polls, Quests, Calendar events, Site; DESIGN.md paths where the seed shows none), and our
 * webhook endpoints (the seed leaves how a site registers webhook targets to us).
 */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { AuthCode, JsonSchema, ParamSpec, RouteSpec } from '../table';

// ------------------------------------------------------------------------------- selections (seed shapes)

const PAGE = /* GraphQL */ `_id: id slug site_id: siteId collection type base_language: baseLanguage active_renderers: activeRenderers renderers seo style data metadata tags created modified last_modified: lastModified`;
const PAGE_SUMMARY = /* GraphQL */ `_id: id base_language: baseLanguage created modified tags`;
const VIDEO = /* GraphQL */ `_id: id siteId title description type url durationSeconds player thumbnail uploadStatus subscriptions: requiredEntitlements { sku } tags created modified`;
const THEME = /* GraphQL */ `_id: id name type mode button { borderRadius textCapitalization } colors typography { body headline } creator owner tags created modified`;
const SITE = /* GraphQL */ `_id: id name deviceLimit settings theme { ${THEME} } created modified`;
const CONFIGURATION = /* GraphQL */ `panels { _id: id slug panel_name: panelName panel_type: panelType icon_name: iconName } page { _id: id slug type name } insights { _id: id version } site { _id: id } theme { ${THEME} }`;
const CONTENT_CHECK = /* GraphQL */ `canIPlayResponse {
  contentCheck { access live offset previewTimeRemainingSeconds userHasChannelGateEntitlement userHasVideoEntitlement video { video { ${VIDEO} } } }
  deviceCheck { accountDevices accountOverDeviceLimit siteDeviceLimit }
  error { type message }
} channel { ${PAGE} }`;
const TEMPLATE = /* GraphQL */ `_id: id title siteId icon description panels { collection creator owner site_id slug type } rules theme creator owner archived created modified`;
const PANEL = /* GraphQL */ `_id: id renderer collection site_id: siteId slug type created last_modified: modified`;
const LIST_PAGINATION = /* GraphQL */ `pagination { limit offset searchFields sortDirection totalCount }`;
const PLAYLIST = /* GraphQL */ `_id: id siteId title description members { id schema video @include(if: $withVideos) { ${VIDEO} } } tags created modified`;
const POLL = /* GraphQL */ `_id: id siteId type name question answers { id text imageUrl } correctAnswerId open created modified`;
const QUEST = /* GraphQL */ `_id: id siteId title description actions { arrayId body callToAction channelId kind timeMaximum timeMinimum validationValue valueRequired } channelIds claimedMessage rewardDescription rewardImage rewardType timeMinimum timeMaximum webhookId webhookType webhookValue tags created modified`;
const CALENDAR_EVENT = /* GraphQL */ `_id: id siteId titleRaw descriptionRaw categories { id title label { color id title } } date { startTimestamp endTimestamp timeZone useEndTime } image { show src } thirdPartyEventId created modified`;
const WEBHOOK = /* GraphQL */ `_id: id siteId url events description active created modified`;
const WEBHOOK_WITH_SECRET = /* GraphQL */ `${WEBHOOK} secret`;
const DELIVERY = /* GraphQL */ `_id: id endpointId event status attempts nextAttemptAt lastStatusCode lastError deliveredAt body created`;
const REFERENCE = /* GraphQL */ `_id: id collection name`;

// ------------------------------------------------------------------------------- response components

const str: JsonSchema = { type: 'string' };
const nullableStr: JsonSchema = { type: ['string', 'null'] };
const nullableNum: JsonSchema = { type: ['number', 'null'] };
const obj = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema => ({ type: 'object', required, properties });
const freeObject = (description: string): JsonSchema => ({ type: ['object', 'null'], description });
const tags = arrayOf(str);
const pagination = obj({ limit: { type: 'integer' }, offset: { type: 'integer' }, searchFields: arrayOf(str), sortDirection: { type: 'integer' }, totalCount: { type: 'integer' } });

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
export const contentSchemas: Record<string, JsonSchema> = {
  Page: { type: 'object', required: ['_id', 'slug', 'site_id', 'type'], properties: pageFields },
  Video: obj({
    _id: str, siteId: str, title: str, description: str, type: str, url: str, durationSeconds: nullableNum, player: str, thumbnail: nullableStr,
    uploadStatus: str, subscriptions: arrayOf(obj({ sku: str })), tags, created: epochMs, modified: epochMs,
  }),
  Theme: obj({
    _id: str, name: str, type: str, mode: str, button: obj({ borderRadius: str, textCapitalization: str }), colors: { type: 'object', additionalProperties: str },
    typography: obj({ body: str, headline: str }), creator: nullableStr, owner: nullableStr, tags, created: nullableNum, modified: nullableNum,
  }),
  Site: obj({ _id: str, name: str, deviceLimit: { type: 'integer', description: '0 = no limit' }, settings: freeObject('free-form; settings.theme is the theme'), theme: ref('Theme'), created: epochMs, modified: epochMs }),
  PageConfiguration: obj({
    panels: arrayOf(obj({ _id: str, slug: str, panel_name: str, panel_type: str, icon_name: nullableStr })),
    page: obj({ _id: str, slug: str, type: str, name: str }),
    insights: obj({ _id: { type: 'string', description: 'token' }, version: str }),
    site: obj({ _id: str }),
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
      deviceCheck: obj({ accountDevices: { type: 'object', additionalProperties: str }, accountOverDeviceLimit: { type: 'boolean' }, siteDeviceLimit: { type: 'integer' } }),
      error: { oneOf: [obj({ type: str, message: str }), { type: 'null' }] },
    }),
    channel: ref('Page'),
  }),
  ChannelTemplate: obj({
    _id: str, title: str, siteId: str, icon: nullableStr, description: str,
    panels: arrayOf({ type: 'object', properties: { collection: str, creator: str, owner: str, site_id: str, slug: str, type: str } }),
    rules: arrayOf(str), theme: nullableStr, creator: str, owner: str, archived: { type: 'boolean' }, created: epochMs, modified: epochMs,
  }),
  Panel: obj({ _id: str, renderer: { type: 'object', description: 'what makes the panel a chat, store, schedule, …' }, collection: { type: 'string', enum: ['panels'] }, site_id: str, slug: str, type: str, created: epochMs, last_modified: epochMs }),
  PanelList: obj({ pagination, results: arrayOf(ref('Panel')) }),
  Playlist: obj({
    _id: str, siteId: str, title: str, description: str,
    members: arrayOf({ type: 'object', required: ['id', 'schema'], properties: { id: str, schema: str, video: { oneOf: [ref('Video'), { type: 'null' }], description: 'with projection {"video": 1}' } } }),
    tags, created: epochMs, modified: epochMs,
  }),
  PlaylistList: obj({
    pagination: obj({ limit: { type: 'integer' }, offset: { type: 'integer' }, pageResults: { type: 'integer' }, searchFields: arrayOf(str), sortBy: str, sortDirection: str, totalCount: { type: 'integer' } }),
    results: arrayOf(ref('Playlist')),
  }),
  PlaylistsById: {
    type: 'object',
    required: ['pagination'],
    properties: { pagination: obj({ limit: { type: 'integer' }, offset: { type: 'integer' }, sortDirection: { type: 'integer' }, totalCount: { type: 'integer' } }) },
    additionalProperties: ref('Playlist'),
    description: 'the pagination, and one entry per playlist ID holding the playlist',
  },
  Poll: obj({
    _id: str, siteId: str, type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] }, name: str, question: str,
    answers: arrayOf(obj({ id: str, text: str, imageUrl: nullableStr })), correctAnswerId: nullableStr, open: { type: 'boolean' }, created: epochMs, modified: epochMs,
  }),
  Quest: obj({
    _id: str, siteId: str, title: str, description: str,
    actions: arrayOf({ type: 'object', properties: { arrayId: nullableStr, body: nullableStr, callToAction: nullableStr, channelId: nullableStr, kind: str, timeMaximum: nullableNum, timeMinimum: nullableNum, validationValue: nullableStr, valueRequired: nullableNum } }),
    channelIds: arrayOf(str), claimedMessage: str, rewardDescription: str, rewardImage: nullableStr,
    rewardType: { type: 'string', enum: ['raffle', 'prize', 'webhook', 'prize-service-specific'] },
    timeMinimum: nullableNum, timeMaximum: nullableNum, webhookId: nullableStr, webhookType: nullableStr, webhookValue: nullableNum, tags, created: epochMs, modified: epochMs,
  }),
  QuestList: obj({ pagination, results: arrayOf(ref('Quest')) }),
  CalendarLabel: obj({ color: str, id: str, title: str }),
  CalendarCategory: obj({ id: str, title: str, label: ref('CalendarLabel') }),
  CalendarEvent: obj({
    _id: str, siteId: str, titleRaw: str, descriptionRaw: str, categories: arrayOf(ref('CalendarCategory')),
    date: obj({ startTimestamp: epochMs, endTimestamp: nullableNum, timeZone: str, useEndTime: { type: 'boolean' } }),
    image: obj({ show: { type: 'boolean' }, src: nullableStr }),
    thirdPartyEventId: nullableStr, created: epochMs, modified: epochMs,
  }),
  CalendarFilter: obj({ title: str, options: arrayOf(obj({ color: str, value: str })) }),
  ContentReference: obj({ _id: str, collection: str, name: str }),
  Deleted: obj({ success: { type: 'boolean' }, _id: str }),
  WebhookEndpoint: obj({ _id: str, siteId: str, url: str, events: arrayOf(str), description: str, active: { type: 'boolean' }, created: epochMs, modified: epochMs }),
  WebhookEndpointWithSecret: {
    allOf: [ref('WebhookEndpoint'), obj({ secret: { type: 'string', description: 'whsec_…, shown only now: the HMAC-SHA256 key of x-stagegraph-signature' } })],
  },
  WebhookDelivery: obj({
    _id: str, endpointId: str, event: str, status: { type: 'string', enum: ['pending', 'delivered', 'failed'] }, attempts: { type: 'integer' },
    nextAttemptAt: nullableNum, lastStatusCode: { type: ['integer', 'null'] }, lastError: nullableStr, deliveredAt: nullableNum, body: str, created: epochMs,
  }),
};

// ------------------------------------------------------------------------------- request bodies and params

const json = (description: string): JsonSchema => ({ type: 'object', description });
const strings = (maxItems: number): JsonSchema => ({ type: 'array', maxItems, items: { type: 'string' } });

const pageBodyFields: Record<string, JsonSchema> = {
  slug: { type: 'string', minLength: 1, maxLength: 128 },
  type: { type: 'string', enum: ['channel', 'landing'] },
  base_language: { type: 'string', maxLength: 35 },
  site_id: { type: 'string' },
  collection: { type: 'string', enum: ['pages'] },
  active_renderers: {
    type: 'object',
    additionalProperties: false,
    properties: { livestream: { type: 'boolean' }, sidebar: { type: 'boolean' } },
  },
  renderers: json('{ livestream, sidebar { items [{ array_id, id }] } }'),
  seo: json('{ title, description, image, keywords }'),
  style: json('{ channel_background_color }'),
  data: json('name, gate { active, kind: none | password | login | subscription, gate { subscriptions, password }, preview_seconds }, schedule, content, theme, …'),
  metadata: {
    type: 'object',
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

const templatePanel: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { collection: str, creator: str, owner: str, site_id: str, slug: str, type: str },
};
const templateBody = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  required: ['title', 'siteId', 'panels', 'rules', 'creator', 'owner'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    siteId: str,
    icon: { type: ['string', 'null'], maxLength: 2048 },
    description: { type: ['string', 'null'], maxLength: 250 },
    panels: { type: 'array', maxItems: 100, items: templatePanel },
    rules: strings(200),
    theme: { type: ['string', 'null'], maxLength: 100 },
    creator: { type: 'string', minLength: 1 },
    owner: { type: 'string', minLength: 1 },
    ...extra,
  },
});
const templateInput = {
  title: 'body.title', siteId: 'body.siteId', icon: 'body.icon', description: 'body.description', panels: 'body.panels',
  rules: 'body.rules', theme: 'body.theme', creator: 'body.creator', owner: 'body.owner',
} as const;

const rendererBody = (required: string[]): JsonSchema => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: { renderer: { type: 'object', description: 'needs panel_type; the seed’s renderer fields are checked by type' }, siteId: str },
});

const memberSchema: JsonSchema = { type: 'object', required: ['id', 'schema'], additionalProperties: false, properties: { id: str, schema: str } };
const playlistFields: Record<string, JsonSchema> = {
  _id: str,
  title: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 5000 },
  members: { type: 'array', maxItems: 1000, items: memberSchema },
  tags: strings(100),
  siteId: str,
};

const pollFields: Record<string, JsonSchema> = {
  _id: str,
  type: { type: 'string', enum: ['poll', 'prediction', 'trivia'] },
  name: { type: 'string', minLength: 1, maxLength: 200 },
  question: { type: 'string', minLength: 1, maxLength: 1000 },
  answers: {
    type: 'array',
    description: 'ours (the seed shows no answers): absent or empty = none; otherwise 2 to 50',
    maxItems: 50,
    items: { type: 'object', required: ['text'], additionalProperties: false, properties: { id: str, text: str, imageUrl: nullableStr } },
  },
  correctAnswerId: nullableStr,
  open: { type: 'boolean' },
  siteId: str,
  created: epochMs,
  modified: epochMs,
};
const pollInput = {
  type: 'body.type', name: 'body.name', question: 'body.question', answers: 'body.answers',
  correctAnswerId: 'body.correctAnswerId', open: 'body.open', siteId: 'body.siteId',
} as const;

const questAction: JsonSchema = {
  type: 'object',
  required: ['kind'],
  additionalProperties: false,
  properties: {
    arrayId: nullableStr, body: nullableStr, callToAction: nullableStr, channelId: nullableStr,
    kind: { type: 'string', minLength: 1, maxLength: 100, description: 'answer:polls:any, answer:polls:specific, watch:any:video; another kind is kept and shown, never done by itself' },
    timeMaximum: nullableNum, timeMinimum: nullableNum, validationValue: nullableStr, valueRequired: nullableNum,
  },
};
const questBody = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  required: ['title', 'description', 'rewardDescription', 'rewardType', 'siteId', 'claimedMessage'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', minLength: 1 },
    actions: { type: 'array', maxItems: 50, items: questAction },
    channelIds: strings(500),
    claimedMessage: { type: 'string', minLength: 1 },
    rewardDescription: { type: 'string', minLength: 1 },
    rewardType: { type: 'string', enum: ['raffle', 'prize', 'webhook', 'prize-service-specific'] },
    rewardInage: { type: ['string', 'null'], description: 'the reward image URL (the seed’s request field name); stored as rewardImage' },
    rewardImage: { type: ['string', 'null'], description: 'the same as rewardInage' },
    siteId: str,
    timeMaximum: nullableNum,
    timeMinimum: nullableNum,
    webhookId: nullableStr,
    webhookType: nullableStr,
    webhookValue: nullableNum,
    tags: strings(100),
    ...extra,
  },
});
const questInput = {
  title: 'body.title', description: 'body.description', actions: 'body.actions', channelIds: 'body.channelIds', claimedMessage: 'body.claimedMessage',
  rewardDescription: 'body.rewardDescription', rewardType: 'body.rewardType', rewardImage: ['body.rewardImage', 'body.rewardInage'], siteId: 'body.siteId',
  timeMaximum: 'body.timeMaximum', timeMinimum: 'body.timeMinimum', webhookId: 'body.webhookId', webhookType: 'body.webhookType',
  webhookValue: 'body.webhookValue', tags: 'body.tags',
} as const;

const calendarBody: JsonSchema = {
  type: 'object',
  required: ['titleRaw', 'date'],
  additionalProperties: false,
  properties: {
    _id: str,
    titleRaw: { type: 'string', minLength: 1, maxLength: 1000 },
    descriptionRaw: { type: 'string', maxLength: 20000 },
    categories: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        required: ['id', 'title', 'label'],
        additionalProperties: false,
        properties: {
          id: str,
          title: str,
          label: { type: 'object', required: ['id', 'title', 'color'], additionalProperties: false, properties: { id: str, title: str, color: str } },
        },
      },
    },
    date: {
      type: 'object',
      required: ['startTimestamp', 'timeZone'],
      additionalProperties: false,
      properties: { startTimestamp: { type: 'number' }, endTimestamp: nullableNum, timeZone: str, useEndTime: { type: 'boolean' } },
    },
    image: { type: ['object', 'null'], required: ['show'], additionalProperties: false, properties: { show: { type: 'boolean' }, src: nullableStr } },
    siteId: str,
    thirdPartyEventId: nullableStr,
    created: epochMs,
    modified: epochMs,
  },
};
const calendarInput = {
  titleRaw: 'body.titleRaw', descriptionRaw: 'body.descriptionRaw', categories: 'body.categories', date: 'body.date',
  image: 'body.image', thirdPartyEventId: 'body.thirdPartyEventId', siteId: 'body.siteId',
} as const;

const webhookFields: Record<string, JsonSchema> = {
  url: { type: 'string', minLength: 1, maxLength: 2048, description: 'http(s) URL that receives signed POSTs' },
  events: { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string' }, description: 'event names: admin.channelUpdated, poll.closed, poll.resolved, quest.completed; or * for every event' },
  description: { type: 'string', maxLength: 500 },
  active: { type: 'boolean' },
};

const limit: ParamSpec = { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } };
const offset: ParamSpec = { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } };
const sortDirection: ParamSpec = { name: 'sortDirection', in: 'query', schema: { type: 'integer', enum: [1, -1] }, description: '1 ascending, -1 descending' };
const sortBy = (names: string[], fallback: string): ParamSpec => ({ name: 'sortBy', in: 'query', schema: { type: 'string', enum: names, default: fallback } });
const property = (example: string): ParamSpec => ({ name: 'property', in: 'query', schema: { type: 'string', maxLength: 300 }, description: `a filter written name=value, e.g. ${example}` });
const search = (what: string): ParamSpec => ({ name: 'search', in: 'query', schema: { type: 'string', maxLength: 200 }, description: `part of the ${what}, any case` });
const listVariables = { limit: 'query.limit', offset: 'query.offset', sortBy: 'query.sortBy', sortDirection: 'query.sortDirection' } as const;

const VIEWER: readonly (readonly AuthCode[])[] = [['C']];

// ------------------------------------------------------------------------------- pages (both read forms)

function pageReadRoutes(base: '/page/v2' | '/pages/v2', suffix: string): RouteSpec[] {
  const op = (name: string) => `${name}${suffix}`;
  const tag = 'Pages and channels';
  return [
    {
      operationId: op('listPages'),
      method: 'get',
      path: `${base}/`,
      summary: 'Pages of the site: by ids, sorted, projected, searched on data.name; without ids or projection each is { _id, base_language, created, modified, tags }',
      tag,
      auth: ADMIN,
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
      auth: ADMIN,
      document: /* GraphQL */ `query ListChannels { result: pages(type: channel) { ${PAGE} } }`,
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('listChannelsAndLandings'),
      method: 'get',
      path: `${base}/channel/channels-landings`,
      summary: 'The channels and landing pages of the site',
      tag,
      auth: ADMIN,
      document: /* GraphQL */ `query ListChannelsAndLandings { result: pages(types: [channel, landing]) { ${PAGE} } }`,
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('listLandings'),
      method: 'get',
      path: `${base}/landing`,
      summary: 'The landing pages of the site',
      tag,
      auth: ADMIN,
      document: /* GraphQL */ `query ListLandings { result: pages(type: landing) { ${PAGE} } }`,
      response: arrayOf(ref('Page')),
    },
    {
      operationId: op('getPageConfigurationByMetadata'),
      method: 'get',
      path: `${base}/configuration`,
      summary: 'What a player needs to draw the page whose metadata (external_field_1..5) holds the value',
      tag,
      auth: VIEWER,
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
      auth: VIEWER,
      params: [{ name: 'pageId', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' }, description: 'page ID' }],
      document: /* GraphQL */ `query PageConfiguration($pageId: ID!) { result: pageConfiguration(pageId: $pageId) { ${CONFIGURATION} } }`,
      variables: { pageId: 'path.pageId' },
      cache: 'shared',
      subgraph: 'content',
      response: ref('PageConfiguration'),
    },
    ...(['id', 'slug'] as const).map(
      (by): RouteSpec => ({
        operationId: op(by === 'id' ? 'checkContentById' : 'checkContentBySlug'),
        method: 'get',
        path: by === 'id' ? `${base}/content/id/{pageId}` : `${base}/content/slug/{pageSlug}`,
        summary: 'Whether the caller may play the channel now (gate, entitlements, preview, live, device limit), and the channel',
        tag,
        auth: [['C'], ['J']],
        params: [
          by === 'id' ? id('pageId', 'page ID') : id('pageSlug', 'page slug'),
          { name: 'x-service-device-id', in: 'header', required: true, schema: { type: 'string', minLength: 1, maxLength: 128 }, description: 'the viewer’s device' },
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
        response: ref('ContentCheck'),
      }),
    ),
  ];
}

/** GET {base}/{id}, after every other read path of the base so it does not swallow them. */
const getPageRoute = (base: '/page/v2' | '/pages/v2', suffix: string): RouteSpec => ({
  operationId: `getPage${suffix}`,
  method: 'get',
  path: `${base}/{id}`,
  summary: 'One page of the site',
  tag: 'Pages and channels',
  auth: ADMIN,
  params: [id('id', 'page ID')],
  document: /* GraphQL */ `query GetPage($id: ID!) { result: page(id: $id) { ${PAGE} } }`,
  variables: { id: 'path.id' },
  response: ref('Page'),
});

const pageWriteRoutes: RouteSpec[] = [
  {
    operationId: 'createPage',
    method: 'post',
    path: '/pages/v3',
    summary: 'Create a page (channel or landing); its slug is unique in the site (409 otherwise)',
    tag: 'Pages and channels',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['slug', 'type'], additionalProperties: false, properties: pageBodyFields }, required: true },
    document: /* GraphQL */ `mutation CreatePage($input: PageInput!) { result: createPage(input: $input) { ${PAGE} } }`,
    variables: { input: { slug: 'body.slug', type: 'body.type', siteId: 'body.site_id', ...pageParts } },
    response: ref('Page'),
  },
  {
    operationId: 'updatePage',
    method: 'put',
    path: '/pages/v3/{id}',
    summary: 'Change a page: the parts given (active_renderers, renderers, seo, style, data, metadata, slug, tags) replace the stored ones',
    tag: 'Pages and channels',
    auth: ADMIN,
    params: [id('id', 'page ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: { _id: str, ...pageBodyFields } }, required: true, readOnly: [...READ_ONLY, 'last_modified', 'site_id'] },
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

// ------------------------------------------------------------------------------- channel templates

const templateRoutes: RouteSpec[] = [
  {
    operationId: 'createChannelTemplate',
    method: 'post',
    path: '/page/v2/template',
    summary: 'Create a channel template',
    tag: 'Channel templates',
    auth: ADMIN,
    body: { schema: templateBody(), required: true },
    document: /* GraphQL */ `mutation CreateChannelTemplate($input: ChannelTemplateInput!) { result: createChannelTemplate(input: $input) { templateId: id } }`,
    variables: { input: templateInput },
    status: 201,
    response: obj({ templateId: str }),
  },
  {
    operationId: 'listChannelTemplates',
    method: 'get',
    path: '/page/v2/template',
    summary: 'The site’s channel templates that are not archived, searched on title and description',
    tag: 'Channel templates',
    auth: ADMIN,
    params: [limit, offset, search('title or description'), sortBy(['modified', 'created', 'title'], 'modified'), { ...sortDirection, schema: { type: 'integer', enum: [1, -1], default: -1 } }],
    document: /* GraphQL */ `query ListChannelTemplates($search: String, $limit: Int, $offset: Int, $sortBy: String, $sortDirection: Int) {
      result: channelTemplates(search: $search, limit: $limit, offset: $offset, sortBy: $sortBy, sortDirection: $sortDirection) { templates { ${TEMPLATE} } totalCount }
    }`,
    variables: { search: 'query.search', ...listVariables },
    response: obj({ templates: arrayOf(ref('ChannelTemplate')), totalCount: { type: 'integer' } }),
  },
  {
    operationId: 'getChannelTemplate',
    method: 'get',
    path: '/page/v2/template/{templateId}',
    summary: 'One channel template',
    tag: 'Channel templates',
    auth: ADMIN,
    params: [id('templateId', 'template ID')],
    document: /* GraphQL */ `query GetChannelTemplate($id: ID!) { result: channelTemplate(id: $id) { ${TEMPLATE} } }`,
    variables: { id: 'path.templateId' },
    response: ref('ChannelTemplate'),
  },
  {
    operationId: 'replaceChannelTemplate',
    method: 'put',
    path: '/page/v2/template/{templateId}',
    summary: 'Replace a channel template',
    tag: 'Channel templates',
    auth: ADMIN,
    params: [id('templateId', 'template ID')],
    body: { schema: templateBody({ _id: str, archived: { type: 'boolean' }, created: epochMs, modified: epochMs }), required: true },
    document: /* GraphQL */ `mutation ReplaceChannelTemplate($id: ID!, $input: ChannelTemplateInput!) { result: replaceChannelTemplate(id: $id, input: $input) { ${TEMPLATE} } }`,
    variables: { id: 'path.templateId', input: templateInput },
    response: ref('ChannelTemplate'),
  },
  {
    operationId: 'archiveChannelTemplate',
    method: 'delete',
    path: '/page/v2/template/{templateId}',
    summary: 'Archive a channel template (it leaves the default list); answers true',
    tag: 'Channel templates',
    auth: ADMIN,
    params: [id('templateId', 'template ID')],
    document: /* GraphQL */ `mutation ArchiveChannelTemplate($id: ID!) { result: archiveChannelTemplate(id: $id) }`,
    variables: { id: 'path.templateId' },
    response: { type: 'boolean', enum: [true] },
  },
];

// ------------------------------------------------------------------------------- panels

const panelRoutes: RouteSpec[] = [
  {
    operationId: 'listPanels',
    method: 'get',
    path: '/panel/v3/',
    summary: 'The site’s panels, a page at a time, optionally filtered on a property',
    tag: 'Panels',
    auth: ADMIN,
    params: [limit, offset, sortBy(['created', 'modified', 'last_modified', 'slug', 'type', 'panel_type', 'panel_name'], 'created'), sortDirection, property('panel_type=chat')],
    document: /* GraphQL */ `query ListPanels($limit: Int, $offset: Int, $sortBy: String, $sortDirection: Int, $property: String) {
      result: panels(limit: $limit, offset: $offset, sortBy: $sortBy, sortDirection: $sortDirection, property: $property) { ${LIST_PAGINATION} results { ${PANEL} } }
    }`,
    variables: { ...listVariables, property: 'query.property' },
    response: ref('PanelList'),
  },
  {
    operationId: 'createPanel',
    method: 'post',
    path: '/panel/v3/',
    summary: 'Create a panel from its renderer',
    tag: 'Panels',
    auth: ADMIN,
    body: { schema: rendererBody(['renderer', 'siteId']), required: true },
    document: /* GraphQL */ `mutation CreatePanel($input: PanelInput!) { result: createPanel(input: $input) { ${PANEL} } }`,
    variables: { input: { renderer: 'body.renderer', siteId: 'body.siteId' } },
    response: ref('Panel'),
  },
  {
    operationId: 'getPanel',
    method: 'get',
    path: '/panel/v3/{id}',
    summary: 'One panel',
    tag: 'Panels',
    auth: ADMIN,
    params: [id('id', 'panel ID')],
    document: /* GraphQL */ `query GetPanel($id: ID!) { result: panel(id: $id) { ${PANEL} } }`,
    variables: { id: 'path.id' },
    response: ref('Panel'),
  },
  {
    operationId: 'updatePanel',
    method: 'patch',
    path: '/panel/v3/{id}',
    summary: 'Change some renderer fields (a JSON merge patch: fields not given stay, null removes one)',
    tag: 'Panels',
    auth: ADMIN,
    params: [id('id', 'panel ID')],
    body: { schema: rendererBody(['renderer']), required: true },
    document: /* GraphQL */ `mutation UpdatePanel($id: ID!, $renderer: JSON!) { result: updatePanel(id: $id, renderer: $renderer) { ${PANEL} } }`,
    variables: { id: 'path.id', renderer: 'body.renderer' },
    response: ref('Panel'),
  },
  {
    operationId: 'replacePanel',
    method: 'put',
    path: '/panel/v3/{id}',
    summary: 'Replace a panel’s renderer',
    tag: 'Panels',
    auth: ADMIN,
    params: [id('id', 'panel ID')],
    body: { schema: rendererBody(['renderer']), required: true, readOnly: [...READ_ONLY, 'site_id', 'collection', 'slug', 'type', 'last_modified'] },
    document: /* GraphQL */ `mutation ReplacePanel($id: ID!, $input: PanelInput!) { result: replacePanel(id: $id, input: $input) { ${PANEL} } }`,
    variables: { id: 'path.id', input: { renderer: 'body.renderer', siteId: 'body.siteId' } },
    response: ref('Panel'),
  },
  {
    operationId: 'deletePanel',
    method: 'delete',
    path: '/panel/v3/{id}',
    summary: 'Delete a panel',
    tag: 'Panels',
    auth: ADMIN,
    params: [id('id', 'panel ID')],
    document: /* GraphQL */ `mutation DeletePanel($id: ID!) { result: deletePanel(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
];

// ------------------------------------------------------------------------------- playlists

const playlistProjection: ParamSpec = {
  name: 'projection',
  in: 'query',
  schema: { type: 'object', additionalProperties: { enum: [0, 1, true, false] } },
  description: 'JSON of fields, e.g. {"title": 1}; "video": 1 adds each member’s video',
};

const playlistRoutes: RouteSpec[] = [
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
    auth: ADMIN,
    params: [
      { name: 'ids', in: 'query', required: true, commaSeparated: true, schema: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'string' } }, description: 'comma-separated playlist IDs' },
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
    auth: ADMIN,
    params: [id('id', 'playlist ID')],
    document: /* GraphQL */ `query PlaylistReferences($id: ID!) { result: playlistReferences(id: $id) { ${REFERENCE} } }`,
    variables: { id: 'path.id' },
    response: arrayOf(ref('ContentReference')),
  },
  {
    operationId: 'importPlaylist',
    callsOut: true,
    method: 'post',
    path: '/playlist/v1/external/import/videoplatform',
    summary: 'Import a playlist from an external video platform URL (400: a URL it cannot use; 502: the platform failed)',
    tag: 'Playlists',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string', minLength: 1, maxLength: 2048 } } }, required: true },
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
    auth: ADMIN,
    params: [id('id', 'playlist ID')],
    document: /* GraphQL */ `query GetPlaylist($id: ID!, $withVideos: Boolean! = false) { result: playlist(id: $id) { ${PLAYLIST} } }`,
    variables: { id: 'path.id' },
    response: ref('Playlist'),
  },
  {
    operationId: 'updatePlaylist',
    method: 'post',
    path: '/playlist/v1/{id}',
    summary: 'Change a playlist’s title, description, members or tags',
    tag: 'Playlists',
    auth: ADMIN,
    params: [id('id', 'playlist ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: { ...playlistFields, created: epochMs, modified: epochMs } }, required: true, readOnly: [...READ_ONLY, 'siteId'] },
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

// ------------------------------------------------------------------------------- polls

const pollRoutes: RouteSpec[] = [
  {
    operationId: 'listPolls',
    method: 'get',
    path: '/poll/v3/',
    summary: 'The site’s polls, predictions and trivia, searched, sorted and paged',
    tag: 'Polls',
    auth: ADMIN,
    params: [
      search('name or question'),
      offset,
      limit,
      sortBy(['name', 'created'], 'created'),
      { ...sortDirection, schema: { type: 'integer', enum: [1, -1], default: 1 } },
      {
        name: 'rQuery',
        in: 'query',
        schema: { type: 'object', additionalProperties: false, properties: { type: { enum: ['poll', 'prediction', 'trivia'] }, open: { type: 'boolean' }, name: str } },
        description: 'JSON of exact values, e.g. {"type": "trivia", "open": true}',
      },
    ],
    document: /* GraphQL */ `query ListPolls($search: String, $offset: Int, $limit: Int, $sortBy: PollSortField, $sortDirection: Int, $filter: JSON) {
      result: polls(search: $search, offset: $offset, limit: $limit, sortBy: $sortBy, sortDirection: $sortDirection, filter: $filter) { ${POLL} }
    }`,
    variables: { search: 'query.search', ...listVariables, filter: 'query.rQuery' },
    response: arrayOf(ref('Poll')),
  },
  {
    operationId: 'createPoll',
    method: 'post',
    path: '/poll/v3/',
    summary: 'Create a poll, prediction or trivia question',
    tag: 'Polls',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['type', 'name', 'question'], additionalProperties: false, properties: pollFields }, required: true },
    document: /* GraphQL */ `mutation CreatePoll($input: PollInput!) { result: createPoll(input: $input) { ${POLL} } }`,
    variables: { input: pollInput },
    response: ref('Poll'),
  },
  {
    operationId: 'validatePollReferences',
    method: 'get',
    path: '/poll/v3/validate-references/{id}',
    summary: 'What points at the poll (panels and quests)',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `query PollReferences($id: ID!) { result: pollReferences(id: $id) { ${REFERENCE} } }`,
    variables: { id: 'path.id' },
    response: arrayOf(ref('ContentReference')),
  },
  {
    operationId: 'getPoll',
    method: 'get',
    path: '/poll/v3/{id}',
    summary: 'One poll (the site ID alone is enough)',
    tag: 'Polls',
    auth: VIEWER,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `query GetPoll($id: ID!) { result: poll(id: $id) { ${POLL} } }`,
    variables: { id: 'path.id' },
    response: ref('Poll'),
  },
  {
    operationId: 'replacePoll',
    method: 'put',
    path: '/poll/v3/{id}',
    summary: 'Replace a poll',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    body: { schema: { type: 'object', required: ['type', 'name', 'question'], additionalProperties: false, properties: pollFields }, required: true },
    document: /* GraphQL */ `mutation ReplacePoll($id: ID!, $input: PollInput!) { result: replacePoll(id: $id, input: $input) { ${POLL} } }`,
    variables: { id: 'path.id', input: pollInput },
    response: ref('Poll'),
  },
  {
    operationId: 'updatePoll',
    method: 'patch',
    path: '/poll/v3/{id}',
    summary: 'Change some of a poll’s fields',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: pollFields }, required: true },
    document: /* GraphQL */ `mutation UpdatePoll($id: ID!, $input: PollUpdateInput!) { result: updatePoll(id: $id, input: $input) { ${POLL} } }`,
    variables: { id: 'path.id', input: pollInput },
    response: ref('Poll'),
  },
  {
    operationId: 'deletePoll',
    method: 'delete',
    path: '/poll/v3/{id}',
    summary: 'Delete a poll',
    tag: 'Polls',
    auth: ADMIN,
    params: [id('id', 'poll ID')],
    document: /* GraphQL */ `mutation DeletePoll($id: ID!) { result: deletePoll(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
];

// ------------------------------------------------------------------------------- quests

const questRoutes: RouteSpec[] = [
  {
    operationId: 'listQuests',
    method: 'get',
    path: '/quest/v2',
    summary: 'The site’s quests, searched on title, filtered on a property, sorted and paged',
    tag: 'Quests',
    auth: ADMIN,
    params: [search('title'), sortBy(['created', 'modified', 'title', 'rewardType', 'timeMinimum', 'timeMaximum'], 'created'), sortDirection, offset, limit, property('rewardType=raffle')],
    document: /* GraphQL */ `query ListQuests($search: String, $sortBy: String, $sortDirection: Int, $offset: Int, $limit: Int, $property: String) {
      result: quests(search: $search, sortBy: $sortBy, sortDirection: $sortDirection, offset: $offset, limit: $limit, property: $property) { ${LIST_PAGINATION} results { ${QUEST} } }
    }`,
    variables: { search: 'query.search', ...listVariables, property: 'query.property' },
    response: ref('QuestList'),
  },
  {
    operationId: 'createQuest',
    method: 'post',
    path: '/quest/v2',
    summary: 'Create a quest',
    tag: 'Quests',
    auth: ADMIN,
    body: { schema: questBody(), required: true },
    document: /* GraphQL */ `mutation CreateQuest($input: QuestInput!) { result: createQuest(input: $input) { ${QUEST} } }`,
    variables: { input: questInput },
    response: ref('Quest'),
  },
  {
    operationId: 'getQuest',
    method: 'get',
    path: '/quest/v2/{id}',
    summary: 'One quest',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    document: /* GraphQL */ `query GetQuest($id: ID!) { result: quest(id: $id) { ${QUEST} } }`,
    variables: { id: 'path.id' },
    response: ref('Quest'),
  },
  {
    operationId: 'replaceQuest',
    method: 'put',
    path: '/quest/v2/{id}',
    summary: 'Replace a quest',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    body: { schema: questBody({ _id: str, created: epochMs, modified: epochMs }), required: true },
    document: /* GraphQL */ `mutation ReplaceQuest($id: ID!, $input: QuestInput!) { result: replaceQuest(id: $id, input: $input) { ${QUEST} } }`,
    variables: { id: 'path.id', input: questInput },
    response: ref('Quest'),
  },
  {
    operationId: 'deleteQuest',
    method: 'delete',
    path: '/quest/v2/{id}',
    summary: 'Delete a quest; answers the deleted quest',
    tag: 'Quests',
    auth: ADMIN,
    params: [id('id', 'quest ID')],
    document: /* GraphQL */ `mutation DeleteQuest($id: ID!) { result: deleteQuest(id: $id) { ${QUEST} } }`,
    variables: { id: 'path.id' },
    response: ref('Quest'),
  },
];

// ------------------------------------------------------------------------------- calendar events

const calendarRoutes: RouteSpec[] = [
  {
    operationId: 'createCalendarEvent',
    method: 'post',
    path: '/calendar/v1/',
    summary: 'Create a calendar event',
    tag: 'Calendar events',
    auth: ADMIN,
    body: { schema: calendarBody, required: true },
    document: /* GraphQL */ `mutation CreateCalendarEvent($input: CalendarEventInput!) { result: createCalendarEvent(input: $input) { ${CALENDAR_EVENT} } }`,
    variables: { input: calendarInput },
    status: 201,
    response: ref('CalendarEvent'),
  },
  {
    operationId: 'listCalendarEvents',
    method: 'get',
    path: '/calendar/v1/',
    summary: 'The events that overlap the window [startTimestamp, endTimestamp], earliest first',
    tag: 'Calendar events',
    auth: ADMIN,
    params: [
      { name: 'startTimestamp', in: 'query', required: true, schema: { type: 'number' }, description: 'Unix ms' },
      { name: 'endTimestamp', in: 'query', required: true, schema: { type: 'number' }, description: 'Unix ms' },
    ],
    document: /* GraphQL */ `query ListCalendarEvents($start: Float!, $end: Float!) { result: calendarEvents(startTimestamp: $start, endTimestamp: $end) { ${CALENDAR_EVENT} } }`,
    variables: { start: 'query.startTimestamp', end: 'query.endTimestamp' },
    response: arrayOf(ref('CalendarEvent')),
  },
  {
    operationId: 'listCalendarFilters',
    method: 'get',
    path: '/calendar/v1/filters',
    summary: 'One filter per category, with the labels the site’s events carry',
    tag: 'Calendar events',
    auth: ADMIN,
    document: /* GraphQL */ `query CalendarFilters { result: calendarFilters { title options { color value } } }`,
    response: arrayOf(ref('CalendarFilter')),
  },
  {
    operationId: 'listCalendarCategories',
    method: 'get',
    path: '/calendar/v1/categories',
    summary: 'The distinct categories (with their label) the site’s events carry',
    tag: 'Calendar events',
    auth: ADMIN,
    document: /* GraphQL */ `query CalendarCategories { result: calendarCategories { id title label { color id title } } }`,
    response: arrayOf(ref('CalendarCategory')),
  },
  {
    operationId: 'listCalendarLabels',
    method: 'get',
    path: '/calendar/v1/categories/{categoryTitle}/labels',
    summary: 'The distinct labels of one category',
    tag: 'Calendar events',
    auth: ADMIN,
    params: [id('categoryTitle', 'category title')],
    document: /* GraphQL */ `query CalendarLabels($categoryTitle: String!) { result: calendarLabels(categoryTitle: $categoryTitle) { color id title } }`,
    variables: { categoryTitle: 'path.categoryTitle' },
    response: arrayOf(ref('CalendarLabel')),
  },
  {
    operationId: 'getCalendarEvent',
    method: 'get',
    path: '/calendar/v1/{id}',
    summary: 'One calendar event',
    tag: 'Calendar events',
    auth: ADMIN,
    params: [id('id', 'event ID')],
    document: /* GraphQL */ `query GetCalendarEvent($id: ID!) { result: calendarEvent(id: $id) { ${CALENDAR_EVENT} } }`,
    variables: { id: 'path.id' },
    response: ref('CalendarEvent'),
  },
  {
    operationId: 'updateCalendarEvent',
    method: 'put',
    path: '/calendar/v1/{id}',
    summary: 'Update a calendar event (the same body as create)',
    tag: 'Calendar events',
    auth: ADMIN,
    params: [id('id', 'event ID')],
    body: { schema: calendarBody, required: true },
    document: /* GraphQL */ `mutation UpdateCalendarEvent($id: ID!, $input: CalendarEventInput!) { result: updateCalendarEvent(id: $id, input: $input) { ${CALENDAR_EVENT} } }`,
    variables: { id: 'path.id', input: calendarInput },
    response: ref('CalendarEvent'),
  },
  {
    operationId: 'deleteCalendarEvent',
    method: 'delete',
    path: '/calendar/v1/{id}',
    summary: 'Delete a calendar event',
    tag: 'Calendar events',
    auth: ADMIN,
    params: [id('id', 'event ID')],
    document: /* GraphQL */ `mutation DeleteCalendarEvent($id: ID!) { result: deleteCalendarEvent(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
];

// ------------------------------------------------------------------------------- site and webhooks

const siteRoutes: RouteSpec[] = [
  {
    operationId: 'getSite',
    method: 'get',
    path: '/site/v1/',
    summary: 'The caller’s site: name, device limit, settings and theme',
    tag: 'Site',
    auth: ADMIN,
    document: /* GraphQL */ `query GetSite { result: site { ${SITE} } }`,
    response: ref('Site'),
  },
  {
    operationId: 'updateSite',
    method: 'put',
    path: '/site/v1/',
    summary: 'Change the site’s name, device limit (0 = none) or settings (settings.theme is the theme)',
    tag: 'Site',
    auth: ADMIN,
    body: {
      readOnly: [...READ_ONLY, 'theme'],
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, deviceLimit: { type: 'integer', minimum: 0, maximum: 1000 }, settings: { type: 'object' } },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation UpdateSite($input: UpdateSiteInput!) { result: updateSite(input: $input) { ${SITE} } }`,
    variables: { input: { name: 'body.name', deviceLimit: 'body.deviceLimit', settings: 'body.settings' } },
    response: ref('Site'),
  },
];

const webhookRoutes: RouteSpec[] = [
  {
    operationId: 'createWebhookEndpoint',
    method: 'post',
    path: '/webhook/v1/',
    summary: 'Register where the site’s webhooks go; the answer holds the signing secret, shown only now',
    tag: 'Webhooks',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['url', 'events'], additionalProperties: false, properties: webhookFields }, required: true },
    document: /* GraphQL */ `mutation CreateWebhookEndpoint($input: WebhookEndpointInput!) { result: createWebhookEndpoint(input: $input) { ${WEBHOOK_WITH_SECRET} } }`,
    variables: { input: { url: 'body.url', events: 'body.events', description: 'body.description', active: 'body.active' } },
    status: 201,
    response: ref('WebhookEndpointWithSecret'),
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'get',
    path: '/webhook/v1/',
    summary: 'The site’s webhook endpoints',
    tag: 'Webhooks',
    auth: ADMIN,
    document: /* GraphQL */ `query ListWebhookEndpoints { result: webhookEndpoints { ${WEBHOOK} } }`,
    response: arrayOf(ref('WebhookEndpoint')),
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'get',
    path: '/webhook/v1/{id}',
    summary: 'One webhook endpoint',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    document: /* GraphQL */ `query GetWebhookEndpoint($id: ID!) { result: webhookEndpoint(id: $id) { ${WEBHOOK} } }`,
    variables: { id: 'path.id' },
    response: ref('WebhookEndpoint'),
  },
  {
    operationId: 'updateWebhookEndpoint',
    method: 'put',
    path: '/webhook/v1/{id}',
    summary: 'Change a webhook endpoint’s URL, events, description or activity',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    body: { schema: { type: 'object', additionalProperties: false, properties: webhookFields }, required: true, readOnly: [...READ_ONLY, 'siteId'] },
    document: /* GraphQL */ `mutation UpdateWebhookEndpoint($id: ID!, $input: WebhookEndpointUpdateInput!) { result: updateWebhookEndpoint(id: $id, input: $input) { ${WEBHOOK} } }`,
    variables: { id: 'path.id', input: { url: 'body.url', events: 'body.events', description: 'body.description', active: 'body.active' } },
    response: ref('WebhookEndpoint'),
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'delete',
    path: '/webhook/v1/{id}',
    summary: 'Remove a webhook endpoint (its pending deliveries are dropped)',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    document: /* GraphQL */ `mutation DeleteWebhookEndpoint($id: ID!) { result: deleteWebhookEndpoint(id: $id) { _id: id } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: ref('Deleted'),
  },
  {
    operationId: 'rotateWebhookSecret',
    method: 'post',
    path: '/webhook/v1/{id}/rotate-secret',
    summary: 'Replace an endpoint’s signing secret; the answer holds the new one, shown only now',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID')],
    document: /* GraphQL */ `mutation RotateWebhookSecret($id: ID!) { result: rotateWebhookSecret(id: $id) { ${WEBHOOK_WITH_SECRET} } }`,
    variables: { id: 'path.id' },
    response: ref('WebhookEndpointWithSecret'),
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/webhook/v1/{id}/deliveries',
    summary: 'An endpoint’s deliveries, newest first, with how each went',
    tag: 'Webhooks',
    auth: ADMIN,
    params: [id('id', 'endpoint ID'), limit, offset],
    document: /* GraphQL */ `query ListWebhookDeliveries($id: ID!, $limit: Int, $offset: Int) { result: webhookDeliveries(endpointId: $id, limit: $limit, offset: $offset) { ${DELIVERY} } }`,
    variables: { id: 'path.id', limit: 'query.limit', offset: 'query.offset' },
    response: arrayOf(ref('WebhookDelivery')),
  },
];

/**
 * Order matters where paths overlap: /page/v2/template and the other fixed page paths come before
 * /page/v2/{id}.
 */
export const contentRoutes: RouteSpec[] = [
  ...templateRoutes,
  ...pageReadRoutes('/page/v2', ''),
  ...pageReadRoutes('/pages/v2', 'V2'),
  getPageRoute('/page/v2', ''),
  getPageRoute('/pages/v2', 'V2'),
  ...pageWriteRoutes,
  ...panelRoutes,
  ...playlistRoutes,
  ...pollRoutes,
  ...questRoutes,
  ...calendarRoutes,
  ...siteRoutes,
  ...webhookRoutes,
];
