/** Permission scopes of the content subgraph (AccountRole.scope) and the timestamps every type has. */

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

/** Unix ms of a model's timestamps, the `created` / `modified` of every type. */
export const timestamps = {
  created: (model: { createdAt: Date }) => model.createdAt.getTime(),
  modified: (model: { updatedAt: Date }) => model.updatedAt.getTime(),
};
