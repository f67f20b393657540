/**
 * Schedules on the real stack: a schedule panel's read (`GET /schedule/v1/{panelId}` and GraphQL
 * panelSchedule) with its source channels' items expanded and its manual events, in start order; its
 * errors and another site's panel; page writes refusing a wrong schedule with nothing stored; and the
 * content check playing the occurrence of a weekly repeat that covers now. Times are relative to
 * Date.now() with hours of margin, so a slow machine changes nothing.
 */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import type { Stack } from '../../stack';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Schedules');
  other = await createTestSite(stack, 'Other site');
});
afterAll(stopAll);

const viewer = (owner = site) => ({ 'x-service-client-id': owner.siteId });

let count = 0;
async function channel(data: Record<string, unknown>, owner = site) {
  const reply = await rest(stack, 'POST', '/pages/v3', {
    headers: owner.admin,
    body: { slug: `sched-${++count}`, type: 'channel', data: { name: `Stage ${count}`, ...data } },
  });
  expect(reply.status).toBe(200);
  return reply.body as { _id: string; slug: string };
}

async function panel(renderer: Record<string, unknown>, owner = site) {
  const reply = await rest(stack, 'POST', '/panel/v3/', { headers: owner.admin, body: { siteId: owner.siteId, renderer } });
  expect(reply.status).toBe(200);
  return reply.body._id as string;
}

const schedulePanel = (source_channels: string[], manual_events: Record<string, unknown>[] = []) => ({
  panel_type: 'schedule',
  panel_name: 'Programme',
  schedule_type_renderer: { schedule_type: 'calendar', source_channels, manual_events },
});

const read = (panelId: string, query: string, headers: Record<string, string> = viewer()) => rest(stack, 'GET', `/schedule/v1/${panelId}${query}`, { headers });

