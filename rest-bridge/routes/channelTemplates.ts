/** Channel templates (seed 001); answered by the content subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { limit, listVariables, nullableStr, obj, offset, search, sortBy, sortDirection, str, strings } from './shared';

const TEMPLATE = /* GraphQL */ `_id: id title siteId icon description panels { collection creator owner site_id slug type } rules theme creator owner archived created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const channelTemplateSchemas: Record<string, JsonSchema> = {
  ChannelTemplate: obj({
    _id: str,
    title: str,
    siteId: str,
    icon: nullableStr,
    description: str,
    panels: arrayOf({ type: 'object', properties: { collection: str, creator: str, owner: str, site_id: str, slug: str, type: str } }),
    rules: arrayOf(str),
    theme: nullableStr,
    creator: str,
    owner: str,
    archived: { type: 'boolean' },
    created: epochMs,
    modified: epochMs,
  }),
};

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
  title: 'body.title',
  siteId: 'body.siteId',
  icon: 'body.icon',
  description: 'body.description',
  panels: 'body.panels',
  rules: 'body.rules',
  theme: 'body.theme',
  creator: 'body.creator',
  owner: 'body.owner',
} as const;

export const channelTemplateRoutes: RouteSpec[] = [
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
    params: [
      limit,
      offset,
      search('title or description'),
      sortBy(['modified', 'created', 'title'], 'modified'),
      { ...sortDirection, schema: { type: 'integer', enum: [1, -1], default: -1 } },
    ],
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
