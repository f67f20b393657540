/**
 * Tells the content check's caches (shared/accountAccess.ts) that entitlements changed, after every
 * community mutation that may grant, revoke, cancel, remove or refund one, whether it succeeded or not
 * (a needless drop costs one read; a missed one would let a revoked viewer play). A viewer's own
 * mutation (an access code, an invite, a purchase) changes only that account; anything an admin, a
 * developer key or the service does may change any account of the site, so the whole site drops.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, OperationTypeNode, type OperationDefinitionNode } from 'graphql';
import { announceAccountAccess } from '../../shared/accountAccess';
import type { Identity } from '../../shared/auth/identity';
import type { SubgraphContext } from '../../shared/subgraph';

/** Mutations that never change what an account holds; every other mutation announces (so a new one does by default). */
const NOT_ACCESS = new Set([
  'createDeveloperKey',
  'revokeDeveloperKey',
  'signUp',
  'signIn',
  'refreshSession',
  'signOut',
  'createLoginIntent',
  'consumeLoginIntent',
  'updateAccount',
  'setAccountRoles',
  'changePassword',
  'requestPasswordReset',
  'resetPassword',
  'createAccessCode',
  'createAccessCodes',
  'createAccessCodesFile',
  'createTvCode',
  'activateTvCode',
  'claimTvSession',
  'createInvite',
  'createEntitlement',
  'createBundle',
  'exportCommunity',
  'setReceiptSender',
  'setReceiptTemplate',
  'setClaimStatus',
]);

function changesAccess(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.some((selection) => selection.kind !== Kind.FIELD || !NOT_ACCESS.has(selection.name.value));
}

/** The one account a caller's change can touch: its own, for a plain viewer; null (every account) otherwise. */
const accountTouched = (identity: Identity): string | null =>
  identity.account && !identity.developerKey && identity.account.roles.length === 0 ? identity.account.id : null;

export function announceAccessChanges(): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, contextValue }) {
          if (operation?.operation !== OperationTypeNode.MUTATION || !changesAccess(operation)) return;
          const { siteId } = contextValue.identity;
          announceAccountAccess(contextValue.bus, { siteId, accountId: siteId ? accountTouched(contextValue.identity) : null, part: 'entitlements' });
        },
      };
    },
  };
}
