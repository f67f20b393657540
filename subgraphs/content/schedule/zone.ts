/**
 * Wall-clock arithmetic in an IANA time zone, with nothing but Intl: a repeat keeps its local time of day
 * across a daylight-saving change (a show at 20:00 in Europe/Paris stays at 20:00), and an all-day item
 * covers the local day. Without a zone everything is UTC and plain arithmetic.
 */

/** One day in milliseconds: local days are counted in these units (as if they were UTC days). */
export const DAY_MS = 24 * 3600 * 1000;

/** A local calendar day, counted in days since 1970-01-01, and the time of day in ms. */
export interface LocalTime {
  day: number;
  msOfDay: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether the runtime knows this IANA time zone (e.g. Europe/Paris). */
export function isTimeZone(value: string): boolean {
  try {
    formatterOf(value);
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds the zone's wall clock is ahead of UTC at `ms` (+3600000 for Paris in winter), asked of Intl. */
function askOffset(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(ms)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  // Intl drops milliseconds, so compare whole seconds.
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/** A UTC day of a zone: its offset at the start and at the end, and the minute the offset changes, if it does. */
interface ZoneDay {
  start: number;
  end: number;
  changesAt: number | null;
}

/** Days of each zone already asked about; cleared past this many, so memory stays bounded. */
const MAX_CACHED_DAYS = 50_000;
const zoneDays = new Map<string, Map<number, ZoneDay>>();

/**
 * The zone's offsets on one UTC day. Intl costs tens of microseconds a call, too much for thousands of
 * occurrences per read: one call per day boundary (kept), and a binary search to the minute on the rare
 * day the offset changes (no zone changes twice in a day, and changes fall on whole minutes).
 */
function zoneDay(timeZone: string, day: number): ZoneDay {
  let days = zoneDays.get(timeZone);
  if (!days) zoneDays.set(timeZone, (days = new Map<number, ZoneDay>()));
  const known = days.get(day);
  if (known) return known;
  if (days.size >= MAX_CACHED_DAYS) days.clear();
  const from = day * DAY_MS;
  const start = days.get(day - 1)?.end ?? askOffset(from, timeZone);
  const end = days.get(day + 1)?.start ?? askOffset(from + DAY_MS, timeZone);
  let changesAt: number | null = null;
  if (start !== end) {
    let low = 0;
    let high = 24 * 60;
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      if (askOffset(from + middle * 60_000, timeZone) === start) low = middle;
      else high = middle;
    }
    changesAt = from + high * 60_000;
  }
  const found = { start, end, changesAt };
  days.set(day, found);
  return found;
}

/** Milliseconds the zone's wall clock is ahead of UTC at `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const { start, end, changesAt } = zoneDay(timeZone, Math.floor(ms / DAY_MS));
  return changesAt !== null && ms >= changesAt ? end : start;
}

/** The local day and time of day of an instant; `timeZone` null is UTC. */
export function toLocal(ms: number, timeZone: string | null): LocalTime {
  const wall = timeZone ? ms + offsetAt(ms, timeZone) : ms;
  const day = Math.floor(wall / DAY_MS);
  return { day, msOfDay: wall - day * DAY_MS };
}

/**
 * The instant a local day and time of day names. A wall time skipped by a daylight-saving jump lands
 * an hour later; one that happens twice is its first (the earlier offset) — what calendars do.
 */
export function fromLocal(local: LocalTime, timeZone: string | null): number {
  const wall = local.day * DAY_MS + local.msOfDay;
  if (!timeZone) return wall;
  const guess = wall - offsetAt(wall - DAY_MS / 2, timeZone);
  const exact = wall - offsetAt(guess, timeZone);
  return exact === guess ? guess : wall - offsetAt(exact, timeZone);
}

/** Midnight that starts the local day `day` (days since 1970-01-01). */
export function startOfDay(day: number, timeZone: string | null): number {
  return fromLocal({ day, msOfDay: 0 }, timeZone);
}
