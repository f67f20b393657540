/**
 * Global accounts: one person (one e-mail, one password) across the sites they administer. A site
 * account linked to one carries its password hash (accounts.ts keeps them equal). The sites where the
 * person is an admin are listed with each site's slug, read from the content subgraph as that site.
 */
import type { Identity } from '../../shared/auth/identity';
import type { Db, Prisma } from '../../shared/db/client';
import { newId } from '../../shared/ids';
import type { SupergraphClient } from '../../shared/supergraph';
import { isAdminAccount } from './accounts';
import { checkPage, normalizeName } from './validation';

type Tx = Prisma.TransactionClient;

/** The global account of an e-mail, created with the password hash when new. */
export async function globalAccountFor(tx: Tx, email: string, passwordHash: string | null) {
  const existing = await tx.globalAccount.findUnique({ where: { email } });
  if (existing) return existing;
  const now = new Date();
  return tx.globalAccount.create({ data: { id: newId(), email, passwordHash, createdAt: now, updatedAt: now } });
}

/** A site's slug: its name lowercased, accents dropped, words joined by -. */
export const slugOf = (name: string) =>
  normalizeName(name)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const SITE_NAME = /* GraphQL */ `query GlobalAccountSiteName { site { name } }`;

/** The sites where the account's global account holds an admin account, searched by slug and paged. */
export async function globalAccountSites(
  db: Db,
  supergraph: SupergraphClient,
  identity: Identity,
  accountId: string,
  query: { offset?: number | null; limit?: number | null; search?: string | null },
) {
  const { offset, limit } = checkPage(query.offset, query.limit);
  const me = await db.account.findUnique({ where: { id: accountId }, select: { globalAccountId: true } });
  if (!me?.globalAccountId) return [];
  const linked = await db.account.findMany({ where: { globalAccountId: me.globalAccountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const sites = await Promise.all(
    linked.filter(isAdminAccount).map(async (account) => {
      const asSite: Identity = { siteId: account.siteId, developerKey: true, account: null, requestId: identity.requestId };
      const { site } = await supergraph.execute<{ site: { name: string } | null }>(SITE_NAME, {}, asSite);
      return { id: account.id, siteId: account.siteId, slug: slugOf(site?.name ?? account.siteId) };
    }),
  );
  const search = query.search?.trim().toLowerCase();
  return sites.filter((site) => !search || site.slug.includes(search)).slice(offset, offset + limit);
}
