/**
 * The payments ledger: a Charge per purchase (what was paid, in minor units) and its Refunds. A refund
 * never exceeds what is left of its charge, even when two race: the charge row is updated only while
 * enough is left, in the same transaction that records the refund.
 */
import type { Db, Prisma } from '../../shared/db/client';
import type { Charge, Entitlement, Subscription } from '../../shared/db/generated/sqlite';
import { badInput, conflict, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { findAccount } from './accounts';
import { grantEach } from './entitlements';
import { grantsOfSku, priceOfSku } from './skus';
import { MAX_MINOR, toMajor, toMinor } from './money';
import { readableCodes } from './secrets';
import { checkCurrency, checkSku, checkText } from './validation';

type Tx = Prisma.TransactionClient;

export type RefundReason = 'duplicate' | 'fraudulent' | 'requested_by_customer';

export interface PurchaseInput {
  accountId: string;
  sku: string;
  currency?: string | null;
  quantity?: number | null;
  paymentMethod: string;
  chargeId?: string | null;
  serviceCharge?: number | null;
  tax?: number | null;
}

export interface Purchase {
  subscription: Subscription & { entitlement: Entitlement };
  charge: Charge;
  /** What was sold, as the receipt names it (the bundle, or the entitlement), and the SKUs it opens. */
  sold: { name: string; sku: string; opens: string[] };
}

/** Receipt numbers read like SG-7KQ2-XM4P. */
const newReceiptNumber = () => {
  const [code] = readableCodes(1, 8);
  return `SG-${code.slice(0, 4)}-${code.slice(4)}`;
};

/** Records a paid purchase: the charge and the entitlement it bought (grantedMethod purchase). */
export async function recordPurchase(db: Db, siteId: string, input: PurchaseInput): Promise<Purchase> {
  const account = await findAccount(db, siteId, input.accountId);
  const sku = checkSku(input.sku);
  const grants = await grantsOfSku(db, siteId, sku);
  const currency = input.currency ? checkCurrency(input.currency) : null;
  const price = priceOfSku(grants, currency);
  if (!price) throw badInput(currency ? `currency: ${sku} has no price in ${currency}` : `sku: ${sku} has no price`, currency ? 'currency' : 'sku');
  const quantity = input.quantity ?? 1;
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > 1000) throw badInput('quantity must be a whole number from 1 to 1000', 'quantity');
  const priceMinor = toMinor(price.value, price.currency, 'price') * quantity;
  if (priceMinor > MAX_MINOR) throw badInput('quantity: the total price is too large for one charge', 'quantity');
  const serviceMinor = toMinor(input.serviceCharge ?? 0, price.currency, 'serviceCharge');
  const taxMinor = toMinor(input.tax ?? 0, price.currency, 'tax');
  const chargeId = input.chargeId ? checkText(input.chargeId, 'chargeId', 200) : `ch_${newId()}`;
  const paymentMethod = checkText(input.paymentMethod, 'paymentMethod', 100);
  if (await db.charge.findUnique({ where: { siteId_chargeId: { siteId, chargeId } }, select: { id: true } })) {
    throw conflict(`the charge ${chargeId} is already recorded`);
  }
  return db.$transaction(async (tx) => {
    const id = newId();
    // A bundle grants each of its entitlements; the charge names the first, and a refund takes all it granted.
    const [subscription] = await grantEach(tx, grants.entitlements, {
      siteId,
      accountId: account.id,
      grantedMethod: 'purchase',
      grantedById: id,
      currency: price.currency,
    });
    const charge = await tx.charge.create({
      data: {
        id,
        siteId,
        accountId: account.id,
        subscriptionId: subscription.id,
        chargeId,
        receiptNumber: newReceiptNumber(),
        currency: price.currency,
        quantity,
        priceMinor,
        serviceMinor,
        taxMinor,
        amountMinor: priceMinor + serviceMinor + taxMinor,
        paymentMethod,
      },
    });
    // What the purchase opens: its own SKU and, for a bundle, each entitlement's (a channel's gate may ask for any).
    const opens = [...new Set([sku, ...grants.entitlements.map((entitlement) => entitlement.sku)])];
    const sold = grants.bundle ? { name: grants.bundle.name || sku, sku, opens } : { name: subscription.entitlement.name, sku, opens };
    return { subscription, charge, sold };
  });
}

