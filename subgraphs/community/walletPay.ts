/**
 * Wallet payments (POST /billing/v1/status/wallet-pay-verify): a site's domain is verified for wallet
 * payment methods before its checkout offers them. The domain is the site's own setting
 * (Site.settings.domain, content subgraph). The payment processor itself is outside stagegraph, so the
 * verification recorded here is what the checkout reads; verifying again refreshes it.
 */
import type { Identity } from '../../shared/auth/identity';
import type { Db } from '../../shared/db/client';
import { badInput } from '../../shared/errors';
import type { SupergraphClient } from '../../shared/supergraph';

const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

export async function verifyWalletPay(db: Db, supergraph: SupergraphClient, siteId: string, identity: Identity): Promise<boolean> {
  const { site } = await supergraph.execute<{ site: { settings: unknown } | null }>(/* GraphQL */ `query WalletPaySite { site { settings } }`, {}, identity);
  const settings = site?.settings as { domain?: unknown } | null | undefined;
  const domain = typeof settings?.domain === 'string' ? settings.domain.trim().toLowerCase() : '';
  if (!domain) throw badInput('the site has no domain to verify: set settings.domain with PUT /site/v1/', 'settings.domain');
  if (!DOMAIN.test(domain)) throw badInput(`settings.domain "${domain}" is not a domain name`, 'settings.domain');
  const verifiedAt = new Date();
  await db.walletPayVerification.upsert({ where: { siteId }, create: { siteId, domain, verifiedAt }, update: { domain, verifiedAt } });
  return true;
}
