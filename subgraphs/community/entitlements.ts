/**
 * Entitlements (SKUs with prices by currency), what accounts hold of them (Subscription rows: one
 * place grants them, whatever the method), and bundles of items sold together.
 */
import type { Db, Prisma } from '../../shared/db/client';
import type { Entitlement, Subscription } from '../../shared/db/generated/sqlite';
import { badInput, conflict, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { toMinor } from './money';
import { checkCurrency, checkHttpUrl, checkSameSite, checkSku, checkTags, checkText } from './validation';

type Tx = Prisma.TransactionClient;

export interface EntitlementPrice {
  currency: string;
  default: boolean;
  paymentPriceId?: string | null;
  value: number;
}

/** A price as given: the default flag may be left out (the first price is then the default). */
export type PriceInput = { currency: string; default?: boolean | null; paymentPriceId?: string | null; value: number };

/** Recurrences and the length of one paid period. */
const PERIOD_DAYS: Record<string, number | null> = { once: null, week: 7, month: 30, year: 365 };

/** The entitlement's prices as stored (a JSON column). */
export function pricesOf(entitlement: Pick<Entitlement, 'prices'>): EntitlementPrice[] {
  return Array.isArray(entitlement.prices) ? (entitlement.prices as unknown as EntitlementPrice[]) : [];
}

/** The price in a currency, or the default price when no currency is asked for. */
export function priceIn(entitlement: Entitlement, currency: string | null | undefined): EntitlementPrice | null {
  const prices = pricesOf(entitlement);
  return currency ? (prices.find((price) => price.currency === currency) ?? null) : (prices.find((price) => price.default) ?? prices[0] ?? null);
}

function checkPrices(prices: readonly PriceInput[]): EntitlementPrice[] {
  const checked = prices.map((price, index) => {
    const currency = checkCurrency(price.currency, `prices.${index}.currency`);
    toMinor(price.value, currency, `prices.${index}.value`);
    return { currency, default: Boolean(price.default), paymentPriceId: price.paymentPriceId ?? null, value: price.value };
  });
  if (new Set(checked.map((price) => price.currency)).size !== checked.length) throw badInput('prices: one price per currency', 'prices');
  const defaults = checked.filter((price) => price.default).length;
  if (defaults > 1) throw badInput('prices: at most one default price', 'prices');
  if (defaults === 0 && checked.length > 0) checked[0].default = true;
  return checked;
}

function checkRecurrence(recurrence: string | null | undefined): string {
  const value = recurrence ?? 'once';
  if (!(value in PERIOD_DAYS)) throw badInput(`recurrence must be one of ${Object.keys(PERIOD_DAYS).join(', ')}`, 'recurrence');
  return value;
}

/** A new SKU with checked prices (one per currency, one default) and recurrence. */
export async function createEntitlement(
  db: Db,
  siteId: string,
  input: { sku: string; name: string; prices: readonly PriceInput[]; recurrence?: string | null; subscriptionProvider?: string | null; tags?: string[] | null },
): Promise<Entitlement> {
  const now = new Date();
  return db.entitlement.create({
    data: {
      id: newId(),
      siteId,
      sku: checkSku(input.sku),
      name: checkText(input.name, 'name'),
      prices: checkPrices(input.prices) as unknown as Prisma.InputJsonValue,
      recurrence: checkRecurrence(input.recurrence),
      subscriptionProvider: input.subscriptionProvider ? checkText(input.subscriptionProvider, 'subscriptionProvider', 100) : 'stagegraph',
      tags: checkTags(input.tags),
      createdAt: now,
      updatedAt: now,
    },
  });
}

/** Changes an entitlement's name, prices, recurrence or tags; the SKU stays. */
export async function updateEntitlement(
  db: Db,
  siteId: string,
  id: string,
  input: { name?: string | null; prices?: readonly PriceInput[] | null; recurrence?: string | null; tags?: string[] | null },
): Promise<Entitlement> {
  const entitlement = await findEntitlement(db, siteId, id);
  const data: Prisma.EntitlementUpdateInput = { updatedAt: new Date() };
  if (input.name != null) data.name = checkText(input.name, 'name');
  if (input.prices != null) data.prices = checkPrices(input.prices) as unknown as Prisma.InputJsonValue;
  if (input.recurrence != null) data.recurrence = checkRecurrence(input.recurrence);
  if (input.tags != null) data.tags = checkTags(input.tags);
  return db.entitlement.update({ where: { id: entitlement.id }, data });
}

/** An entitlement of the site, or NOT_FOUND. */
export async function findEntitlement(db: Db | Tx, siteId: string, id: string): Promise<Entitlement> {
  const entitlement = await db.entitlement.findFirst({ where: { id, siteId } });
  if (!entitlement) throw notFound(`entitlement ${id}`);
  return entitlement;
}

export interface Grant {
  siteId: string;
  accountId: string;
  entitlement: Entitlement;
  /** accessCode, purchase, invite, admin */
  grantedMethod: string;
  /** The access code, invite or charge that granted it. */
  grantedById?: string | null;
  currency?: string | null;
  /** When it is granted (default: now): a recurring pass's period starts then. */
  at?: Date;
}

/** An active Subscription of the entitlement for the account; a recurring one runs for one period. */
export async function grantSubscription(tx: Tx, grant: Grant): Promise<Subscription & { entitlement: Entitlement }> {
  const now = grant.at ?? new Date();
  const days = PERIOD_DAYS[grant.entitlement.recurrence] ?? null;
  return tx.subscription.create({
    data: {
      id: newId(),
      siteId: grant.siteId,
      accountId: grant.accountId,
      entitlementId: grant.entitlement.id,
      status: 'active',
      grantedMethod: grant.grantedMethod,
      grantedById: grant.grantedById ?? null,
      presentmentCurrency: grant.currency ?? priceIn(grant.entitlement, null)?.currency ?? 'USD',
      dateGranted: now,
      currentPeriodEnd: days ? new Date(now.getTime() + days * 86_400_000) : null,
      createdAt: now,
      updatedAt: now,
    },
    include: { entitlement: true },
  });
}

/** Grants each entitlement in turn (a bundle's), the same grant for all; the subscriptions in order. */
export async function grantEach(
  tx: Tx,
  entitlements: Entitlement[],
  grant: Omit<Grant, 'entitlement'>,
): Promise<(Subscription & { entitlement: Entitlement })[]> {
  const granted: (Subscription & { entitlement: Entitlement })[] = [];
  for (const entitlement of entitlements) granted.push(await grantSubscription(tx, { ...grant, entitlement }));
  return granted;
}

/**
 * The status as it reads at `now`: a scheduled cancellation whose time has come reads `canceled`, and a
 * recurring pass whose paid period has ended (not renewed) reads `expired`, though the row is not
 * rewritten until something else changes it.
 */
export function statusOf(subscription: Pick<Subscription, 'status' | 'cancelAt' | 'currentPeriodEnd'>, now = Date.now()): string {
  if (subscription.status !== 'active') return subscription.status;
  if (subscription.cancelAt && subscription.cancelAt.getTime() <= now) return 'canceled';
  if (subscription.currentPeriodEnd && subscription.currentPeriodEnd.getTime() <= now) return 'expired';
  return 'active';
}

/** Unix ms when a subscription active at `now` stops reading active by itself (see statusOf); null: it does not, or it is not active. */
export function activeUntil(subscription: Pick<Subscription, 'status' | 'cancelAt' | 'currentPeriodEnd'>, now = Date.now()): number | null {
  if (statusOf(subscription, now) !== 'active') return null;
  const ends = [subscription.cancelAt, subscription.currentPeriodEnd].flatMap((at) => (at ? [at.getTime()] : []));
  return ends.length ? Math.min(...ends) : null;
}

/** The rows `statusOf` reads `active` at `now`, as a database condition (listings, exports, "already holds"). */
export function activeAt(now: number): Prisma.SubscriptionWhereInput {
  const at = new Date(now);
  return {
    status: 'active',
    AND: [{ OR: [{ cancelAt: null }, { cancelAt: { gt: at } }] }, { OR: [{ currentPeriodEnd: null }, { currentPeriodEnd: { gt: at } }] }],
  };
}

// ------------------------------------------------------------------ bundles

export interface BundleInput {
  name?: string | null;
  description?: string | null;
  image?: string | null;
  sku?: string | null;
  presentmentCurrency?: string | null;
  price?: number | null;
  items?: { id: string; type: string }[] | null;
  tags?: string[] | null;
  siteId?: string | null;
}

/** Bundle item types that name an entitlement: they must exist on the site, and buying the bundle grants them. */
export const ENTITLEMENT_ITEM_TYPES = new Set(['entitlement', 'subscription', 'ticket']);

/** A bundle; items that name entitlements must exist on the site, and a SKU is unique. */
export async function createBundle(db: Db, siteId: string, input: BundleInput) {
  checkSameSite(input.siteId, siteId);
  const currency = checkCurrency(input.presentmentCurrency ?? 'USD', 'presentmentCurrency');
  if (input.price != null) toMinor(input.price, currency, 'price');
  const items = (input.items ?? []).map((item, index) => ({
    id: checkText(item.id, `items.${index}.id`, 128),
    type: checkText(item.type, `items.${index}.type`, 50),
  }));
  const named = items.filter((item) => ENTITLEMENT_ITEM_TYPES.has(item.type)).map((item) => item.id);
  if (named.length) {
    const found = await db.entitlement.findMany({ where: { siteId, OR: [{ id: { in: named } }, { sku: { in: named } }] }, select: { id: true, sku: true } });
    const known = new Set(found.flatMap((row) => [row.id, row.sku]));
    const missing = items.findIndex((item) => ENTITLEMENT_ITEM_TYPES.has(item.type) && !known.has(item.id));
    if (missing >= 0) throw badInput(`items.${missing}.id: no entitlement ${items[missing].id} on this site`, `items.${missing}.id`);
  }
  const sku = input.sku != null ? checkSku(input.sku) : null;
  if (sku && (await db.bundle.findUnique({ where: { siteId_sku: { siteId, sku } }, select: { id: true } }))) {
    throw conflict(`a bundle with the SKU ${sku} already exists`);
  }
  // A SKU sells one thing: an entitlement's SKU cannot also be a bundle's.
  if (sku && (await db.entitlement.findUnique({ where: { siteId_sku: { siteId, sku } }, select: { id: true } }))) {
    throw conflict(`an entitlement has the SKU ${sku} already`);
  }
  const now = new Date();
  return db.bundle.create({
    data: {
      id: newId(),
      siteId,
      name: input.name != null ? checkText(input.name, 'name') : '',
      description: input.description ?? '',
      image: input.image != null ? checkHttpUrl(input.image, 'image') : null,
      sku,
      presentmentCurrency: currency,
      price: input.price ?? null,
      items,
      tags: checkTags(input.tags),
      createdAt: now,
      updatedAt: now,
    },
  });
}
