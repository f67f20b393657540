/** Site (seed 001): its settings and theme; answered by the content subgraph. */
import { ADMIN, READ_ONLY, epochMs, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { THEME, freeObject, obj, str } from './shared';

const SITE = /* GraphQL */ `_id: id name deviceLimit settings theme { ${THEME} } created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const siteSchemas: Record<string, JsonSchema> = {
  Site: obj({ _id: str, name: str, deviceLimit: { type: 'integer', description: '0 = no limit' }, settings: freeObject('free-form; settings.theme is the theme'), theme: ref('Theme'), created: epochMs, modified: epochMs }),
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
    summary: 'Update what is given of the site: its name, device limit (0 = none) or settings (settings.theme is the theme; null removes the settings); absent fields keep their value',
    tag: 'Site',
    auth: ADMIN,
    body: {
      readOnly: [...READ_ONLY, 'theme'],
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, deviceLimit: { type: 'integer', minimum: 0, maximum: 1000 }, settings: { type: ['object', 'null'], description: 'null removes the settings (the default theme)' } },
      },
      required: true,
    },
    document: /* GraphQL */ `mutation UpdateSite($input: UpdateSiteInput!) { result: updateSite(input: $input) { ${SITE} } }`,
    variables: { input: { name: 'body.name', deviceLimit: 'body.deviceLimit', settings: 'body.settings' } },
    response: ref('Site'),
  },
];
