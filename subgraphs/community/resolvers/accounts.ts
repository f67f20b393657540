/** Resolvers of accounts, sign-in, sessions, login intents, roles and passwords. */
import { hasAdminAccess, requireAdmin, requireSite } from '../../../shared/auth/access';
import type { AccountRole, Identity } from '../../../shared/auth/identity';
import { forbidden, unauthenticated } from '../../../shared/errors';
import { stringList } from '../../../shared/json';
import {
  accountSearch,
  checkGrantable,
  checkManageable,
  checkRoles,
  deleteAccount,
  findAccount,
  isAdminAccount,
  listAccounts,
  rolesOf,
  signUp,
  updateAccount,
  type AccountChanges,
} from '../accounts';
import { globalAccountSites } from '../globalAccounts';
import { changePassword, requestPasswordReset, resetPassword } from '../passwords';
import { loadSubscriptions, requireAccount, type CommunityRuntime } from '../runtime';
import { Scope } from '../scopes';
import { consumeLoginIntent, createLoginIntent, refreshSession, signIn, signOut } from '../sessions';
import { checkPage, checkSameSite } from '../validation';
import type { Resolvers } from '../resolvers.generated';

/** The account's site, when the caller is the account itself or may act on Accounts. */
function selfOrAdmin(identity: Identity, accountId: string, write: boolean): string {
  if (identity.account?.id === accountId) return requireSite(identity);
  return requireAdmin(identity, Scope.accounts, { write });
}

/** Resolvers of accounts, sessions, roles and passwords (the mailer sends reset links). */
export function accountResolvers(runtime: CommunityRuntime): Resolvers {
  return {
    Query: {
      me: async (_root, _args, { identity, db }) => {
        const { siteId, accountId } = requireAccount(identity);
        return db.account.findFirst({ where: { id: accountId, siteId } });
      },
      account: (_root, { id }, { identity, db }) => findAccount(db, selfOrAdmin(identity, id, false), id),
      accounts: (_root, args, { identity, db }) => {
        const siteId = requireAdmin(identity, Scope.accounts, { write: false });
        const { offset, limit } = checkPage(args.offset, args.limit);
        return listAccounts(db, siteId, { search: args.search, offset, limit, sortBy: args.sortBy, sortDirection: args.sortDirection });
      },
      accountRoles: async (_root, { id }, { identity, db }) => rolesOf(await findAccount(db, selfOrAdmin(identity, id, false), id)),
      accountsByRole: async (_root, { property, admin }, { identity, db }) => {
        const siteId = requireAdmin(identity, Scope.accounts, { write: false });
        const { where } = accountSearch(property, 'property');
        const found = await db.account.findMany({ where: { siteId, ...where }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 });
        const accounts = admin ? found.filter(isAdminAccount) : found;
        return {
          accounts,
          userProfiles: accounts.map((account) => ({
            id: account.id,
            accountId: account.id,
            name: account.name,
            created: account.createdAt.getTime(),
            modified: account.updatedAt.getTime(),
          })),
        };
      },
      globalAccountSites: (_root, args, { identity, db, supergraph }) => {
        const { accountId } = requireAccount(identity);
        return globalAccountSites(db, supergraph, identity, accountId, args);
      },
    },
    Mutation: {
      signUp: (_root, { input }, { identity, db }) => {
        const siteId = requireSite(identity);
        checkSameSite(input.siteId, siteId);
        return signUp(db, siteId, input);
      },
      signIn: (_root, { input }, { identity, db, config }) => signIn(db, config, runtime.limits, requireSite(identity), input),
      refreshSession: (_root, { refreshToken }, { identity, db, config }) => refreshSession(db, config, requireSite(identity), refreshToken),
      signOut: async (_root, { refreshToken }, { identity, db }) => {
        await signOut(db, requireSite(identity), refreshToken);
        return { success: true, message: 'signed out' };
      },
      createLoginIntent: (_root, { input }, { identity, db, config }) => createLoginIntent(db, config, requireSite(identity), input),
      consumeLoginIntent: (_root, { token }, { identity, db, config }) => consumeLoginIntent(db, config, requireSite(identity), token),

      updateAccount: async (_root, { id, input }, { identity, db }) => {
        const targetId = id ?? identity.account?.id;
        if (!targetId) throw unauthenticated('Authorization: Bearer <JWT> is required to update your own account');
        const self = identity.account?.id === targetId;
        const admin = hasAdminAccess(identity, Scope.accounts, { write: true });
        const siteId = self ? requireSite(identity) : requireAdmin(identity, Scope.accounts, { write: true });
        const account = await findAccount(db, siteId, targetId);
        checkManageable(identity, account);
        const changes: AccountChanges = { ...input, roles: null };
        if (input.password != null && (self || !admin)) {
          throw forbidden('password: change your own password with PUT /account/v3/password (changePassword), which asks for the old one');
        }
        if (input.password != null && account.globalAccountId) {
          // Its password is its global account's, shared with other sites: one site's admin does not set it.
          throw forbidden('password: this account signs in with its global account’s password, which changes by a password reset');
        }
        // A client may send back what it read: only a change of roles or tags needs write access to Accounts.
        const same = (given: unknown, current: unknown) => JSON.stringify(given) === JSON.stringify(current);
        const rolesChange = input.roles != null && !same(checkRoles(input.roles), checkRoles((account.roles ?? []) as unknown as AccountRole[]));
        const tagsChange = input.tags != null && !same(input.tags, account.tags ?? []);
        if ((rolesChange || tagsChange) && !admin) throw forbidden('roles and tags need write access to Accounts');
        if (!admin) delete changes.tags;
        if (input.roles != null && admin) {
          changes.roles = checkRoles(input.roles);
          checkGrantable(identity, changes.roles);
        }
        return updateAccount(db, account, changes);
      },
      deleteAccount: async (_root, { id }, { identity, db }) => {
        await deleteAccount(db, identity, selfOrAdmin(identity, id, true), id);
        return { success: true, message: `account ${id} deleted` };
      },
      setAccountRoles: async (_root, { id, roles }, { identity, db }) => {
        const siteId = requireAdmin(identity, Scope.accounts, { write: true });
        const account = await findAccount(db, siteId, id);
        checkManageable(identity, account);
        const checked = checkRoles(roles);
        checkGrantable(identity, checked);
        return updateAccount(db, account, { roles: checked });
      },
      changePassword: (_root, input, { identity, db }) => {
        const { siteId, accountId } = requireAccount(identity);
        return changePassword(db, runtime.limits, siteId, accountId, input);
      },
      requestPasswordReset: (_root, input, { identity, db, config }) =>
        requestPasswordReset(db, config, runtime.mailer, runtime.limits, requireSite(identity), input),
      resetPassword: (_root, input, { identity, db }) => resetPassword(db, requireSite(identity), input),
    },
    Account: {
      __resolveReference: (reference, { identity, db }) =>
        identity.siteId ? db.account.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
      uid: (account) => account.id,
      roles: (account) => rolesOf(account),
      thirdPartyAuthProviders: (account) =>
        Array.isArray(account.thirdPartyAuthProviders) ? (account.thirdPartyAuthProviders as { accountId: string; provider: string }[]) : [],
      tags: (account) => stringList(account.tags),
      lastLogin: (account) => account.lastLoginAt?.getTime() ?? null,
      subscriptions: (account, _args, ctx) => loadSubscriptions(ctx, account.id),
      created: (account) => account.createdAt.getTime(),
      modified: (account) => account.updatedAt.getTime(),
    },
  };
}
