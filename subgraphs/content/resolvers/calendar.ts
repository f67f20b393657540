/** Resolvers of calendar events: reads (C), writes (D or a Calendar role). */
import { requireAdmin, requireReader } from '../../../shared/auth/access';
import type { Db } from '../../../shared/db/client';
import type { CalendarEvent, Prisma } from '../../../shared/db/generated/sqlite';
import { newId } from '../../../shared/ids';
import {
  calendarCategories,
  calendarEventFields,
  calendarFilters,
  calendarLabels,
  eventCategories,
  eventsBetween,
  findCalendarEvent,
  writeEventLabels,
} from '../calendar';
import type { CalendarDate, CalendarEventInput, Resolvers } from '../resolvers.generated';
import { Scopes, timestamps } from '../scopes';

/** Creates (no id) or updates an event, with its label rows, in one transaction. */
function saveEvent(db: Db, siteId: string, input: CalendarEventInput, id: string | null): Promise<CalendarEvent> {
  const fields = calendarEventFields(input, siteId);
  const data = { ...fields, categories: fields.categories as Prisma.InputJsonValue };
  const now = new Date();
  return db.$transaction(async (tx) => {
    const event = id
      ? await tx.calendarEvent.update({ where: { id }, data: { ...data, updatedAt: now } })
      : await tx.calendarEvent.create({ data: { ...data, id: newId(), siteId, createdAt: now, updatedAt: now } });
    await writeEventLabels(tx, event);
    return event;
  });
}

export const calendarResolvers: Resolvers = {
  Query: {
    calendarEvents: (_root, { startTimestamp, endTimestamp }, { identity, db }) => eventsBetween(db, requireReader(identity), startTimestamp, endTimestamp),
    calendarEvent: (_root, { id }, { identity, db }) => findCalendarEvent(db, requireReader(identity), id),
    calendarFilters: (_root, _args, { identity, db }) => calendarFilters(db, requireReader(identity)),
    calendarCategories: (_root, _args, { identity, db }) => calendarCategories(db, requireReader(identity)),
    calendarLabels: (_root, { categoryTitle }, { identity, db }) => calendarLabels(db, requireReader(identity), categoryTitle),
  },
  Mutation: {
    createCalendarEvent: (_root, { input }, { identity, db }) => saveEvent(db, requireAdmin(identity, Scopes.calendar, { write: true }), input, null),
    updateCalendarEvent: async (_root, { id, input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.calendar, { write: true });
      const current = await findCalendarEvent(db, siteId, id);
      return saveEvent(db, siteId, input, current.id);
    },
    deleteCalendarEvent: async (_root, { id }, { identity, db }) => {
      const event = await findCalendarEvent(db, requireAdmin(identity, Scopes.calendar, { write: true }), id);
      await db.$transaction([db.calendarEventLabel.deleteMany({ where: { eventId: event.id } }), db.calendarEvent.delete({ where: { id: event.id } })]);
      return { id: event.id, success: true };
    },
  },
  CalendarEvent: {
    categories: (event) => eventCategories(event),
    date: (event) => event.date as unknown as CalendarDate,
    image: (event) => (event.image as { show: boolean; src: string | null } | null) ?? { show: false, src: null },
    ...timestamps,
  },
};
