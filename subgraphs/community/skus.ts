/**
 * What a SKU sells (seed 001: an Entitlement's sku, and a Bundle's sku with its items). An entitlement's
 * SKU grants that entitlement; a bundle's SKU grants every entitlement its items name (by ID or SKU, in
 * the bundle's order) at the bundle's price. Purchases, access codes and an admin's grant all read a SKU
 * here, so a bundle is sold, redeemed and granted as its entitlements are.
 */
import type { Db } from '../../shared/db/client';
import type { Bundle, Entitlement, Prisma } from '../../shared/db/generated/sqlite';
import { badInput } from '../../shared/errors';
import { ENTITLEMENT_ITEM_TYPES, priceIn, type EntitlementPrice } from './entitlements';

type Tx = Prisma.TransactionClient;

export interface SkuGrants {
  /** The entitlements the SKU grants, in order (one for an entitlement's SKU). */
  entitlements: Entitlement[];
  /** The bundle when the SKU is a bundle's. */
  bundle: Bundle | null;
}

/** What `sku` grants on the site; an unknown SKU, or a bundle naming no entitlement, is bad input naming `field`. */
export async function grantsOfSku(db: Db | Tx, siteId: string, sku: string, field = 'sku'): Promise<SkuGrants> {
  const entitlement = await db.entitlement.findUnique({ where: { siteId_sku: { siteId, sku } } });
  if (entitlement) return { entitlements: [entitlement], bundle: null };
  const bundle = await db.bundle.findUnique({ where: { siteId_sku: { siteId, sku } } });
  if (!bundle) throw badInput(`${field}: no entitlement or bundle has the SKU ${sku}`, field);
  const items = (Array.isArray(bundle.items) ? bundle.items : []) as { id: string; type: string }[];
  const named = items.filter((item) => ENTITLEMENT_ITEM_TYPES.has(item.type)).map((item) => item.id);
  const found = await db.entitlement.findMany({ where: { siteId, OR: [{ id: { in: named } }, { sku: { in: named } }] } });
  const byKey = new Map(found.flatMap((row) => [[row.id, row] as const, [row.sku, row] as const]));
  const entitlements = [...new Map(named.flatMap((key) => (byKey.has(key) ? [[byKey.get(key)!.id, byKey.get(key)!] as const] : []))).values()];
  if (entitlements.length === 0) throw badInput(`${field}: the bundle ${sku} holds no entitlement of this site`, field);
  return { entitlements, bundle };
}

/** The price a SKU sells at in `currency` (null: its default): the bundle's own price for a bundle. */
export function priceOfSku(grants: SkuGrants, currency: string | null): EntitlementPrice | null {
  const { bundle } = grants;
  if (!bundle) return priceIn(grants.entitlements[0], currency);
  if (bundle.price === null || (currency !== null && currency !== bundle.presentmentCurrency)) return null;
  return { currency: bundle.presentmentCurrency, value: bundle.price, default: true, paymentPriceId: '' };
}
