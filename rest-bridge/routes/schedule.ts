/** Schedules (ours: what a schedule panel of seed 001 lists); answered by the content subgraph. */
import { arrayOf, epochMs, pathId as id, ref, SITE_ID } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableStr, obj, str } from './shared';

const ENTRY = /* GraphQL */ `channelId channelSlug name startsAt endsAt allDay videoId kind location moreInfo references`;

/** Components of the OpenAPI document these routes refer to. */
export const scheduleSchemas: Record<string, JsonSchema> = {
  ScheduleEntry: obj({
    channelId: nullableStr,
    channelSlug: nullableStr,
    name: str,
    startsAt: epochMs,
    endsAt: epochMs,
    allDay: { type: 'boolean' },
    videoId: nullableStr,
    kind: { type: 'string', enum: ['channel', 'manual'] },
    location: nullableStr,
    moreInfo: nullableStr,
    references: { type: ['array', 'null'], items: str },
  }),
  PanelSchedule: obj({ panelId: str, from: epochMs, to: epochMs, results: arrayOf(ref('ScheduleEntry')) }),
};

export const scheduleRoutes: RouteSpec[] = [
  {
    operationId: 'getPanelSchedule',
    method: 'get',
    path: '/schedule/v1/{panelId}',
    summary: 'What a schedule panel lists in [from, to): its source channels’ schedule items (repeats expanded) and its manual events, by start',
    tag: 'Schedules',
    auth: SITE_ID,
    params: [
      id('panelId', 'schedule panel ID'),
      { name: 'from', in: 'query', required: true, schema: { type: 'number' }, description: 'start of the window, Unix ms' },
      {
        name: 'to',
        in: 'query',
        required: true,
        schema: { type: 'number' },
        description: 'end of the window (not included), Unix ms; at most 92 days after from',
      },
    ],
    document: /* GraphQL */ `query PanelSchedule($panelId: ID!, $from: Float!, $to: Float!) {
      result: panelSchedule(panelId: $panelId, from: $from, to: $to) { panelId from to results { ${ENTRY} } }
    }`,
    variables: { panelId: 'path.panelId', from: 'query.from', to: 'query.to' },
    cache: 'shared',
    subgraph: 'content',
    response: ref('PanelSchedule'),
  },
];
