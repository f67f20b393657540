/**
 * Schedules in-process: schedule items expanded into occurrences (repeat none / daily / weekly,
 * start_date, all_day, time zones), what plays now, the countdown's choice, and the checks of page writes.
 * Times are fixed UTC instants, so nothing depends on the clock of the machine running the tests.
 */
import type { GraphQLError } from 'graphql';
import { checkScheduleData, checkWindow, countdownOf, occurrencesBetween, playingNow, scheduleOf } from '../../subgraphs/content/schedule';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Monday 7 January 2030, 20:00 UTC. */
const T0 = Date.UTC(2030, 0, 7, 20);

const page = (schedule: unknown[], extra: Record<string, unknown> = {}) => ({ document: { data: { schedule, ...extra } } });
const items = (...schedule: Record<string, unknown>[]) => scheduleOf(page(schedule).document);
const spans = (found: { startsAt: number; endsAt: number }[]) =>
  found.map(({ startsAt, endsAt }) => [new Date(startsAt).toISOString(), new Date(endsAt).toISOString()]);
const starts = (found: { startsAt: number }[]) => found.map(({ startsAt }) => new Date(startsAt).toISOString());

describe('expanding schedule items', () => {
  it('plays a one-off item once, from start_time to end_time, and lists it wherever it overlaps the window', () => {
    const once = items({ start_time: T0, end_time: T0 + 2 * HOUR });
    expect(spans(occurrencesBetween(once, T0 - DAY, T0 + DAY))).toEqual([['2030-01-07T20:00:00.000Z', '2030-01-07T22:00:00.000Z']]);
    // Started before the window and still running: listed.
    expect(occurrencesBetween(once, T0 + HOUR, T0 + DAY)).toHaveLength(1);
    expect(occurrencesBetween(once, T0 + 2 * HOUR, T0 + DAY)).toHaveLength(0);
    expect(occurrencesBetween(once, T0 - DAY, T0)).toHaveLength(0);
  });

  it('takes the length from duration (seconds) when there is no end_time, and a moment when there is neither', () => {
    expect(spans(occurrencesBetween(items({ start_time: T0, duration: 5400 }), T0, T0 + DAY))).toEqual([
      ['2030-01-07T20:00:00.000Z', '2030-01-07T21:30:00.000Z'],
    ]);
    const moment = items({ start_time: T0 });
    expect(spans(occurrencesBetween(moment, T0, T0 + 1))).toEqual([['2030-01-07T20:00:00.000Z', '2030-01-07T20:00:00.000Z']]);
    expect(occurrencesBetween(moment, T0 + 1, T0 + DAY)).toHaveLength(0);
  });

  it('repeats daily from start_time, never before it', () => {
    const daily = items({ repeat: 'daily', start_time: T0, end_time: T0 + HOUR });
    expect(starts(occurrencesBetween(daily, T0 - 2 * DAY, T0 + 3 * DAY))).toEqual([
      '2030-01-07T20:00:00.000Z',
      '2030-01-08T20:00:00.000Z',
      '2030-01-09T20:00:00.000Z',
    ]);
    // Far from the first occurrence, the window still gets exactly its days.
    const later = occurrencesBetween(daily, T0 + 400 * DAY, T0 + 402 * DAY);
    expect(spans(later)).toEqual([
      ['2031-02-11T20:00:00.000Z', '2031-02-11T21:00:00.000Z'],
      ['2031-02-12T20:00:00.000Z', '2031-02-12T21:00:00.000Z'],
    ]);
  });

  it('repeats weekly on start_time’s weekday', () => {
    const weekly = items({ repeat: 'weekly', start_time: T0, duration: 3600 });
    expect(starts(occurrencesBetween(weekly, T0, T0 + 30 * DAY))).toEqual([
      '2030-01-07T20:00:00.000Z',
      '2030-01-14T20:00:00.000Z',
      '2030-01-21T20:00:00.000Z',
      '2030-01-28T20:00:00.000Z',
      '2030-02-04T20:00:00.000Z',
    ]);
  });

  it('starts a repeat on start_date’s day, later or earlier than start_time', () => {
    const thursday = Date.UTC(2030, 0, 10, 3);
    const daily = items({ repeat: 'daily', start_time: T0, duration: 3600, start_date: thursday });
    expect(starts(occurrencesBetween(daily, T0 - DAY, T0 + 5 * DAY))).toEqual(['2030-01-10T20:00:00.000Z', '2030-01-11T20:00:00.000Z']);
    const weekly = items({ repeat: 'weekly', start_time: T0, duration: 3600, start_date: thursday });
    expect(starts(occurrencesBetween(weekly, T0 - DAY, T0 + 15 * DAY))).toEqual(['2030-01-14T20:00:00.000Z', '2030-01-21T20:00:00.000Z']);
    const backdated = items({ repeat: 'daily', start_time: T0, duration: 3600, start_date: Date.UTC(2030, 0, 5) });
    expect(starts(occurrencesBetween(backdated, Date.UTC(2030, 0, 1), T0))).toEqual(['2030-01-05T20:00:00.000Z', '2030-01-06T20:00:00.000Z']);
    // A one-off item ignores start_date.
    expect(starts(occurrencesBetween(items({ start_time: T0, duration: 60, start_date: thursday }), T0 - DAY, T0 + 5 * DAY))).toEqual([
      '2030-01-07T20:00:00.000Z',
    ]);
  });

  it('covers whole UTC days with all_day: one day, the days up to end_time, or those duration spans', () => {
    expect(spans(occurrencesBetween(items({ all_day: true, start_time: T0 }), T0 - DAY, T0 + DAY))).toEqual([
      ['2030-01-07T00:00:00.000Z', '2030-01-08T00:00:00.000Z'],
    ]);
    const festival = items({ all_day: true, start_time: T0, end_time: Date.UTC(2030, 0, 9, 10) });
    expect(spans(occurrencesBetween(festival, T0 - DAY, T0 + 5 * DAY))).toEqual([['2030-01-07T00:00:00.000Z', '2030-01-10T00:00:00.000Z']]);
    // An end_time at midnight ends the day before it.
    const twoDays = items({ all_day: true, start_time: Date.UTC(2030, 0, 7), end_time: Date.UTC(2030, 0, 9) });
    expect(spans(occurrencesBetween(twoDays, T0 - DAY, T0 + 5 * DAY))).toEqual([['2030-01-07T00:00:00.000Z', '2030-01-09T00:00:00.000Z']]);
    expect(spans(occurrencesBetween(items({ all_day: true, start_date: T0, duration: 36 * 3600 }), T0 - DAY, T0 + 5 * DAY))).toEqual([
      ['2030-01-07T00:00:00.000Z', '2030-01-09T00:00:00.000Z'],
    ]);
    const weekly = items({ all_day: true, repeat: 'weekly', start_date: T0 });
    expect(starts(occurrencesBetween(weekly, T0, T0 + 13 * DAY))).toEqual(['2030-01-07T00:00:00.000Z', '2030-01-14T00:00:00.000Z']);
  });

  it('reads days and times of day in the item’s time_zone, keeping the wall clock across a daylight-saving change', () => {
    // Paris is UTC+1 in January: its day starts at 23:00 UTC the evening before.
    const allDay = items({ all_day: true, start_time: T0, time_zone: 'Europe/Paris' });
    expect(spans(occurrencesBetween(allDay, T0 - DAY, T0 + DAY))).toEqual([['2030-01-06T23:00:00.000Z', '2030-01-07T23:00:00.000Z']]);
    // 20:00 in Paris: 19:00 UTC before 31 March 2030 (CET), 18:00 UTC after (CEST).
    const nightly = items({ repeat: 'daily', start_time: Date.UTC(2030, 2, 29, 19), duration: 3600, time_zone: 'Europe/Paris' });
    expect(starts(occurrencesBetween(nightly, Date.UTC(2030, 2, 29), Date.UTC(2030, 3, 2)))).toEqual([
      '2030-03-29T19:00:00.000Z',
      '2030-03-30T19:00:00.000Z',
      '2030-03-31T18:00:00.000Z',
      '2030-04-01T18:00:00.000Z',
    ]);
    // The day clocks go forward has 23 hours; the day they go back, 25.
    const spring = items({ all_day: true, start_date: Date.UTC(2030, 2, 31, 12), time_zone: 'Europe/Paris' });
    expect(spans(occurrencesBetween(spring, Date.UTC(2030, 2, 30), Date.UTC(2030, 3, 2)))).toEqual([['2030-03-30T23:00:00.000Z', '2030-03-31T22:00:00.000Z']]);
    const autumn = items({ all_day: true, start_date: Date.UTC(2030, 9, 27, 12), time_zone: 'Europe/Paris' });
    expect(spans(occurrencesBetween(autumn, Date.UTC(2030, 9, 26), Date.UTC(2030, 9, 29)))).toEqual([['2030-10-26T22:00:00.000Z', '2030-10-27T23:00:00.000Z']]);
    // A wall time that happens twice (02:30 on the night clocks go back) is its first.
    const twice = items({ repeat: 'daily', start_time: Date.UTC(2030, 9, 26, 0, 30), duration: 60, time_zone: 'Europe/Paris' });
    expect(starts(occurrencesBetween(twice, Date.UTC(2030, 9, 26), Date.UTC(2030, 9, 28, 12)))).toEqual([
      '2030-10-26T00:30:00.000Z',
      '2030-10-27T00:30:00.000Z',
      '2030-10-28T01:30:00.000Z',
    ]);
    // Half-hour zones: India's day starts at 18:30 UTC.
    expect(spans(occurrencesBetween(items({ all_day: true, start_time: T0, time_zone: 'Asia/Kolkata' }), T0 - DAY, T0 + DAY))).toEqual([
      ['2030-01-07T18:30:00.000Z', '2030-01-08T18:30:00.000Z'],
    ]);
  });

  it('merges the items by start, the earlier item first on a tie, and stops past a limit', () => {
    const schedule = items(
      { array_id: 'b', repeat: 'daily', start_time: T0 + HOUR, duration: 60 },
      { array_id: 'a', start_time: T0, duration: 60 },
      { array_id: 'c', start_time: T0 + HOUR, duration: 60 },
    );
    expect(occurrencesBetween(schedule, T0 - DAY, T0 + DAY + 2 * HOUR).map(({ item, startsAt }) => [item.arrayId, startsAt - T0])).toEqual([
      ['a', 0],
      ['b', HOUR],
      ['c', HOUR],
      ['b', DAY + HOUR],
    ]);
    expect(occurrencesBetween(items({ repeat: 'daily', start_time: T0, duration: 60 }), T0, T0 + 90 * DAY, 10)).toHaveLength(11);
  });

  it('ignores what an old document holds in a wrong type instead of failing', () => {
    const old = scheduleOf({
      data: {
        schedule: ['x', { start_time: '2030-01-07T20:00:00Z', duration: 60 }, { repeat: 'hourly', start_time: T0, duration: 60, time_zone: 'Mars/Olympus' }],
      },
    });
    expect(starts(occurrencesBetween(old, T0 - DAY, T0 + 3 * DAY))).toEqual(['2030-01-07T20:00:00.000Z']);
    // A repeat longer than its period (refused on writes today) is cut to it, so repeats never pile up.
    const long = scheduleOf({ data: { schedule: [{ repeat: 'daily', start_time: T0, duration: 3 * 86400 }] } });
    expect(spans(occurrencesBetween(long, T0 + 10 * DAY, T0 + 10 * DAY + 1))).toEqual([['2030-01-17T20:00:00.000Z', '2030-01-18T20:00:00.000Z']]);
  });
});

