/**
 * Schedule items expanded into occurrences: when each item plays, repeats included. The rules (also in
 * docs/show.md's "Schedules" section):
 *
 * - `start_time` is the first occurrence's start; it sets the local time of day of every repeat (and, for
 *   `weekly`, the weekday). An item's length is `end_time − start_time` when `end_time` is given, else
 *   `duration` seconds, else 0 (a moment: listed, never playing). Every repeat has the same length.
 * - `repeat`: `none` plays once; `daily` every local day; `weekly` every 7 local days. A repeat is at most
 *   its period long (page writes refuse longer; an older document's is cut), so repeats never pile up.
 * - `start_date`, on a repeating item, is the first local day occurrences fall on (earlier or later
 *   than `start_time`'s day); without it the series starts at `start_time`.
 * - `all_day`: each occurrence covers whole local days, midnight to midnight — one day, or the days up to
 *   the one holding `end_time` (exclusive) or as many as `duration` spans; an all-day item without
 *   `start_time` starts on `start_date`.
 * - "Local" is the item's `time_zone` (ours, an IANA name such as Europe/Paris) or UTC when it has none,
 *   so a repeat keeps its wall-clock time across a daylight-saving change.
 */
import { LATEST_TIME, type ScheduleItem } from './items';
import { DAY_MS, fromLocal, startOfDay, toLocal } from './zone';

/** One time an item plays. */
export interface Occurrence {
  item: ScheduleItem;
  /** Unix ms. */
  startsAt: number;
  /** Unix ms; equal to startsAt for a moment. */
  endsAt: number;
}

/** Longest an all-day item spans: a year, so a wrong `duration` cannot walk off the calendar. */
const MAX_ALL_DAY_DAYS = 366;

/**
 * An item's occurrences by number (0 = the one `start_time` names): occurrence `k`, the first and last
 * numbers it has, and a number at or before the first occurrence that ends after a given time.
 */
type Series = { at: (k: number) => { startsAt: number; endsAt: number }; firstK: number; lastK: number; approxK: (time: number) => number };

/** The item's series, or null when it names no start. */
function seriesOf(item: ScheduleItem): Series | null {
  const zone = item.timeZone;
  const anchor = item.allDay ? (item.startTime ?? item.startDate) : item.startTime;
  if (anchor === null) return null;
  const local = toLocal(anchor, zone);
  const step = item.repeat === 'weekly' ? 7 : 1;
  const longest = item.repeat === 'none' ? MAX_ALL_DAY_DAYS : step;
  let at: Series['at'];
  let lengthMs: number;
  if (item.allDay) {
    const days =
      item.endTime !== null && item.endTime > anchor
        ? toLocal(item.endTime - 1, zone).day - local.day + 1
        : item.durationMs
          ? Math.ceil(item.durationMs / DAY_MS)
          : 1;
    const span = Math.min(Math.max(days, 1), longest);
    lengthMs = span * DAY_MS;
    at = (k) => ({ startsAt: startOfDay(local.day + k * step, zone), endsAt: startOfDay(local.day + k * step + span, zone) });
  } else {
    const given = item.endTime !== null && item.endTime >= anchor ? item.endTime - anchor : (item.durationMs ?? 0);
    lengthMs = item.repeat === 'none' ? given : Math.min(given, step * DAY_MS);
    at = (k) => {
      const startsAt = fromLocal({ day: local.day + k * step, msOfDay: local.msOfDay }, zone);
      return { startsAt, endsAt: startsAt + lengthMs };
    };
  }
  if (item.repeat === 'none') return { at, firstK: 0, lastK: 0, approxK: () => 0 };
  const firstK = item.startDate === null || (item.allDay && item.startTime === null) ? 0 : Math.ceil((toLocal(item.startDate, zone).day - local.day) / step);
  const period = step * DAY_MS;
  return {
    at,
    firstK,
    lastK: Math.floor((LATEST_TIME - anchor) / period) - 1,
    // One period of slack covers a daylight-saving hour either way.
    approxK: (time) => Math.floor((time - anchor - lengthMs) / period) - 1,
  };
}

const endsAfter = (occurrence: { startsAt: number; endsAt: number }, from: number) =>
  occurrence.endsAt > from || (occurrence.endsAt === occurrence.startsAt && occurrence.startsAt >= from);

/** An item's occurrences that end after `from` (a moment: that start at or after it), in start order; endless for a repeat. */
export function* occurrencesFrom(item: ScheduleItem, from: number): Generator<Occurrence> {
  const series = seriesOf(item);
  if (!series) return;
  for (let k = Math.max(series.firstK, series.approxK(from)); k <= series.lastK; k += 1) {
    const occurrence = series.at(k);
    if (endsAfter(occurrence, from)) yield { item, ...occurrence };
  }
}

/**
 * The occurrences of the items that overlap [from, to) — they start before `to` and end after `from` (a
 * moment: starts within the window) — by start, then by position in the schedule. Stops once it has
 * more than `max`, so a caller can refuse a window that holds too many without computing them all.
 */
export function occurrencesBetween(items: readonly ScheduleItem[], from: number, to: number, max = Number.POSITIVE_INFINITY): Occurrence[] {
  const found: Occurrence[] = [];
  for (const item of items) {
    for (const occurrence of occurrencesFrom(item, from)) {
      if (occurrence.startsAt >= to) break;
      found.push(occurrence);
      if (found.length > max) return found;
    }
  }
  return found.sort((a, b) => a.startsAt - b.startsAt || a.item.index - b.item.index);
}

/** What the schedule plays at `now`: a video and how many seconds into its occurrence. */
export interface Playing {
  videoId: string;
  /** Seconds since the occurrence started. */
  offset: number;
  occurrence: Occurrence;
}

/**
 * The video whose occurrence covers `now` (items of kind `video`, or of no kind, with a `video._id`).
 * When occurrences overlap, the one that started last wins (a special inserted into a daily slot plays
 * over it), then the earlier item in the schedule.
 */
export function playingNow(items: readonly ScheduleItem[], now: number): Playing | null {
  let best: Occurrence | null = null;
  const videos = items.filter((item) => item.videoId !== null && (item.kind === null || item.kind === 'video'));
  for (const occurrence of occurrencesBetween(videos, now, now + 1)) {
    if (occurrence.startsAt <= now && occurrence.endsAt > now && (!best || occurrence.startsAt > best.startsAt)) best = occurrence;
  }
  return best ? { videoId: best.item.videoId as string, offset: (now - best.startsAt) / 1000, occurrence: best } : null;
}

/** The item's first start after `now`, or null when it has none. */
export function nextStartAfter(item: ScheduleItem, now: number): number | null {
  for (const occurrence of occurrencesFrom(item, now)) if (occurrence.startsAt > now) return occurrence.startsAt;
  return null;
}
