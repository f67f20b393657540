/** The bus's topics: one list every publisher and subscriber names (and the metrics label by). */
/** Topic names, in one place. */
export const Topics = {
  overlayBroadcasts: 'overlay-broadcasts',
  /** Live viewer counts each instance reports (gateway/live/presence.ts → overlays insights). */
  viewerPresence: 'viewer-presence',
  /** { siteId, dataProviderIds }: automation rules of these providers changed (caches drop them). */
  automationRulesChanged: 'automation-rules-changed',
  /** { dataProviderId }: a data provider was updated or removed (caches drop it). */
  dataProviderChanged: 'data-provider-changed',
  /** { siteId }: a site's viewer-facing content changed (null: any site); per-instance caches drop it (shared/viewerReads.ts). */
  viewerReadsChanged: 'viewer-reads-changed',
  /** { siteId, event }: a stream's state changed (admins' streamStateChanged subscriptions). */
  streamStates: 'stream-states',
  /** { v, siteId, pollId, answered? | changed? }: answers were stored or the poll changed (content → live poll results). */
  pollResults: 'poll-results',
  /** { siteId, events: [{ audience: accountId, event }] }: accounts' quest progress changed (viewers' questProgress subscriptions). */
  questProgress: 'quest-progress',
  /** { siteId, keyId, keyHash }: a developer key was revoked; every instance refuses it and ends its live connections (shared/auth/keyRevocations.ts). */
  developerKeyRevoked: 'developer-key-revoked',
  /** { v, siteId, panelId, kind, … }: chat messages stored, deleted or cleared (content → viewers' chatMessages, shared/contracts/chatEvents.ts). */
  chat: 'chat',
  /** { v, siteId, panelId, counts }: one instance's reactions to a room over a second (content → viewers' chatMessages, shared/contracts/chatEvents.ts). */
  chatReactions: 'chat-reactions',
  /** { v, instanceId, at, rooms }: each gateway instance's chat viewers per room, every few seconds (summed for ChatEvent.viewers). */
  chatOccupancy: 'chat-occupancy',
  /** { siteId, channelId, acceptedAt }: a channel's show changed (integrations → viewers' channelStatus, shared/contracts/channelStatus.ts). */
  channelStatus: 'channel-status',
  /** { v, siteId, panelId }: a Q&A room's questions or votes changed (content → viewers' qaRoom, shared/contracts/qaEvents.ts). */
  qaRoom: 'qa-room',
  /** { siteId, accountId, part, origin? }: what an account holds (entitlements) or plays on (devices) changed (content check caches, shared/accountAccess.ts). */
  accountAccessChanged: 'account-access-changed',
} as const;
