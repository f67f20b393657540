/** Resolvers of the site's developer keys: create (the key shown once), list, revoke. */
import { requireAdmin } from '../../../shared/auth/access';
import { announceDeveloperKeyRevoked } from '../../../shared/auth/keyRevocations';
import { createDeveloperKey, listDeveloperKeys, revokeDeveloperKey } from '../developerKeys';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

const epochMs = (date: Date | null) => date?.getTime() ?? null;

/** Resolvers of developer keys; revocations are announced on the bus (shared/auth/keyRevocations.ts). */
export function developerKeyResolvers(): Resolvers {
  return {
    Query: {
      developerKeys: (_root, _args, { identity, db }) => listDeveloperKeys(db, requireAdmin(identity, Scope.site, { write: false })),
    },
    Mutation: {
      createDeveloperKey: async (_root, { name }, { identity, db }) => {
        const { row, key } = await createDeveloperKey(db, requireAdmin(identity, Scope.site, { write: true }), name);
        return { id: row.id, name: row.name, key, prefix: row.prefix, created: row.createdAt.getTime() };
      },
      revokeDeveloperKey: async (_root, { id }, { identity, db, bus }) => {
        const siteId = requireAdmin(identity, Scope.site, { write: true });
        const { row, revoked } = await revokeDeveloperKey(db, siteId, id);
        // Before the answer: the next request with this key, here or anywhere, is refused.
        if (revoked) announceDeveloperKeyRevoked(bus, { siteId, keyId: row.id, keyHash: row.keyHash });
        return { success: true, message: revoked ? `developer key ${row.prefix}… revoked` : `developer key ${row.prefix}… was already revoked` };
      },
    },
    DeveloperKey: {
      created: (key) => key.createdAt.getTime(),
      lastUsedAt: (key) => epochMs(key.lastUsedAt),
      revokedAt: (key) => epochMs(key.revokedAt),
    },
  };
}
