/**
 * Site (seed 001): its settings and theme (answered by the content subgraph) and, under Site Settings >
 * Developer, its developer keys (answered by the community subgraph).
 */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { THEME, freeObject, obj, str } from './shared';

const DEVELOPER_KEY = /* GraphQL */ `id name prefix created lastUsedAt revokedAt`;
const nullableEpochMs = { type: ['number', 'null'], description: 'Unix time in milliseconds; null: not yet' };

const SITE = /* GraphQL */ `_id: id name deviceLimit settings theme { ${THEME} } created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const siteSchemas: Record<string, JsonSchema> = {
  DeveloperKey: obj({
    id: str,
    name: str,
    prefix: { type: 'string', description: 'the key’s first characters' },
    created: epochMs,
    lastUsedAt: nullableEpochMs,
    revokedAt: nullableEpochMs,
  }),
  NewDeveloperKey: obj({
    id: str,
    name: str,
    key: { type: 'string', description: 'the key (x-service-developer-key), shown this once' },
    prefix: str,
    created: epochMs,
  }),
  Site: obj({
    _id: str,
    name: str,
    deviceLimit: { type: 'integer', description: '0 = no limit' },
    settings: freeObject('free-form; settings.theme is the theme'),
    theme: ref('Theme'),
    created: epochMs,
    modified: epochMs,
  }),
};

export const siteRoutes: RouteSpec[] = [
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
    summary:
      'Update what is given of the site: its name, device limit (0 = none) or settings (settings.theme is the theme; null removes the settings); absent fields keep their value',
    tag: 'Site',
    auth: ADMIN,
    body: {
      readOnly: [...READ_ONLY, 'theme'],
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          deviceLimit: { type: 'integer', minimum: 0, maximum: 1000 },
          settings: { type: ['object', 'null'], description: 'null removes the settings (the default theme)' },
        },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation UpdateSite($input: UpdateSiteInput!) { result: updateSite(input: $input) { ${SITE} } }`,
    variables: { input: { name: 'body.name', deviceLimit: 'body.deviceLimit', settings: 'body.settings' } },
    response: ref('Site'),
  },
  {
    operationId: 'createDeveloperKey',
    method: 'post',
    path: '/site/v1/developer-keys',
    summary: 'A new developer key; the answer holds the key, shown this once (stored hashed). Rotation: create, switch, revoke the old one',
    tag: 'Site',
    auth: ADMIN,
    body: {
      schema: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 200 } } },
      required: true,
    },
    document: /* GraphQL */ `mutation CreateDeveloperKey($name: String!) { result: createDeveloperKey(name: $name) { id name key prefix created } }`,
    variables: { name: 'body.name' },
    status: 201,
    response: ref('NewDeveloperKey'),
  },
  {
    operationId: 'listDeveloperKeys',
    method: 'get',
    path: '/site/v1/developer-keys',
    summary: 'The site’s developer keys, newest first, revoked ones too; never a key itself',
    tag: 'Site',
    auth: ADMIN,
    document: /* GraphQL */ `query ListDeveloperKeys { result: developerKeys { ${DEVELOPER_KEY} } }`,
    response: arrayOf(ref('DeveloperKey')),
  },
  {
    operationId: 'revokeDeveloperKey',
    method: 'delete',
    path: '/site/v1/developer-keys/{id}',
    summary: 'Revoke a developer key: refused on every instance within a second, live connections opened with it end; the key of this request may be revoked',
    tag: 'Site',
    auth: ADMIN,
    params: [pathId('id', 'developer key ID')],
    document: /* GraphQL */ `mutation RevokeDeveloperKey($id: ID!) { result: revokeDeveloperKey(id: $id) { success message } }`,
    variables: { id: 'path.id' },
    response: ref('OperationResult'),
  },
];
