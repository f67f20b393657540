/** Resolvers of invites (magic links). */
import { requireAdmin } from '../../../shared/auth/access';
import { stringList } from '../../../shared/json';
import { consumeInvite, createInvite, deleteInvite, findInvite, listInvites, revokeInvite, targetRolesOf, updateInvite } from '../invites';
import { Scope } from '../scopes';
import type { Resolvers } from '../resolvers.generated';

/** Resolvers of invites. */
export function inviteResolvers(): Resolvers {
  return {
    Query: {
      invites: (_root, filter, { identity, db }) => listInvites(db, requireAdmin(identity, Scope.invites, { write: false }), filter),
      invite: (_root, { id }, { identity, db }) => findInvite(db, requireAdmin(identity, Scope.invites, { write: false }), id),
    },
    Mutation: {
      createInvite: (_root, { input }, { identity, db }) => createInvite(db, identity, requireAdmin(identity, Scope.invites, { write: true }), input),
      updateInvite: (_root, { id, input }, { identity, db }) => updateInvite(db, identity, requireAdmin(identity, Scope.invites, { write: true }), id, input),
      deleteInvite: (_root, { id }, { identity, db }) => deleteInvite(db, requireAdmin(identity, Scope.invites, { write: true }), id),
      revokeInvite: (_root, { id }, { identity, db }) => revokeInvite(db, requireAdmin(identity, Scope.invites, { write: true }), id),
      // The token is the credential: whoever opens the link consumes it (on the token's own site only).
      consumeInvite: (_root, { token }, { identity, db, config }) => consumeInvite(db, config, identity, token),
    },
    Invite: {
      targetSkus: (invite) => stringList(invite.targetSkus),
      targetRoles: (invite) => targetRolesOf(invite),
      token: (invite) => invite.token ?? null,
      tags: (invite) => stringList(invite.tags),
      created: (invite) => invite.createdAt.getTime(),
      modified: (invite) => invite.updatedAt.getTime(),
    },
  };
}