describe('a schedule panel’s read', () => {
  const now = Date.now();
  const from = now;
  const to = now + 3 * DAY;
  let weekly: { _id: string; slug: string };
  let daily: { _id: string; slug: string };
  let panelId: string;

  beforeAll(async () => {
    weekly = await channel({
      schedule: [
        { kind: 'video', repeat: 'weekly', start_time: now - 14 * DAY - 10 * MIN, duration: 3600, video: { _id: 'talk', data: { name: 'Weekly talk' } } },
      ],
    });
    daily = await channel({
      name: 'News desk',
      schedule: [
        {
          kind: 'video',
          repeat: 'daily',
          start_time: now + 2 * HOUR,
          end_time: now + 2 * HOUR + 30 * MIN,
          video: { _id: 'news', data: { title: 'Daily news' } },
        },
        { all_day: true, start_time: now + 36 * HOUR },
      ],
    });
    const theirs = await channel({ schedule: [{ repeat: 'daily', start_time: now + HOUR, duration: 60 }] }, other);
    panelId = await panel(
      schedulePanel(
        [weekly._id, daily.slug, theirs._id, 'no-such-page'],
        [
          {
            array_id: 'm1',
            start_time: now + 5 * HOUR,
            end_time: now + 6 * HOUR,
            name: 'Meet & greet',
            location: 'Hall 2',
            more_info: 'Bring a badge',
            references: [weekly._id],
          },
          { array_id: 'm2', end_time: now + 4 * HOUR, name: 'Doors open' },
          { array_id: 'm3', end_time: now + 10 * DAY, name: 'Next month' },
        ],
      ),
    );
  });

  it('lists the source channels’ occurrences and the manual events in start order, never another site’s channel', async () => {
    const reply = await read(panelId, `?from=${from}&to=${to}`);
    expect(reply.status).toBe(200);
    const channelEntry = (page: { _id: string; slug: string }, name: string, startsAt: number, endsAt: number, videoId: string | null, allDay = false) => ({
      kind: 'channel',
      channelId: page._id,
      channelSlug: page.slug,
      name,
      startsAt,
      endsAt,
      allDay,
      videoId,
      location: null,
      moreInfo: null,
      references: null,
    });
    const manual = (name: string, startsAt: number, endsAt: number, location: string | null, moreInfo: string | null, references: string[]) => ({
      kind: 'manual',
      channelId: null,
      channelSlug: null,
      name,
      startsAt,
      endsAt,
      allDay: false,
      videoId: null,
      location,
      moreInfo,
      references,
    });
    const dayStart = Math.floor((now + 36 * HOUR) / DAY) * DAY;
    // Gathered as the server gathers them (channels in the panel's order, each one's items in order, manual events last), then by start.
    const expected = [
      channelEntry(weekly, 'Weekly talk', now - 10 * MIN, now + 50 * MIN, 'talk'),
      ...[0, 1, 2].map((day) => channelEntry(daily, 'Daily news', now + 2 * HOUR + day * DAY, now + 2 * HOUR + 30 * MIN + day * DAY, 'news')),
      channelEntry(daily, 'News desk', dayStart, dayStart + DAY, null, true),
      manual('Meet & greet', now + 5 * HOUR, now + 6 * HOUR, 'Hall 2', 'Bring a badge', [weekly._id]),
      manual('Doors open', now + 4 * HOUR, now + 4 * HOUR, null, null, []),
    ].sort((a, b) => a.startsAt - b.startsAt);
    expect(reply.body).toEqual({ panelId, from, to, results: expected });
    // A viewer read: kept for a second by a CDN, per site.
    expect(reply.headers.get('cache-control')).toBe('public, max-age=1');
    expect(reply.headers.get('etag')).toBeTruthy();

    const viaGraphql = await graphql(
      stack,
      /* GraphQL */ `query($panelId: ID!, $from: Float!, $to: Float!) {
      panelSchedule(panelId: $panelId, from: $from, to: $to) { panelId results { kind channelId startsAt endsAt name } }
    }`,
      { panelId, from, to },
      viewer(),
    );
    expect(viaGraphql.body.data?.panelSchedule).toEqual({
      panelId,
      results: expected.map(({ kind, channelId, startsAt, endsAt, name }) => ({ kind, channelId, startsAt, endsAt, name })),
    });
  });

  it('refuses a missing, reversed or too wide window naming the field', async () => {
    const cases: [string, RegExp][] = [
      [`?to=${to}`, /\bfrom\b/],
      [`?from=${from}`, /\bto\b/],
      [`?from=soon&to=${to}`, /\bfrom\b/],
      [`?from=${from}&to=${from}`, /to must be after from/],
      [`?from=${from}&to=${from + 92 * DAY + 1}`, /to must be at most 92 days after from/],
    ];
    for (const [query, message] of cases) {
      const reply = await read(panelId, query);
      expect({ query, status: reply.status, body: reply.body }).toEqual({
        query,
        status: 400,
        body: { success: false, message: expect.stringMatching(message) },
      });
    }
    expect((await read(panelId, `?from=${from}&to=${from + 92 * DAY}`)).status).toBe(200);

    // A daily slot every hour over 92 days: 2,208 entries, more than one read answers.
    const busy = await channel({ schedule: Array.from({ length: 24 }, (_, slot) => ({ repeat: 'daily', start_time: now + slot * HOUR, duration: 600 })) });
    const crowded = await panel(schedulePanel([busy._id]));
    const tooMany = await read(crowded, `?from=${from}&to=${from + 92 * DAY}`);
    expect(tooMany).toMatchObject({ status: 400, body: { success: false, message: expect.stringMatching(/more than 2000 entries/) } });
    expect((await read(crowded, `?from=${from}&to=${from + 30 * DAY}`)).body.results).toHaveLength(24 * 30);
  });

  it('answers 404 for another site’s panel, a panel of another kind and an unknown one, and 401 without the site ID', async () => {
    const theirs = await panel(schedulePanel([]), other);
    const chat = await panel({ panel_type: 'chat', panel_name: 'Chat' });
    for (const id of [theirs, chat, '0123456789abcdef01234567']) {
      const reply = await read(id, `?from=${from}&to=${to}`);
      expect({ id, status: reply.status, success: reply.body.success }).toEqual({ id, status: 404, success: false });
    }
    expect((await read(theirs, `?from=${from}&to=${to}`, viewer(other))).status).toBe(200);
    expect((await read(panelId, `?from=${from}&to=${to}`, {})).status).toBe(401);
  });
});

