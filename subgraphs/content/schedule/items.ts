/**
 * A page's schedule items (seed 001: `data.schedule`) as the expansion reads them. Writes are checked
 * (validation.ts), so a stored item has the right types; what a document stored before the checks holds
 * in a wrong type is read as absent rather than refused, so no viewer read fails on an old page.
 */
import { isRecord, type JsonRecord } from '../checks';
import { isTimeZone } from './zone';

/** The latest time a schedule holds: the end of year 9999 (Unix ms), well inside what Date and Intl take. */
export const LATEST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** How an item repeats: the seed's `none`, and ours `daily` and `weekly`. */
export const REPEATS = ['none', 'daily', 'weekly'] as const;
export type Repeat = (typeof REPEATS)[number];

/** One schedule item, read from the stored document. Times are Unix ms, `durationMs` in ms. */
export interface ScheduleItem {
  /** Position in `data.schedule`: the earlier item wins a tie. */
  index: number;
  arrayId: string | null;
  kind: string | null;
  repeat: Repeat;
  allDay: boolean;
  showCountdown: boolean;
  startTime: number | null;
  endTime: number | null;
  startDate: number | null;
  durationMs: number | null;
  /** IANA zone (ours: `time_zone`); null is UTC. */
  timeZone: string | null;
  videoId: string | null;
  /** The video's `data.name`, else its `data.title`. */
  videoName: string | null;
}

/** A Unix time in ms a schedule can hold: from 1970 to the end of 9999. */
export const isScheduleTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= LATEST_TIME;

const timeOr = (value: unknown): number | null => (isScheduleTime(value) ? value : null);
const textOr = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/** The title a schedule item's video gives it: `video.data.name`, else `video.data.title`. */
export function videoNameOf(video: unknown): string | null {
  const data = isRecord(video) && isRecord(video.data) ? video.data : {};
  return textOr(data.name) ?? textOr(data.title);
}

/** Reads one stored item. */
export function readItem(item: JsonRecord, index: number): ScheduleItem {
  const video = isRecord(item.video) ? item.video : {};
  const duration = typeof item.duration === 'number' && Number.isFinite(item.duration) ? item.duration : null;
  const timeZone = textOr(item.time_zone);
  return {
    index,
    arrayId: textOr(item.array_id),
    kind: textOr(item.kind),
    repeat: (REPEATS as readonly unknown[]).includes(item.repeat) ? (item.repeat as Repeat) : 'none',
    allDay: item.all_day === true,
    showCountdown: item.show_countdown === true,
    startTime: timeOr(item.start_time),
    endTime: timeOr(item.end_time),
    startDate: timeOr(item.start_date),
    durationMs: duration !== null && duration >= 0 ? duration * 1000 : null,
    timeZone: timeZone && isTimeZone(timeZone) ? timeZone : null,
    videoId: textOr(video._id),
    videoName: videoNameOf(video),
  };
}

/** The data part of a page document (`document.data`), or an empty one. */
export function pageData(document: unknown): JsonRecord {
  return isRecord(document) && isRecord(document.data) ? document.data : {};
}

/** The schedule items of a page document, in stored order. */
export function scheduleOf(document: unknown): ScheduleItem[] {
  const schedule = pageData(document).schedule;
  if (!Array.isArray(schedule)) return [];
  return schedule.flatMap((item, index) => (isRecord(item) ? [readItem(item, index)] : []));
}