export interface RefundRequest {
  accountId: string;
  chargeId: string;
  amount?: number | null;
  reason: RefundReason;
  details?: string | null;
}

export interface RefundResult {
  success: boolean;
  errorMessage: string | null;
  refund: { id: string; amount: number; currency: string; reason: RefundReason; created: number } | null;
  charge: Charge | null;
}

const failed = (errorMessage: string, charge: Charge): RefundResult => ({ success: false, errorMessage, refund: null, charge });

/** Refunds what is asked (default: all that is left) of one charge, within one transaction. */
export async function refundInTx(
  tx: Tx,
  charge: Charge,
  request: Omit<RefundRequest, 'accountId' | 'chargeId'>,
  amountField = 'amount',
): Promise<RefundResult> {
  const amountMinor = request.amount == null ? null : toMinor(request.amount, charge.currency, amountField);
  if (amountMinor !== null && amountMinor <= 0) throw badInput(`${amountField} must be more than 0`, amountField);
  const left = charge.amountMinor - charge.refundedMinor;
  if (left <= 0) return failed('this charge is already fully refunded', charge);
  const refundMinor = amountMinor ?? left;
  if (refundMinor > left) return failed(`${amountField} exceeds what is left of the charge (${toMajor(left, charge.currency)} ${charge.currency})`, charge);
  const taken = await tx.charge.updateMany({
    where: { id: charge.id, refundedMinor: { lte: charge.amountMinor - refundMinor } },
    data: { refundedMinor: { increment: refundMinor } },
  });
  if (taken.count !== 1) return failed('amount exceeds what is left of the charge', charge);
  const now = new Date();
  const refund = await tx.refund.create({
    data: {
      id: newId(),
      siteId: charge.siteId,
      chargeRowId: charge.id,
      amountMinor: refundMinor,
      reason: request.reason,
      details: request.details ?? null,
      createdAt: now,
    },
  });
  if (charge.subscriptionId) {
    await tx.subscription.updateMany({
      where: { siteId: charge.siteId, OR: [{ id: charge.subscriptionId }, { grantedMethod: 'purchase', grantedById: charge.id }] },
      data: { refundedAt: now, updatedAt: now },
    });
  }
  return {
    success: true,
    errorMessage: null,
    refund: { id: refund.id, amount: toMajor(refundMinor, charge.currency), currency: charge.currency, reason: request.reason, created: now.getTime() },
    charge: await tx.charge.findUniqueOrThrow({ where: { id: charge.id } }),
  };
}

/** POST /billing/v1/refund: the charge is named by the processor's charge ID and must be the account's. */
export async function refundCharge(db: Db, siteId: string, request: RefundRequest): Promise<RefundResult> {
  const charge = await db.charge.findUnique({ where: { siteId_chargeId: { siteId, chargeId: request.chargeId } } });
  if (!charge || charge.accountId !== request.accountId) throw notFound(`charge ${request.chargeId} of account ${request.accountId}`);
  return db.$transaction((tx) => refundInTx(tx, charge, request));
}

/** A charge as the API shows it, in major units. */
export function chargeView(charge: Charge) {
  return {
    id: charge.id,
    chargeId: charge.chargeId,
    accountId: charge.accountId,
    subscriptionId: charge.subscriptionId,
    receiptNumber: charge.receiptNumber,
    currency: charge.currency,
    quantity: charge.quantity,
    amount: toMajor(charge.amountMinor, charge.currency),
    refunded: toMajor(charge.refundedMinor, charge.currency),
    refundable: toMajor(charge.amountMinor - charge.refundedMinor, charge.currency),
    paymentMethod: charge.paymentMethod,
    created: charge.createdAt.getTime(),
  };
}
