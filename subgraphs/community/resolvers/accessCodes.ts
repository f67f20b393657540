/** Resolvers of access codes (single, bulk, redemption) and TV codes. */
import { requireAdmin, requireSite } from '../../../shared/auth/access';
import {
  batchAsAccessCodes,
  batchAsCsv,
  batchAsJson,
  consumeAccessCode,
  createAccessCode,
  createAccessCodes,
  deleteAccessCode,
  findAccessCode,
  signInWithAccessCode,
} from '../accessCodes';
import { providerOf } from '../../../shared/db/providers';
import { requireAccount } from '../runtime';
import { Scope } from '../scopes';
import { activateTvCode, claimTvSession, createTvCode } from '../tvCodes';
import type { CommunityRuntime } from '../runtime';
import type { Resolvers } from '../resolvers.generated';

/** Resolvers of access codes and TV codes. */
export function accessCodeResolvers(runtime: CommunityRuntime): Resolvers {
  return {
    Query: {
      accessCode: (_root, { id }, { identity, db }) => findAccessCode(db, requireAdmin(identity, Scope.accessCodes, { write: false }), id),
    },
    Mutation: {
      createAccessCode: (_root, { input }, { identity, db }) => createAccessCode(db, requireAdmin(identity, Scope.accessCodes, { write: true }), input),
      deleteAccessCode: (_root, { id }, { identity, db }) => deleteAccessCode(db, requireAdmin(identity, Scope.accessCodes, { write: true }), id),
      consumeAccessCode: (_root, { accessCode }, { identity, db }) => {
        const { siteId, accountId } = requireAccount(identity);
        return consumeAccessCode(db, runtime.limits, siteId, accountId, accessCode);
      },
      signInWithAccessCode: (_root, { accessCode, deviceId }, { identity, db, config }) =>
        signInWithAccessCode(db, config, runtime.limits, requireSite(identity), accessCode, deviceId),
      createAccessCodes: async (_root, { sku, qty }, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.accessCodes, { write: true });
        const batch = await createAccessCodes(db, providerOf(config.databaseUrl), siteId, sku, qty);
        return { batchId: batch.batchId, sku: batch.sku, count: batch.rows.length, codes: batchAsAccessCodes(batch) };
      },
      createAccessCodesFile: async (_root, { sku, qty, kind }, { identity, db, config }) => {
        const siteId = requireAdmin(identity, Scope.accessCodes, { write: true });
        const batch = await createAccessCodes(db, providerOf(config.databaseUrl), siteId, sku, qty);
        return kind === 'csv'
          ? { contentType: 'text/csv; charset=utf-8', fileName: `access-codes-${batch.sku}-${batch.batchId}.csv`, content: batchAsCsv(batch) }
          : { contentType: 'application/json; charset=utf-8', fileName: null, content: batchAsJson(batch) };
      },
      createTvCode: (_root, { deviceId }, { identity, db }) => createTvCode(db, runtime.limits, requireSite(identity), deviceId),
      activateTvCode: (_root, { code }, { identity, db }) => {
        const { siteId, accountId } = requireAccount(identity);
        return activateTvCode(db, siteId, accountId, code);
      },
      claimTvSession: (_root, { deviceToken }, { identity, db, config }) => claimTvSession(db, config, requireSite(identity), deviceToken),
    },
    AccessCode: {
      type: (code) => code.type as 'subscription' | 'login',
      consumed: (code) => code.consumedAt !== null,
      created: (code) => code.createdAt.getTime(),
      modified: (code) => code.updatedAt.getTime(),
    },
  };
}
