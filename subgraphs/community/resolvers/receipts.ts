/** Resolvers of the custom receipt e-mail (waiting mail is the operator's: `npm run --silent cli -- outbox`). */
import { requireAdmin } from '../../../shared/auth/access';
import { appError, ErrorCode } from '../../../shared/errors';
import { deleteReceiptTemplate, setReceiptTemplate, templateOf } from '../receipts';
import { senderOf, setReceiptSender } from '../senders/records';
import { verifySender } from '../senders/verification';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

/** The answer about a sender the site never added. */
function noSender(): never {
  throw appError(ErrorCode.NOT_FOUND, 'no receipt sender was added: set one with PUT /customemail/v1/add-sender-email/ first');
}

/** Resolvers of the receipt e-mail settings. */
export function receiptResolvers(): Resolvers {
  return {
    Query: {
      receiptEmail: async (_root, _args, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.customEmail, { write: false });
        const settings = await db.receiptEmail.findUnique({ where: { siteId } });
        return { sender: senderOf(settings, config), template: templateOf(settings) };
      },
      receiptSender: async (_root, _args, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.customEmail, { write: false });
        return senderOf(await db.receiptEmail.findUnique({ where: { siteId } }), config) ?? noSender();
      },
    },
    Mutation: {
      setReceiptSender: (_root, { input }, { identity, db, config }) =>
        setReceiptSender(db, config, requireAdmin(identity, Scope.customEmail, { write: true }), input),
      verifyReceiptSender: async (_root, _args, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.customEmail, { write: true });
        return senderOf(await verifySender(db, config, siteId), config) ?? noSender();
      },
      setReceiptTemplate: (_root, { subject, template }, { identity, db }) =>
        setReceiptTemplate(db, requireAdmin(identity, Scope.customEmail, { write: true }), subject, template),
      deleteReceiptTemplate: (_root, _args, { identity, db }) => deleteReceiptTemplate(db, requireAdmin(identity, Scope.customEmail, { write: true })),
    },
  };
}
