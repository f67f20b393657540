/** Panels (seed 001); answered by the content subgraph. */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { LIST_PAGINATION, limit, listVariables, obj, offset, pagination, property, sortBy, sortDirection, str } from './shared';

const PANEL = /* GraphQL */ `_id: id renderer collection site_id: siteId slug type created last_modified: modified`;

/** Components of the OpenAPI document these routes refer to. */
export const panelSchemas: Record<string, JsonSchema> = {
  Panel: obj({
    _id: str,
    renderer: { type: 'object', description: 'what makes the panel a chat, store, schedule, …' },
    collection: { type: 'string', enum: ['panels'] },
    site_id: str,
    slug: str,
    type: str,
    created: epochMs,
    last_modified: epochMs,
  }),
  PanelList: obj({ pagination, results: arrayOf(ref('Panel')) }),
};

const rendererBody = (required: string[]): JsonSchema => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: { renderer: { type: 'object', description: 'needs panel_type; the seed’s renderer fields are checked by type' }, siteId: str },
});

export const panelRoutes: RouteSpec[] = [
  {
    operationId: 'listPanels',
    method: 'get',
    path: '/panel/v3/',
    summary: 'The site’s panels, a page at a time, optionally filtered on a property',
    tag: 'Panels',
    auth: ADMIN,
    params: [
      limit,
      offset,
      sortBy(['created', 'modified', 'last_modified', 'slug', 'type', 'panel_type', 'panel_name'], 'created'),
      sortDirection,
      property('panel_type=chat'),
    ],
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
