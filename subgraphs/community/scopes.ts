/**
 * The permission scopes of the community subgraph, as AccountRole.scope names them. A developer key
 * may do everything; a signed-in account what its roles allow (see shared/auth/access.ts).
 */
export const Scope = {
  accounts: 'Accounts',
  accessCodes: 'AccessCodes',
  invites: 'Invites',
  entitlements: 'Entitlements',
  community: 'Community',
  billing: 'Billing',
  customEmail: 'CustomEmail',
  claimStatuses: 'ClaimStatuses',
  /** The site's own settings and developer keys (the content subgraph's Site scope). */
  site: 'Site',
} as const;
