/** Resolvers of schedules: what a schedule panel lists between two times (C, the site ID alone, like every viewer read of a panel's content). */
import { requireSite } from '../../../shared/auth/access';
import { panelSchedule } from '../schedule';
import type { Resolvers } from '../resolvers.generated';

export const scheduleResolvers: Resolvers = {
  Query: {
    panelSchedule: (_root, { panelId, from, to }, { identity, db }) => panelSchedule(db, requireSite(identity), panelId, from, to),
  },
};
