/** Resolvers of the content subgraph, one file per area under resolvers/, merged here. */
import { calendarResolvers } from './resolvers/calendar';
import { pageResolvers } from './resolvers/pages';
import { panelResolvers } from './resolvers/panels';
import { playlistResolvers } from './resolvers/playlists';
import { pollResolvers } from './resolvers/polls';
import { questResolvers } from './resolvers/quests';
import { siteResolvers } from './resolvers/site';
import { templateResolvers } from './resolvers/templates';
import { webhookResolvers } from './resolvers/webhooks';
import type { Resolvers } from './resolvers.generated';

function mergeResolvers(...parts: Resolvers[]): Resolvers {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const part of parts) {
    for (const [type, fields] of Object.entries(part)) merged[type] = { ...merged[type], ...(fields as Record<string, unknown>) };
  }
  return merged as Resolvers;
}

export const resolvers: Resolvers = mergeResolvers(
  siteResolvers,
  pageResolvers,
  templateResolvers,
  panelResolvers,
  playlistResolvers,
  pollResolvers,
  questResolvers,
  calendarResolvers,
  webhookResolvers,
);
