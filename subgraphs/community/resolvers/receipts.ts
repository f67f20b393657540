/** Resolvers of the custom receipt e-mail (waiting mail is the operator's: `npm run --silent cli -- outbox`). */
import { requireAdmin } from '../../../shared/auth/access';
import { deleteReceiptTemplate, senderOf, setReceiptSender, setReceiptTemplate, templateOf } from '../receipts';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

/** Resolvers of the receipt e-mail settings. */
export function receiptResolvers(): Resolvers {
  return {
    Query: {
      receiptEmail: async (_root, _args, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.customEmail, { write: false });
        const settings = await db.receiptEmail.findUnique({ where: { siteId } });
        return { sender: senderOf(settings, config), template: templateOf(settings) };
      },
    },
    Mutation: {
      setReceiptSender: (_root, { input }, { identity, db, config }) => setReceiptSender(db, config, requireAdmin(identity, Scope.customEmail, { write: true }), input),
      setReceiptTemplate: (_root, { subject, template }, { identity, db }) =>
        setReceiptTemplate(db, requireAdmin(identity, Scope.customEmail, { write: true }), subject, template),
      deleteReceiptTemplate: (_root, _args, { identity, db }) => deleteReceiptTemplate(db, requireAdmin(identity, Scope.customEmail, { write: true })),
    },
  };
}