describe('what plays now', () => {
  const video = (id: string, name: string) => ({ _id: id, data: { name } });

  it('finds the occurrence of a weekly repeat that covers now, with the seconds into it', () => {
    const schedule = items({ kind: 'video', repeat: 'weekly', start_time: T0, duration: 3600, video: video('v1', 'Weekly show') });
    expect(playingNow(schedule, T0 + 14 * DAY + 10 * MIN)).toMatchObject({ videoId: 'v1', offset: 600 });
    expect(playingNow(schedule, T0 + 14 * DAY + HOUR)).toBeNull();
    expect(playingNow(schedule, T0 - 7 * DAY + MIN)).toBeNull();
  });

  it('lets the occurrence that started last win, and skips items without a video or of another kind', () => {
    const schedule = items(
      { kind: 'video', repeat: 'daily', start_time: T0, duration: 4 * 3600, video: video('slot', 'Evening') },
      { kind: 'video', start_time: T0 + DAY + HOUR, duration: 1800, video: video('special', 'Special') },
      { kind: 'break', start_time: T0 + DAY + HOUR, duration: 3600, video: video('ad', 'Ad') },
      { start_time: T0 + DAY, duration: 3600 },
    );
    expect(playingNow(schedule, T0 + DAY + 30 * MIN)).toMatchObject({ videoId: 'slot', offset: 1800 });
    expect(playingNow(schedule, T0 + DAY + HOUR + MIN)).toMatchObject({ videoId: 'special', offset: 60 });
    expect(playingNow(schedule, T0 + DAY + 2 * HOUR)).toMatchObject({ videoId: 'slot', offset: 7200 });
  });
});

