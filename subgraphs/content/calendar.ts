/**
 * Calendar events of a site. An event spans [startTimestamp, endTimestamp] (or is a moment when it has
 * no end time); listing a window returns exactly the events that overlap it. The labels events carry
 * are kept in a side table on every write, so filters, categories and labels are derived from the
 * stored events by grouping rows instead of reading every event.
 */
import type { Db } from '../../shared/db/client';
import type { CalendarEvent, Prisma } from '../../shared/db/generated/sqlite';
import { badInput } from '../../shared/errors';
import { checkListSize, checkOptionalText, checkOptionalUrl, checkSiteId, checkText, found } from './checks';
import type { CalendarCategory, CalendarEventInput } from './resolvers.generated';

/** A window of at most ten years, so a list cannot ask for everything at once by accident. */
const MAX_WINDOW_MS = 10 * 366 * 24 * 3600 * 1000;

function checkTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw badInput('date.timeZone must be an IANA time zone such as Europe/Paris', 'date.timeZone');
  }
  return timeZone;
}

function checkTimestamp(value: number, field: string): number {
  if (!Number.isFinite(value) || Math.abs(value) > 8.64e15) throw badInput(`${field} must be a Unix time in milliseconds`, field);
  return value;
}

/** The columns of an event from its input (create and update take the same fields). */
export function calendarEventFields(input: CalendarEventInput, siteId: string) {
  checkSiteId(input.siteId, siteId);
  const start = checkTimestamp(input.date.startTimestamp, 'date.startTimestamp');
  const end = input.date.endTimestamp === undefined || input.date.endTimestamp === null ? null : checkTimestamp(input.date.endTimestamp, 'date.endTimestamp');
  const useEndTime = input.date.useEndTime ?? end !== null;
  if (useEndTime && end === null) throw badInput('date.endTimestamp is required when date.useEndTime is true', 'date.endTimestamp');
  if (end !== null && end < start) throw badInput('date.endTimestamp must not be before date.startTimestamp', 'date.endTimestamp');
  const categories = checkListSize(input.categories ?? [], 'categories', 50).map((category, index) => {
    const field = `categories[${index}]`;
    return {
      id: checkText(category.id, `${field}.id`, 64),
      title: checkText(category.title, `${field}.title`, 100),
      label: {
        id: checkText(category.label.id, `${field}.label.id`, 64),
        title: checkText(category.label.title, `${field}.label.title`, 100),
        color: checkText(category.label.color, `${field}.label.color`, 32),
      },
    };
  });
  // No image is stored as one not shown: a JSON column is never set to null (the two databases' clients disagree on how).
  const image = input.image ? { show: input.image.show, src: checkOptionalUrl(input.image.src, 'image.src') } : { show: false, src: null };
  return {
    titleRaw: checkText(input.titleRaw, 'titleRaw', 1000),
    descriptionRaw: checkOptionalText(input.descriptionRaw, 'descriptionRaw', 20_000) ?? '',
    categories,
    date: { startTimestamp: start, endTimestamp: end, timeZone: checkTimeZone(input.date.timeZone), useEndTime },
    image,
    thirdPartyEventId: checkOptionalText(input.thirdPartyEventId, 'thirdPartyEventId', 200),
    startAt: new Date(start),
    endAt: new Date(useEndTime && end !== null ? end : start),
  };
}

/** Replaces the label rows of an event. */
export async function writeEventLabels(tx: Prisma.TransactionClient, event: CalendarEvent): Promise<void> {
  await tx.calendarEventLabel.deleteMany({ where: { eventId: event.id } });
  const categories = eventCategories(event);
  const unique = [...new Map(categories.map((category) => [`${category.id}:${category.label.id}`, category])).values()];
  if (unique.length === 0) return;
  await tx.calendarEventLabel.createMany({
    data: unique.map((category) => ({
      eventId: event.id,
      siteId: event.siteId,
      categoryId: category.id,
      categoryTitle: category.title,
      labelId: category.label.id,
      labelTitle: category.label.title,
      labelColor: category.label.color,
    })),
  });
}

export function eventCategories(event: CalendarEvent): CalendarCategory[] {
  return Array.isArray(event.categories) ? (event.categories as unknown as CalendarCategory[]) : [];
}

export async function findCalendarEvent(db: Db, siteId: string, id: string): Promise<CalendarEvent> {
  return found(await db.calendarEvent.findFirst({ where: { id, siteId } }), `calendar event ${id}`);
}

/** Events overlapping [start, end]: they start before the window ends and end after it starts. */
export function eventsBetween(db: Db, siteId: string, start: number, end: number) {
  checkTimestamp(start, 'startTimestamp');
  checkTimestamp(end, 'endTimestamp');
  if (end < start) throw badInput('endTimestamp must not be before startTimestamp', 'endTimestamp');
  if (end - start > MAX_WINDOW_MS) throw badInput('the window must be at most ten years', 'endTimestamp');
  return db.calendarEvent.findMany({
    where: { siteId, startAt: { lte: new Date(end) }, endAt: { gte: new Date(start) } },
    orderBy: [{ startAt: 'asc' }, { id: 'asc' }],
  });
}

/** The distinct (category, label) pairs the site's events carry. */
function labelRows(db: Db, siteId: string, categoryTitle?: string) {
  return db.calendarEventLabel.groupBy({
    by: ['categoryId', 'categoryTitle', 'labelId', 'labelTitle', 'labelColor'],
    where: { siteId, ...(categoryTitle === undefined ? {} : { categoryTitle }) },
    orderBy: [{ categoryTitle: 'asc' }, { labelTitle: 'asc' }],
  });
}

export async function calendarCategories(db: Db, siteId: string) {
  const rows = await labelRows(db, siteId);
  return rows.map((row) => ({ id: row.categoryId, title: row.categoryTitle, label: { id: row.labelId, title: row.labelTitle, color: row.labelColor } }));
}

/** One filter per category title, with the distinct labels (title and color) its events carry. */
export async function calendarFilters(db: Db, siteId: string) {
  const filters = new Map<string, Map<string, { color: string; value: string }>>();
  for (const row of await labelRows(db, siteId)) {
    const options = filters.get(row.categoryTitle) ?? new Map<string, { color: string; value: string }>();
    options.set(`${row.labelTitle}\n${row.labelColor}`, { color: row.labelColor, value: row.labelTitle });
    filters.set(row.categoryTitle, options);
  }
  return [...filters].map(([title, options]) => ({ title, options: [...options.values()] }));
}

export async function calendarLabels(db: Db, siteId: string, categoryTitle: string) {
  const rows = await labelRows(db, siteId, categoryTitle);
  const labels = new Map(rows.map((row) => [row.labelId, { id: row.labelId, title: row.labelTitle, color: row.labelColor }]));
  return [...labels.values()];
}
