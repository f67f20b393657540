/** Permission scopes of the content subgraph (AccountRole.scope), and waking the webhook dispatcher after a write. */
import type { SubgraphContext } from '../../../shared/subgraph';
import { webhookDispatcher } from '../webhookDispatcher';

export const Scopes = {
  pages: 'Pages',
  channelTemplates: 'ChannelTemplate',
  panels: 'Panels',
  playlists: 'Playlists',
  polls: 'Polls',
  quests: 'Quests',
  calendar: 'Calendar',
  site: 'Site',
  webhooks: 'Webhooks',
  videos: 'Videos',
} as const;

/** A change wrote webhook deliveries (or may have): send them now rather than at the next poll. */
export function wakeWebhooks(ctx: SubgraphContext): void {
  webhookDispatcher(ctx.db, ctx.config, ctx.logger).kick();
}

/** Unix ms of a model's timestamps, the `created` / `modified` of every type. */
export const timestamps = {
  created: (model: { createdAt: Date }) => model.createdAt.getTime(),
  modified: (model: { updatedAt: Date }) => model.updatedAt.getTime(),
};