describe('page writes check the schedule', () => {
  it('refuses a wrong repeat or time naming the item’s field, and stores nothing', async () => {
    const slug = `refused-${Date.now()}`;
    const created = await rest(stack, 'POST', '/pages/v3', {
      headers: site.admin,
      body: {
        slug,
        type: 'channel',
        data: {
          schedule: [
            { repeat: 'daily', start_time: 1 },
            { repeat: 'hourly', start_time: 1 },
          ],
        },
      },
    });
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ success: false, message: expect.stringContaining('data.schedule[1].repeat') });
    expect(await stack.database.prisma.page.findFirst({ where: { siteId: site.siteId, slug } })).toBeNull();

    const kept = [{ repeat: 'weekly', start_time: Date.now(), duration: 60 }];
    const page = await channel({ schedule: kept });
    for (const [data, field] of [
      [{ schedule: [{ start_time: 'tomorrow' }] }, 'data.schedule[0].start_time'],
      [{ schedule: [{ start_time: 10, end_time: 5 }] }, 'data.schedule[0].end_time'],
      [{ countdown: { title: 'Soon', start_time: 'tonight' } }, 'data.countdown.start_time'],
    ] as const) {
      const updated = await rest(stack, 'PUT', `/pages/v3/${page._id}`, { headers: site.admin, body: { data } });
      expect({ field, status: updated.status, message: updated.body.message }).toEqual({ field, status: 400, message: expect.stringContaining(field) });
    }
    expect((await rest(stack, 'GET', `/pages/v2/${page._id}`, { headers: viewer() })).body.data.schedule).toEqual(kept);
  });

  it('refuses to clone a page stored before the checks with a wrong schedule', async () => {
    const id = '5c0de5c0de5c0de5c0de5c0d';
    const stamp = new Date();
    await stack.database.prisma.page.create({
      data: {
        id,
        siteId: site.siteId,
        slug: 'old-page',
        type: 'channel',
        document: { data: { name: 'Old', schedule: [{ repeat: 'monthly' }] } },
        tags: [],
        createdAt: stamp,
        updatedAt: stamp,
      },
    });
    const clone = await rest(stack, 'POST', `/page/v2/clone/${id}`, { headers: site.admin });
    expect(clone.status).toBe(400);
    expect(clone.body.message).toContain('data.schedule[0].repeat');
    expect(await stack.database.prisma.page.count({ where: { siteId: site.siteId, slug: { startsWith: 'old-page-' } } })).toBe(0);
  });
});

it('plays the occurrence of a weekly repeat that covers now in the content check', async () => {
  const holder = await channel({});
  const recorded = await graphql(
    stack,
    /* GraphQL */ `mutation($input: RecordVodInput!) { recordVod(input: $input) { id } }`,
    {
      input: { pageId: holder._id, vodId: `weekly-${Date.now()}`, url: 'https://cdn.example/weekly.m3u8', durationSeconds: 3600 },
    },
    site.admin,
  );
  const videoId = recorded.body.data?.recordVod.id as string;
  const now = Date.now();
  const item = (start: number) => ({
    kind: 'video',
    repeat: 'weekly',
    start_time: start,
    duration: 3600,
    video: { _id: videoId, data: { name: 'Weekly replay' } },
  });
  // Three weeks and ten minutes ago: this week's occurrence began ten minutes ago.
  const playing = await channel({ schedule: [item(now - 21 * DAY - 10 * MIN)] });
  // Its weekly slot is three hours from now: nothing plays yet.
  const later = await channel({ schedule: [item(now - 7 * DAY + 3 * HOUR)] });

  const check = (pageId: string) => rest(stack, 'GET', `/pages/v2/content/id/${pageId}`, { headers: { ...viewer(), 'x-service-device-id': 'tv' } });
  const now10 = (await check(playing._id)).body.canIPlayResponse.contentCheck;
  expect(now10).toMatchObject({ access: 'full', live: false, video: { video: { _id: videoId, type: 'vod' } } });
  expect(now10.offset).toBeGreaterThanOrEqual(600);
  expect(now10.offset).toBeLessThan(3600);
  expect((await check(later._id)).body.canIPlayResponse.contentCheck).toMatchObject({ offset: 0, video: { video: null } });
});
