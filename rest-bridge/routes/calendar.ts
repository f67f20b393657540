/** Calendar events (seed 001); answered by the content subgraph. */
import { ADMIN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { nullableNum, nullableStr, obj, str } from './shared';

const CALENDAR_EVENT = /* GraphQL */ `_id: id siteId titleRaw descriptionRaw categories { id title label { color id title } } date { startTimestamp endTimestamp timeZone useEndTime } image { show src } thirdPartyEventId created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const calendarSchemas: Record<string, JsonSchema> = {
  CalendarLabel: obj({ color: str, id: str, title: str }),
  CalendarCategory: obj({ id: str, title: str, label: ref('CalendarLabel') }),
  CalendarEvent: obj({
    _id: str, siteId: str, titleRaw: str, descriptionRaw: str, categories: arrayOf(ref('CalendarCategory')),
    date: obj({ startTimestamp: epochMs, endTimestamp: nullableNum, timeZone: str, useEndTime: { type: 'boolean' } }),
    image: obj({ show: { type: 'boolean' }, src: nullableStr }),
    thirdPartyEventId: nullableStr, created: epochMs, modified: epochMs,
  }),
  CalendarFilter: obj({ title: str, options: arrayOf(obj({ color: str, value: str })) }),
};

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

export const calendarRoutes: RouteSpec[] = [
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
