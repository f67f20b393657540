/**
 * Provisioning a site: the site, its first developer key and optionally an admin account with every
 * permission, in one transaction. The admin is linked to the global account of its e-mail (created
 * when new), so one person administers several sites with one password. The CLI uses it to hand a new
 * install its first credentials.
 */
import { hashPassword, hashToken, newDeveloperKey, verifyPassword } from '../../shared/auth/credentials';
import type { AccountRole } from '../../shared/auth/identity';
import type { Db } from '../../shared/db/client';
import { newId } from '../../shared/ids';
import { keyPrefix } from './developerKeys';
import { globalAccountFor } from './globalAccounts';
import { normalizeName } from './validation';

export interface ProvisionSiteInput {
  name: string;
  admin?: { email: string; password: string; roles?: AccountRole[]; tags?: string[] };
}

export interface ProvisionedSite {
  siteId: string;
  developerKey: string;
  adminAccountId?: string;
}

export const FULL_ADMIN_ROLES: AccountRole[] = [{ pageId: [], scope: '*', write: true }];

/** Creates the site, its developer key and (optionally) its admin linked to a global account, in one transaction. */
export async function provisionSite(db: Db, input: ProvisionSiteInput): Promise<ProvisionedSite> {
  const siteId = newId();
  const developerKey = newDeveloperKey();
  const admin = input.admin;
  const adminAccountId = admin ? newId() : undefined;
  const email = admin?.email.toLowerCase();
  const existingGlobal = email ? await db.globalAccount.findUnique({ where: { email } }) : null;
  if (admin && existingGlobal?.passwordHash && !(await verifyPassword(admin.password, existingGlobal.passwordHash))) {
    throw new Error(`${email} already administers other sites with another password; give that password`);
  }
  const passwordHash = admin ? (existingGlobal?.passwordHash ?? (await hashPassword(admin.password))) : undefined;
  const now = new Date();
  await db.$transaction(async (tx) => {
    await tx.site.create({ data: { id: siteId, name: input.name, createdAt: now, updatedAt: now } });
    await tx.developerKey.create({
      data: { id: newId(), siteId, name: 'first key', prefix: keyPrefix(developerKey), keyHash: hashToken(developerKey), createdAt: now },
    });
    if (admin && adminAccountId && email && passwordHash) {
      const global = await globalAccountFor(tx, email, passwordHash);
      const name = email.split('@')[0];
      await tx.account.create({
        data: {
          id: adminAccountId,
          siteId,
          email,
          name,
          normalizedName: normalizeName(name),
          passwordHash,
          globalAccountId: global.id,
          roles: admin.roles ?? FULL_ADMIN_ROLES,
          tags: admin.tags ?? [],
          createdAt: now,
          updatedAt: now,
        },
      });
    }
  });
  return adminAccountId ? { siteId, developerKey, adminAccountId } : { siteId, developerKey };
}
