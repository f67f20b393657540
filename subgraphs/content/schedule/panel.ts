/**
 * What a schedule panel lists between two times: the schedule items of its `source_channels` (the site's
 * own pages, repeats expanded) and its `manual_events`, in start order.
 */
import type { Db } from '../../../shared/db/client';
import { badInput, notFound } from '../../../shared/errors';
import { isRecord, type JsonRecord } from '../checks';
import { findPanel } from '../panels';
import { isScheduleTime, scheduleOf } from './items';
import { occurrencesBetween } from './occurrences';
import { DAY_MS } from './zone';

/** Widest window one read covers: a quarter (92 days). */
export const MAX_WINDOW_MS = 92 * DAY_MS;

/**
 * Most entries one read answers; a window holding more is refused (ask for a shorter one). Executing and
 * serializing the answer is synchronous: 4,600 entries held the event loop ~40 ms on an idle core.
 */
export const MAX_ENTRIES = 2000;

/** Most source channels a panel's read looks at. */
const MAX_SOURCE_CHANNELS = 200;

/** One entry of a schedule panel: an occurrence of a channel's schedule item, or a manual event. */
export interface ScheduleEntry {
  kind: 'channel' | 'manual';
  channelId: string | null;
  channelSlug: string | null;
  name: string;
  startsAt: number;
  endsAt: number;
  allDay: boolean;
  videoId: string | null;
  location: string | null;
  moreInfo: string | null;
  references: string[] | null;
}

/** A schedule panel's entries in [from, to). */
export interface PanelSchedule {
  panelId: string;
  from: number;
  to: number;
  results: ScheduleEntry[];
}

/** `from` and `to` name a window the read serves: both times, `to` after `from`, at most 92 days apart. */
export function checkWindow(from: number, to: number): void {
  if (!isScheduleTime(from)) throw badInput('from must be a Unix time in milliseconds', 'from');
  if (!isScheduleTime(to)) throw badInput('to must be a Unix time in milliseconds', 'to');
  if (to <= from) throw badInput('to must be after from', 'to');
  if (to - from > MAX_WINDOW_MS) throw badInput('to must be at most 92 days after from', 'to');
}

const textOr = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A manual event's entry: it starts at `start_time` (ours) and ends at `end_time`; with only one of them it is a moment. */
function manualEntry(event: JsonRecord): ScheduleEntry | null {
  const start = isScheduleTime(event.start_time) ? event.start_time : null;
  const end = isScheduleTime(event.end_time) ? event.end_time : null;
  const startsAt = start ?? end;
  if (startsAt === null) return null;
  return {
    kind: 'manual',
    channelId: null,
    channelSlug: null,
    name: textOr(event.name) ?? '',
    startsAt,
    endsAt: Math.max(end ?? startsAt, startsAt),
    allDay: false,
    videoId: null,
    location: textOr(event.location),
    moreInfo: textOr(event.more_info),
    references: Array.isArray(event.references) ? event.references.filter((reference): reference is string => typeof reference === 'string') : [],
  };
}

const overlaps = (entry: ScheduleEntry, from: number, to: number) =>
  entry.startsAt < to && (entry.endsAt > from || (entry.endsAt === entry.startsAt && entry.startsAt >= from));

function tooMany(): never {
  throw badInput(`the window holds more than ${MAX_ENTRIES} entries: ask for a shorter one`, 'to');
}

/** The renderer's schedule part of a schedule panel; another kind of panel is not found. */
function scheduleRenderer(panel: { id: string; type: string; renderer: unknown }): JsonRecord {
  const renderer = isRecord(panel.renderer) ? panel.renderer : {};
  if (isRecord(renderer.schedule_type_renderer)) return renderer.schedule_type_renderer;
  if (panel.type === 'schedule') return {};
  throw notFound(`schedule panel ${panel.id}`);
}

/**
 * The entries of a schedule panel of the site in [from, to), by start (then the order of its source
 * channels and their items, manual events last). Source channels are named by page ID or slug; pages of
 * another site are not looked at.
 */
export async function panelSchedule(db: Db, siteId: string, panelId: string, from: number, to: number): Promise<PanelSchedule> {
  checkWindow(from, to);
  const renderer = scheduleRenderer(await findPanel(db, siteId, panelId));
  const sources = (Array.isArray(renderer.source_channels) ? renderer.source_channels : [])
    .filter((source): source is string => typeof source === 'string' && source !== '')
    .slice(0, MAX_SOURCE_CHANNELS);
  const pages = sources.length
    ? await db.page.findMany({
        where: { siteId, OR: [{ id: { in: sources } }, { slug: { in: sources } }] },
        select: { id: true, slug: true, name: true, document: true },
      })
    : [];
  const order = (page: { id: string; slug: string }) => Math.min(...[sources.indexOf(page.id), sources.indexOf(page.slug)].filter((index) => index >= 0));
  pages.sort((a, b) => order(a) - order(b));

  const results: ScheduleEntry[] = [];
  for (const page of pages) {
    for (const occurrence of occurrencesBetween(scheduleOf(page.document), from, to, MAX_ENTRIES - results.length)) {
      results.push({
        kind: 'channel',
        channelId: page.id,
        channelSlug: page.slug,
        name: occurrence.item.videoName ?? (page.name || page.slug),
        startsAt: occurrence.startsAt,
        endsAt: occurrence.endsAt,
        allDay: occurrence.item.allDay,
        videoId: occurrence.item.videoId,
        location: null,
        moreInfo: null,
        references: null,
      });
    }
    if (results.length > MAX_ENTRIES) tooMany();
  }
  for (const event of Array.isArray(renderer.manual_events) ? renderer.manual_events : []) {
    const entry = isRecord(event) ? manualEntry(event) : null;
    if (entry && overlaps(entry, from, to)) results.push(entry);
  }
  if (results.length > MAX_ENTRIES) tooMany();
  // Array.prototype.sort is stable: equal starts keep the order they were gathered in.
  return { panelId, from, to, results: results.sort((a, b) => a.startsAt - b.startsAt) };
}
