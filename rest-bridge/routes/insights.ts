/** Insights (seed 001): live viewers counted across every instance; answered by the overlays subgraph. */
import { arrayOf, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';

/** Components of the OpenAPI document these routes refer to. */
export const insightsSchemas: Record<string, JsonSchema> = {
  SiteConcurrents: {
    type: 'object',
    required: ['siteId', 'concurrents', 'totalViews', 'channels'],
    properties: {
      siteId: { type: 'string' },
      concurrents: { type: 'integer' },
      totalViews: { type: 'integer' },
      channels: arrayOf({
        type: 'object',
        properties: {
          _id: { type: 'string' },
          slug: { type: ['string', 'null'], description: 'null for a channel ID with no page' },
          concurrents: { type: 'integer' },
        },
      }),
    },
  },
};

export const insightsRoutes: RouteSpec[] = [
  {
    operationId: 'insightsConcurrents',
    method: 'get',
    path: '/insights/v1/concurrents',
    summary: 'Live viewers per site and channel, counted from viewer connections on every instance',
    tag: 'Insights',
    auth: [['S']],
    params: [
      {
        name: 'siteIds',
        in: 'query',
        commaSeparated: true,
        schema: { type: 'array', items: { type: 'string' } },
        description: 'comma-separated site IDs; default: the site of x-service-client-id',
      },
      { name: 'x-service-client-id', in: 'header', schema: { type: 'string' }, description: 'used only when siteIds is absent' },
    ],
    document: /* GraphQL */ `query Concurrents($siteIds: [ID!], $superApiKey: String!) { result: concurrents(siteIds: $siteIds, superApiKey: $superApiKey) { siteId concurrents totalViews channels { _id: channelId slug concurrents } } }`,
    variables: { siteIds: 'query.siteIds', superApiKey: 'header.super-api-key' },
    response: arrayOf(ref('SiteConcurrents')),
  },
];