describe('the countdown', () => {
  it('is the page’s own countdown while its start is ahead', () => {
    const own = page([{ show_countdown: true, start_time: T0 + HOUR, video: { data: { name: 'Item' } } }], {
      countdown: { title: 'Finals', start_time: T0 + DAY },
    });
    expect(countdownOf(own, T0)).toEqual({ title: 'Finals', startsAt: T0 + DAY });
    // Once it has passed, the next item that shows a countdown.
    expect(countdownOf(own, T0 + 2 * DAY)).toBeNull();
    expect(countdownOf(own, T0 - DAY)).toEqual({ title: 'Finals', startsAt: T0 + DAY });
  });

  it('is else the soonest next start of an item with show_countdown, titled from its video', () => {
    const schedule = page(
      [
        { show_countdown: true, repeat: 'weekly', start_time: T0, duration: 3600, video: { data: { title: 'Weekly' } } },
        { show_countdown: false, start_time: T0 + HOUR, duration: 60, video: { data: { name: 'Hidden' } } },
        { show_countdown: true, start_time: T0 + 3 * DAY, duration: 60, video: { data: { name: 'Premiere' } } },
      ],
      { countdown: { title: 'Past', start_time: T0 - DAY } },
    );
    expect(countdownOf(schedule, T0 - MIN)).toEqual({ title: 'Weekly', startsAt: T0 });
    // While the weekly show runs, the next start counted down to is the premiere.
    expect(countdownOf(schedule, T0 + 10 * MIN)).toEqual({ title: 'Premiere', startsAt: T0 + 3 * DAY });
    expect(countdownOf(schedule, T0 + 4 * DAY)).toEqual({ title: 'Weekly', startsAt: T0 + 7 * DAY });
    expect(countdownOf(page([{ show_countdown: true, start_time: T0, duration: 60 }]), T0 - 1)).toEqual({ title: null, startsAt: T0 });
    expect(countdownOf(page([]), T0)).toBeNull();
    expect(countdownOf({ document: null }, T0)).toBeNull();
  });
});

