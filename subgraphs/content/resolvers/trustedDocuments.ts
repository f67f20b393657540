/** Resolvers of a site's trusted documents: registration (C + D), the list and the site's setting (D or a Site role). */
import { requireAdmin } from '../../../shared/auth/access';
import { unauthenticated } from '../../../shared/errors';
import type { Resolvers } from '../resolvers.generated';
import { registerTrustedDocuments } from '../trustedDocuments';
import { Scopes } from '../scopes';

export const trustedDocumentResolvers: Resolvers = {
  Query: {
    trustedDocuments: async (_root, _args, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.site, { write: false });
      const rows = await db.trustedDocument.findMany({ where: { siteId }, orderBy: [{ createdAt: 'asc' }, { hash: 'asc' }] });
      return rows.map((row) => ({ id: row.hash, name: row.name, type: row.type, body: row.body, created: row.createdAt.getTime() }));
    },
  },
  Mutation: {
    registerTrustedDocuments: (_root, { manifest }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.site, { write: true });
      // What a site trusts is the developer's build output: a signed-in admin's session is not enough.
      if (!identity.developerKey) throw unauthenticated('x-service-developer-key header is required');
      return registerTrustedDocuments(db, siteId, manifest);
    },
    setTrustedDocumentsOnly: async (_root, { enabled }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.site, { write: true });
      const [site, documents] = await db.$transaction([
        db.site.update({ where: { id: siteId }, data: { trustedDocumentsOnly: enabled, updatedAt: new Date() } }),
        db.trustedDocument.count({ where: { siteId } }),
      ]);
      return { trustedDocumentsOnly: site.trustedDocumentsOnly, documents };
    },
  },
};
