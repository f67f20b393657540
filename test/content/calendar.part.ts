/** Calendar events at docs/design.md's paths: create, between timestamps (exactly the overlapping ones), filters, categories, labels, get, update, tenancy. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Calendar');
  other = await createTestSite(stack, 'Other');
});
afterAll(stopAll);

const HOUR = 3_600_000;
const T0 = Date.UTC(2030, 0, 1, 12);
const sports = (label: string, color: string) => ({ id: 'cat-sports', title: 'Sports', label: { id: `lbl-${label}`, title: label, color } });
const venue = (label: string, color: string) => ({ id: 'cat-venue', title: 'Venue', label: { id: `lbl-${label}`, title: label, color } });

const eventBody = (title: string, start: number, end: number | null, categories: object[] = []) => ({
  titleRaw: title,
  descriptionRaw: `${title} description`,
  categories,
  date: { startTimestamp: start, ...(end === null ? { useEndTime: false } : { endTimestamp: end, useEndTime: true }), timeZone: 'Europe/Paris' },
  image: { show: true, src: 'https://cdn.example/event.png' },
  siteId: site.siteId,
  thirdPartyEventId: `ext-${title}`,
});

async function createEvent(owner: TestSite, body: Record<string, unknown>) {
  const reply = await rest(stack, 'POST', '/calendar/v1/', { headers: owner.admin, body: { ...body, siteId: owner.siteId } });
  expect(reply.status).toBe(201);
  return reply.body;
}

it('creates an event (201) and gets it', async () => {
  const body = eventBody('Opening', T0, T0 + 2 * HOUR, [sports('Football', '#00ff00')]);
  const event = await createEvent(site, body);
  expect(event).toEqual({
    _id: expect.stringMatching(/^[0-9a-f]{24}$/),
    ...body,
    date: { ...body.date, endTimestamp: T0 + 2 * HOUR },
    created: expect.any(Number),
    modified: expect.any(Number),
  });
  expect((await rest(stack, 'GET', `/calendar/v1/${event._id}`, { headers: site.admin })).body).toEqual(event);
});

it('refuses bad events with 400 naming the field', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [eventBody('', T0, null), /titleRaw/],
    [eventBody('Backwards', T0, T0 - 1), /endTimestamp/],
    [{ ...eventBody('Zone', T0, null), date: { startTimestamp: T0, timeZone: 'Mars/Olympus' } }, /timeZone/],
    [{ ...eventBody('No end', T0, null), date: { startTimestamp: T0, useEndTime: true, timeZone: 'UTC' } }, /endTimestamp/],
    [{ titleRaw: 'No date' }, /date/],
    [{ ...eventBody('Bad image', T0, null), image: { show: true, src: 'file:///etc/passwd' } }, /image\.src/],
  ];
  for (const [body, field] of cases) {
    const reply = await rest(stack, 'POST', '/calendar/v1/', { headers: site.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(field);
  }
  expect((await rest(stack, 'POST', '/calendar/v1/', { headers: { 'x-service-client-id': site.siteId }, body: eventBody('x', T0, null) })).status).toBe(401);
});

describe('a site’s calendar', () => {
  let cal: TestSite;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    cal = await createTestSite(stack, 'Busy calendar');
    const events: [string, number, number | null, object[]][] = [
      ['before', T0 - 5 * HOUR, T0 - 4 * HOUR, [sports('Football', '#00ff00')]],
      ['ends-at-start', T0 - 2 * HOUR, T0, [sports('Tennis', '#ffff00')]],
      ['inside', T0 + HOUR, T0 + 2 * HOUR, [sports('Football', '#00ff00'), venue('Arena', '#0000ff')]],
      ['spans', T0 - HOUR, T0 + 10 * HOUR, [venue('Park', '#00ffff')]],
      ['moment-inside', T0 + 3 * HOUR, null, []],
      ['starts-at-end', T0 + 4 * HOUR, T0 + 6 * HOUR, [venue('Arena', '#0000ff')]],
      ['after', T0 + 5 * HOUR, T0 + 6 * HOUR, []],
      ['moment-before', T0 - HOUR, null, []],
    ];
    for (const [title, start, end, categories] of events) ids[title] = (await createEvent(cal, eventBody(title, start, end, categories)))._id;
    await createEvent(other, eventBody('other-site-inside', T0 + HOUR, T0 + 2 * HOUR, [sports('Golf', '#123456')]));
  });

  it('lists exactly the events that overlap the window, earliest first', async () => {
    const reply = await rest(stack, 'GET', `/calendar/v1/?startTimestamp=${T0}&endTimestamp=${T0 + 4 * HOUR}`, { headers: cal.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.map((event: { titleRaw: string }) => event.titleRaw)).toEqual(['ends-at-start', 'spans', 'inside', 'moment-inside', 'starts-at-end']);
    const empty = await rest(stack, 'GET', `/calendar/v1/?startTimestamp=${T0 + 100 * HOUR}&endTimestamp=${T0 + 101 * HOUR}`, { headers: cal.admin });
    expect(empty.body).toEqual([]);
    expect((await rest(stack, 'GET', `/calendar/v1/?startTimestamp=${T0}`, { headers: cal.admin })).status).toBe(400);
    expect((await rest(stack, 'GET', `/calendar/v1/?startTimestamp=${T0}&endTimestamp=${T0 - 1}`, { headers: cal.admin })).status).toBe(400);
    expect((await rest(stack, 'GET', `/calendar/v1/?startTimestamp=soon&endTimestamp=${T0}`, { headers: cal.admin })).status).toBe(400);
  });

  it('derives filters, categories and labels from the stored events', async () => {
    const filters = await rest(stack, 'GET', '/calendar/v1/filters', { headers: cal.admin });
    expect(filters.body).toEqual([
      {
        title: 'Sports',
        options: [
          { color: '#00ff00', value: 'Football' },
          { color: '#ffff00', value: 'Tennis' },
        ],
      },
      {
        title: 'Venue',
        options: [
          { color: '#0000ff', value: 'Arena' },
          { color: '#00ffff', value: 'Park' },
        ],
      },
    ]);
    const categories = await rest(stack, 'GET', '/calendar/v1/categories', { headers: cal.admin });
    expect(categories.body).toEqual([sports('Football', '#00ff00'), sports('Tennis', '#ffff00'), venue('Arena', '#0000ff'), venue('Park', '#00ffff')]);
    const labels = await rest(stack, 'GET', '/calendar/v1/categories/Venue/labels', { headers: cal.admin });
    expect(labels.body).toEqual([
      { color: '#0000ff', id: 'lbl-Arena', title: 'Arena' },
      { color: '#00ffff', id: 'lbl-Park', title: 'Park' },
    ]);
    expect((await rest(stack, 'GET', '/calendar/v1/categories/Nothing/labels', { headers: cal.admin })).body).toEqual([]);
  });

  it('updates an event (same body as create): its window and labels follow', async () => {
    const updated = await rest(stack, 'PUT', `/calendar/v1/${ids.after}`, {
      headers: cal.admin,
      body: { ...eventBody('after, moved', T0 + HOUR, T0 + 90 * 60_000, [sports('Rugby', '#ff0000')]), siteId: cal.siteId, image: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      _id: ids.after,
      titleRaw: 'after, moved',
      image: { show: false, src: null },
      categories: [sports('Rugby', '#ff0000')],
    });
    const window = await rest(stack, 'GET', `/calendar/v1/?startTimestamp=${T0 + HOUR}&endTimestamp=${T0 + HOUR}`, { headers: cal.admin });
    expect(window.body.map((event: { titleRaw: string }) => event.titleRaw)).toContain('after, moved');
    const labels = await rest(stack, 'GET', '/calendar/v1/categories/Sports/labels', { headers: cal.admin });
    expect(labels.body.map((label: { title: string }) => label.title)).toEqual(['Football', 'Rugby', 'Tennis']);

    const removed = await rest(stack, 'DELETE', `/calendar/v1/${ids.after}`, { headers: cal.admin });
    expect(removed.body).toEqual({ success: true, _id: ids.after });
    const after = await rest(stack, 'GET', '/calendar/v1/categories/Sports/labels', { headers: cal.admin });
    expect(after.body.map((label: { title: string }) => label.title)).toEqual(['Football', 'Tennis']);
  });

  it('keeps events to their site', async () => {
    const theirs = await createEvent(other, eventBody('theirs', T0, null));
    expect((await rest(stack, 'GET', `/calendar/v1/${theirs._id}`, { headers: cal.admin })).status).toBe(404);
    expect(
      (await rest(stack, 'PUT', `/calendar/v1/${theirs._id}`, { headers: cal.admin, body: { ...eventBody('mine', T0, null), siteId: cal.siteId } })).status,
    ).toBe(404);
    expect((await rest(stack, 'DELETE', `/calendar/v1/${theirs._id}`, { headers: cal.admin })).status).toBe(404);
    const labels = await rest(stack, 'GET', '/calendar/v1/categories/Sports/labels', { headers: cal.admin });
    expect(labels.body.map((label: { title: string }) => label.title)).not.toContain('Golf');
  });
});