describe('checks of page writes', () => {
  const refusal = (data: Record<string, unknown>) => {
    try {
      checkScheduleData(data);
    } catch (error) {
      const { message, extensions } = error as GraphQLError;
      return { code: extensions.code, field: extensions.field, message };
    }
    return null;
  };

  it('accepts the seed’s items and ours', () => {
    expect(
      refusal({
        schedule: [
          {
            all_day: false,
            array_id: 'a',
            duration: 3600,
            end_time: T0 + HOUR,
            kind: 'video',
            repeat: 'none',
            show_countdown: true,
            start_date: T0,
            start_time: T0,
            video: { _id: 'v', data: { name: 'n' }, slug: 's' },
          },
          { repeat: 'weekly', start_time: T0, duration: 60, time_zone: 'America/New_York', all_day: null },
        ],
        countdown: { title: 'Go', start_time: T0 },
      }),
    ).toBeNull();
  });

  it.each([
    ['data.schedule[2].repeat', { schedule: [{}, {}, { repeat: 'hourly' }] }],
    ['data.schedule[0].start_time', { schedule: [{ start_time: '2030-01-07' }] }],
    ['data.schedule[0].end_time', { schedule: [{ end_time: -1 }] }],
    ['data.schedule[0].start_date', { schedule: [{ start_date: 1e300 }] }],
    ['data.schedule[0].duration', { schedule: [{ duration: -5 }] }],
    ['data.schedule[0].end_time', { schedule: [{ start_time: T0, end_time: T0 - 1 }] }],
    ['data.schedule[0].duration', { schedule: [{ repeat: 'daily', duration: 86401 }] }],
    ['data.schedule[0].end_time', { schedule: [{ repeat: 'weekly', start_time: T0, end_time: T0 + 7 * DAY + 1 }] }],
    ['data.schedule[0].all_day', { schedule: [{ all_day: 'yes' }] }],
    ['data.schedule[0].show_countdown', { schedule: [{ show_countdown: 1 }] }],
    ['data.schedule[0].time_zone', { schedule: [{ time_zone: 'Mars/Olympus' }] }],
    ['data.schedule[0]', { schedule: [7] }],
    ['data.schedule', { schedule: {} }],
    ['data.schedule', { schedule: Array.from({ length: 501 }, () => ({})) }],
    ['data.countdown.start_time', { countdown: { start_time: 'soon' } }],
  ])('refuses a wrong %s, naming it', (field, data) => {
    expect(refusal(data)).toMatchObject({ code: 'BAD_USER_INPUT', field, message: expect.stringContaining(field) });
  });

  it('takes a window of at most 92 days with to after from', () => {
    expect(() => checkWindow(T0, T0 + 92 * DAY)).not.toThrow();
    for (const [from, to, field] of [
      [T0, T0, 'to'],
      [T0, T0 + 92 * DAY + 1, 'to'],
      [-1, T0, 'from'],
      [T0, Number.POSITIVE_INFINITY, 'to'],
    ] as const) {
      expect(() => checkWindow(from, to)).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ field }) }));
    }
  });
});
