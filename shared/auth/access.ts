/**
 * What a caller may do, decided in the subgraphs from the signed identity. The seeds' Auth codes:
 * C scopes everything to a site; D (developer key) may do anything on its site; J (a signed-in
 * account) may do what its roles allow.
 */
import { forbidden, unauthenticated } from '../errors';
import type { Identity } from './identity';

/** The caller's site ID; every read and write is scoped by it. */
export function requireSite(identity: Identity): string {
  if (!identity.siteId) throw unauthenticated('x-service-client-id header is required');
  return identity.siteId;
}

/**
 * A read the seeds do not give to the site ID alone. The site ID (what every viewer's browser holds)
 * reads exactly what a seed row gives to C alone (docs/design.md "Authentication": pages and channels, a
 * poll, bundle or playlist by id, the availability listing, …: those use `requireSite`); anything else
 * needs a developer key or a signed-in account of the site. Returns the site ID.
 */
export function requireReader(identity: Identity): string {
  const siteId = requireSite(identity);
  if (!identity.developerKey && !identity.account) {
    throw unauthenticated('x-service-developer-key header or Authorization: Bearer <JWT> is required');
  }
  return siteId;
}

/**
 * A role grants its scope (`*` = every scope) for reading, and for writing when `write` is set. A role
 * with page IDs is limited to those pages: it counts only for a call about one of them.
 */
function roleAllows(identity: Identity, scope: string, write: boolean, pageId: string | null): boolean {
  const wanted = scope.toLowerCase();
  return (identity.account?.roles ?? []).some((role) => {
    const pages = role.pageId ?? [];
    return (
      (role.scope === '*' || role.scope.toLowerCase() === wanted) &&
      (!write || role.write) &&
      (pages.length === 0 || (pageId !== null && pages.includes(pageId)))
    );
  });
}

/** Whether the caller has the admin access `requireAdmin` checks, for calls open to an owner too. */
export function hasAdminAccess(identity: Identity, scope: string, { write, pageId = null }: { write: boolean; pageId?: string | null }): boolean {
  return identity.siteId !== null && (identity.developerKey || roleAllows(identity, scope, write, pageId));
}

/**
 * Admin access to one permission scope (for example `Overlays`): a developer key, or an account
 * whose roles include the scope (with `write` when changing; for `pageId` when the call is about one
 * page). Returns the site ID.
 */
export function requireAdmin(identity: Identity, scope: string, { write, pageId = null }: { write: boolean; pageId?: string | null }): string {
  const siteId = requireSite(identity);
  if (identity.developerKey) return siteId;
  if (!identity.account) {
    throw unauthenticated('x-service-developer-key header or Authorization: Bearer <JWT> is required');
  }
  if (!roleAllows(identity, scope, write, pageId)) {
    throw forbidden(`this account has no ${write ? 'write' : 'read'} access to ${scope}`);
  }
  return siteId;
}
