/**
 * Checks of a page's `data.schedule` and `data.countdown` on every page write, so what the expansion
 * reads has the right types: each error names its field (`data.schedule[2].repeat`).
 */
import { badInput } from '../../../shared/errors';
import { isRecord, type JsonRecord } from '../checks';
import { isScheduleTime, REPEATS } from './items';
import { isTimeZone } from './zone';

/** Most items one page's schedule holds: enough for a season of slots, few enough to expand at once. */
export const MAX_SCHEDULE_ITEMS = 500;

/** Longest `duration` of an item, in seconds (366 days). */
export const MAX_DURATION_SECONDS = 366 * 24 * 3600;

const absent = (value: unknown) => value === undefined || value === null;

function checkTime(value: unknown, field: string): void {
  if (!absent(value) && !isScheduleTime(value)) throw badInput(`${field} must be a Unix time in milliseconds (a number from 0 to the end of year 9999)`, field);
}

function checkFlag(value: unknown, field: string): void {
  if (!absent(value) && typeof value !== 'boolean') throw badInput(`${field} must be a boolean`, field);
}

/** A repeat lasts at most its period (a day, a week): longer ones would overlap themselves. */
function checkRepeatLength(item: JsonRecord, field: string): void {
  const repeat = item.repeat;
  if (repeat !== 'daily' && repeat !== 'weekly') return;
  const days = repeat === 'daily' ? 1 : 7;
  const period = days * 24 * 3600;
  if (isScheduleTime(item.start_time) && isScheduleTime(item.end_time)) {
    if ((item.end_time - item.start_time) / 1000 > period)
      throw badInput(`${field}.end_time must be at most ${days} day(s) after start_time for a ${repeat} repeat`, `${field}.end_time`);
  } else if (typeof item.duration === 'number' && item.duration > period) {
    throw badInput(`${field}.duration must be at most ${period} seconds for a ${repeat} repeat`, `${field}.duration`);
  }
}

function checkItem(item: unknown, field: string): void {
  if (!isRecord(item)) throw badInput(`${field} must be an object`, field);
  if (!absent(item.repeat) && !(REPEATS as readonly unknown[]).includes(item.repeat))
    throw badInput(`${field}.repeat must be one of ${REPEATS.join(', ')}`, `${field}.repeat`);
  for (const key of ['start_time', 'end_time', 'start_date']) checkTime(item[key], `${field}.${key}`);
  const duration = item.duration;
  if (!absent(duration) && (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0 || duration > MAX_DURATION_SECONDS)) {
    throw badInput(`${field}.duration must be a number of seconds from 0 to ${MAX_DURATION_SECONDS}`, `${field}.duration`);
  }
  if (isScheduleTime(item.start_time) && isScheduleTime(item.end_time) && item.end_time < item.start_time) {
    throw badInput(`${field}.end_time must not be before ${field}.start_time`, `${field}.end_time`);
  }
  checkRepeatLength(item, field);
  checkFlag(item.all_day, `${field}.all_day`);
  checkFlag(item.show_countdown, `${field}.show_countdown`);
  if (!absent(item.time_zone) && (typeof item.time_zone !== 'string' || !isTimeZone(item.time_zone))) {
    throw badInput(`${field}.time_zone must be an IANA time zone such as Europe/Paris`, `${field}.time_zone`);
  }
  if (!absent(item.video) && !isRecord(item.video)) throw badInput(`${field}.video must be an object`, `${field}.video`);
}

/** Checks `data.schedule` (an array of items) and `data.countdown` of a page's data part. */
export function checkScheduleData(data: JsonRecord): void {
  const schedule = data.schedule;
  if (!absent(schedule)) {
    if (!Array.isArray(schedule)) throw badInput('data.schedule must be an array', 'data.schedule');
    if (schedule.length > MAX_SCHEDULE_ITEMS) throw badInput(`data.schedule must have at most ${MAX_SCHEDULE_ITEMS} items`, 'data.schedule');
    schedule.forEach((item, index) => checkItem(item, `data.schedule[${index}]`));
  }
  const countdown = data.countdown;
  if (absent(countdown)) return;
  if (!isRecord(countdown)) throw badInput('data.countdown must be an object', 'data.countdown');
  checkTime(countdown.start_time, 'data.countdown.start_time');
  if (!absent(countdown.title) && typeof countdown.title !== 'string') throw badInput('data.countdown.title must be a string', 'data.countdown.title');
}
