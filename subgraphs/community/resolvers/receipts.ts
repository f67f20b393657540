/** Resolvers of the custom receipt e-mail and the mail outbox. */
import { requireAdmin } from '../../../shared/auth/access';
import { checkPage } from '../validation';
import { deleteReceiptTemplate, senderOf, setReceiptSender, setReceiptTemplate, templateOf } from '../receipts';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

/** Resolvers of the receipt e-mail settings and the outbox. */
export function receiptResolvers(): Resolvers {
  return {
    Query: {
      receiptEmail: async (_root, _args, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.customEmail, { write: false });
        const settings = await db.receiptEmail.findUnique({ where: { siteId } });
        return { sender: senderOf(settings, config), template: templateOf(settings) };
      },
      // The outbox can hold password-reset links: reading it takes the right to set passwords anyway.
      mailOutbox: (_root, { limit }, { identity, db }) => {
        const siteId = requireAdmin(identity, Scope.accounts, { write: true });
        return db.mailMessage.findMany({ where: { siteId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: checkPage(0, limit, 50, 500).limit });
      },
    },
    Mutation: {
      setReceiptSender: (_root, { input }, { identity, db, config }) => setReceiptSender(db, config, requireAdmin(identity, Scope.customEmail, { write: true }), input),
      setReceiptTemplate: (_root, { subject, template }, { identity, db }) =>
        setReceiptTemplate(db, requireAdmin(identity, Scope.customEmail, { write: true }), subject, template),
      deleteReceiptTemplate: (_root, _args, { identity, db }) => deleteReceiptTemplate(db, requireAdmin(identity, Scope.customEmail, { write: true })),
    },
    MailMessage: {
      created: (message) => message.createdAt.getTime(),
      sent: (message) => message.sentAt?.getTime() ?? null,
    },
  };
}
