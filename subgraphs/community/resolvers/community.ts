/** Resolvers of community management and the payments ledger (purchases, refunds). */
import { requireAdmin } from '../../../shared/auth/access';
import { providerOf } from '../../../shared/db/providers';
import { communityAccount, communityExportFile, exportCommunity, grantEntitlementToAccount, listCommunity, updateAccountEntitlement } from '../community';
import { chargeView, recordPurchase, refundCharge } from '../ledger';
import { verifyWalletPay } from '../walletPay';
import { sendReceipt } from '../receipts';
import type { CommunityRuntime } from '../runtime';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

/** Resolvers of community management, purchases and refunds (the mailer sends receipts). */
export function communityResolvers(runtime: CommunityRuntime): Resolvers {
  return {
    Query: {
      walletPayVerification: async (_root, _args, { identity, db }) => {
        const row = await db.walletPayVerification.findUnique({ where: { siteId: requireAdmin(identity, Scope.billing, { write: false }) } });
        return row ? { domain: row.domain, verifiedAt: row.verifiedAt.getTime() } : null;
      },
      community: (_root, { query }, { identity, db, config, supergraph }) =>
        listCommunity(
          { db, provider: providerOf(config.databaseUrl), supergraph, identity, now: runtime.now() },
          requireAdmin(identity, Scope.community, { write: false }),
          query,
        ),
      communityAccount: (_root, { accountId }, { identity, db }) =>
        communityAccount(db, requireAdmin(identity, Scope.community, { write: false }), accountId, runtime.now()),
      communityExportFile: (_root, { exportId }, { identity, db }) =>
        communityExportFile(db, requireAdmin(identity, Scope.community, { write: false }), exportId),
      charges: async (_root, { accountId }, { identity, db }) => {
        const siteId = requireAdmin(identity, Scope.billing, { write: false });
        const charges = await db.charge.findMany({ where: { siteId, accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
        return charges.map(chargeView);
      },
    },
    Mutation: {
      grantEntitlement: (_root, { accountId, entitlementId }, { identity, db }) =>
        grantEntitlementToAccount(db, requireAdmin(identity, Scope.community, { write: true }), accountId, entitlementId, runtime.now()),
      updateAccountEntitlement: (_root, { input }, { identity, db }) =>
        updateAccountEntitlement(db, requireAdmin(identity, Scope.community, { write: true }), input, runtime.now()),
      exportCommunity: (_root, { input }, { identity, db, config, supergraph }) =>
        exportCommunity(
          { db, provider: providerOf(config.databaseUrl), supergraph, identity, now: runtime.now() },
          requireAdmin(identity, Scope.community, { write: false }),
          input ?? {},
        ),
      recordPurchase: async (_root, { input }, { identity, db, config, logger, supergraph }) => {
        const siteId = requireAdmin(identity, Scope.billing, { write: true });
        const purchase = await recordPurchase(db, siteId, input);
        const account = await db.account.findUniqueOrThrow({ where: { id: purchase.charge.accountId } });
        // The purchase stands even if its receipt cannot be written; the failure is logged.
        await sendReceipt(
          { db, config, logger, supergraph, mailer: runtime.mailer, templates: runtime.templates },
          siteId,
          { account, sold: purchase.sold, charge: purchase.charge, eventUrl: input.eventUrl },
          identity.requestId,
        ).catch((error: Error) => logger.error({ err: error.message, chargeId: purchase.charge.id }, 'receipt not sent'));
        return { subscription: purchase.subscription, charge: chargeView(purchase.charge) };
      },
      verifyWalletPay: (_root, _args, { identity, db, supergraph }) =>
        verifyWalletPay(db, supergraph, requireAdmin(identity, Scope.billing, { write: true }), identity),
      refundCharge: async (_root, { input }, { identity, db }) => {
        const result = await refundCharge(db, requireAdmin(identity, Scope.billing, { write: true }), input);
        return { ...result, charge: result.charge ? chargeView(result.charge) : null };
      },
    },
  };
}
