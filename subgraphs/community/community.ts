/**
 * Community management: the listing of a site's accounts (search, filter, sort, paging links), one
 * account's detail with its tickets (one-time entitlements) and subscriptions (recurring ones), CSV
 * export, and the admin's entitlement actions: grant, cancel, schedule a cancellation, remove, refund.
 * A channel filter asks the content subgraph for the channel's gate (through the supergraph).
 */
import { stringify } from 'csv-stringify/sync';
import type { Identity } from '../../shared/auth/identity';
import type { Db, Prisma } from '../../shared/db/client';
import type { Account, AccessCode, Charge, Entitlement, Subscription } from '../../shared/db/generated/sqlite';
import { badInput, conflict, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { containsText } from '../../shared/db/literalSearch';
import type { DbProvider } from '../../shared/db/providers';
import type { SupergraphClient } from '../../shared/supergraph';
import { findAccount, rolesOf } from './accounts';
import { activeAt, grantEach, priceIn, statusOf } from './entitlements';
import { grantsOfSku } from './skus';
import { refundInTx, type RefundReason } from './ledger';
import { formatMoney, toMajor, toMinor } from './money';
import { SERVICE } from './sessions';
import { checkPage, normalizeName } from './validation';

type SearchBy = 'accountInfo' | 'entitlements' | 'paidEntitlements' | 'accessCode' | 'receiptNumber';

export interface CommunityFilter {
  channelId?: string | null;
  timeStart?: number | null;
  timeEnd?: number | null;
}

export interface CommunitySearch {
  searchBy?: SearchBy | null;
  searchQuery?: string | null;
  filter?: CommunityFilter | null;
}

export interface CommunityQuery extends CommunitySearch {
  offset?: number | null;
  limit?: number | null;
  sortBy?: 'name' | 'created' | null;
  sortDirection?: number | null;
}

/** Above this many accounts the listing asks the admin to export instead of paging. */
const FORCE_EXPORT_ABOVE = 10_000;
const EXPORT_MAX = 100_000;

export interface SearchContext {
  db: Db;
  provider: DbProvider;
  supergraph: SupergraphClient;
  identity: Identity;
  /** Milliseconds since the epoch: which recurring passes have ended (the runtime's clock). */
  now: number;
}

const CHANNEL_GATE = /* GraphQL */ `query CommunityChannelGate($id: ID!) { page(id: $id) { document } }`;

/** The SKUs a channel's entitlement gate asks for (data.gate.gate.subscriptions: SKUs or entitlements). */
async function channelSkus(context: SearchContext, channelId: string): Promise<string[]> {
  const { page } = await context.supergraph.execute<{ page: { document: { data?: { gate?: { gate?: { subscriptions?: unknown } } } } | null } | null }>(
    CHANNEL_GATE,
    { id: channelId },
    context.identity,
  );
  const subscriptions = page?.document?.data?.gate?.gate?.subscriptions;
  if (!Array.isArray(subscriptions)) return [];
  return subscriptions
    .map((item: unknown) => (typeof item === 'string' ? item : (item as { sku?: unknown })?.sku))
    .filter((sku): sku is string => typeof sku === 'string');
}

/** Text that contains the query literally, whatever its case (the SQLite client's types know no `mode`). */
const containing = (provider: DbProvider, query: string) => containsText(query, { provider, ignoreCase: true }) as Prisma.StringFilter;

function entitlementMatch(provider: DbProvider, query: string): Prisma.EntitlementWhereInput {
  return { OR: [{ sku: containing(provider, query) }, { name: containing(provider, query) }] };
}

/** The accounts the search and filter select. */
export async function communityWhere(context: SearchContext, siteId: string, search: CommunitySearch): Promise<Prisma.AccountWhereInput> {
  const { db } = context;
  const conditions: Prisma.AccountWhereInput[] = [{ siteId }];
  const query = search.searchQuery?.trim();
  if (query) {
    switch (search.searchBy ?? 'accountInfo') {
      case 'accountInfo':
        conditions.push({ OR: [{ normalizedName: containsText(normalizeName(query)) }, { email: containsText(query.toLowerCase()) }] });
        break;
      case 'entitlements':
        conditions.push({ subscriptions: { some: { entitlement: entitlementMatch(context.provider, query) } } });
        break;
      case 'paidEntitlements':
        conditions.push({ subscriptions: { some: { grantedMethod: 'purchase', entitlement: entitlementMatch(context.provider, query) } } });
        break;
      case 'accessCode': {
        const code = await db.accessCode.findUnique({ where: { siteId_accessCode: { siteId, accessCode: query } }, select: { consumedByAccountId: true } });
        conditions.push({ id: { in: code?.consumedByAccountId ? [code.consumedByAccountId] : [] } });
        break;
      }
      case 'receiptNumber': {
        const charge = await db.charge.findUnique({ where: { siteId_receiptNumber: { siteId, receiptNumber: query } }, select: { accountId: true } });
        conditions.push({ id: { in: charge ? [charge.accountId] : [] } });
        break;
      }
    }
  }
  const filter = search.filter ?? {};
  if (filter.timeStart != null || filter.timeEnd != null) {
    for (const field of ['timeStart', 'timeEnd'] as const) {
      const value = filter[field];
      if (value != null && !(Math.abs(value) <= 8.64e15)) throw badInput(`filter.${field} must be a Unix time in milliseconds`, `filter.${field}`);
    }
    if (filter.timeStart != null && filter.timeEnd != null && filter.timeStart > filter.timeEnd)
      throw badInput('filter.timeStart must not be after filter.timeEnd', 'filter.timeStart');
    conditions.push({
      createdAt: {
        ...(filter.timeStart != null ? { gte: new Date(filter.timeStart) } : {}),
        ...(filter.timeEnd != null ? { lte: new Date(filter.timeEnd) } : {}),
      },
    });
  }
  if (filter.channelId) {
    const skus = await channelSkus(context, filter.channelId);
    // A channel without a gate is open to everyone: no condition.
    if (skus.length) conditions.push({ subscriptions: { some: { ...activeAt(context.now), entitlement: { sku: { in: skus } } } } });
  }
  return { AND: conditions };
}

/** An account as the community view lists it. */
export function communityItem(account: Account) {
  const providers = Array.isArray(account.thirdPartyAuthProviders) ? (account.thirdPartyAuthProviders as { provider: string }[]) : [];
  return {
    accountId: account.id,
    userId: account.globalAccountId,
    created: account.createdAt.getTime(),
    lastLogin: account.lastLoginAt?.getTime() ?? null,
    marketingOptin: account.marketingOptin,
    name: account.name,
    email: account.email,
    service: providers[0]?.provider ?? SERVICE,
    siteId: account.siteId,
    thumbnail: null,
    roles: rolesOf(account),
  };
}

function linkOf(query: CommunityQuery, offset: number): string {
  const params = new URLSearchParams({
    offset: String(offset),
    limit: String(query.limit),
    sortBy: query.sortBy ?? 'created',
    sortDirection: String(query.sortDirection ?? 1),
  });
  if (query.searchBy) params.set('searchBy', query.searchBy);
  if (query.searchQuery) params.set('searchQuery', query.searchQuery);
  if (query.filter) params.set('filter', JSON.stringify(query.filter));
  return `/community/v1/?${params.toString()}`;
}

/** One page of the community: accounts (both of the seed's shapes) and links to the other pages. */
export async function listCommunity(context: SearchContext, siteId: string, query: CommunityQuery) {
  const { offset, limit } = checkPage(query.offset, query.limit);
  const direction = query.sortDirection ?? 1;
  if (direction !== 1 && direction !== -1) throw badInput('sortDirection must be 1 (ascending) or -1 (descending)', 'sortDirection');
  const order = direction === 1 ? 'asc' : 'desc';
  const where = await communityWhere(context, siteId, query);
  const orderBy: Prisma.AccountOrderByWithRelationInput[] = [query.sortBy === 'name' ? { normalizedName: order } : { createdAt: order }, { id: order }];
  const [accounts, totalCount] = await Promise.all([
    context.db.account.findMany({ where, orderBy, skip: offset, take: limit }),
    context.db.account.count({ where }),
  ]);
  const paged = { ...query, limit };
  const lastOffset = totalCount === 0 ? 0 : Math.floor((totalCount - 1) / limit) * limit;
  return {
    result: {
      forceExport: totalCount > FORCE_EXPORT_ABOVE,
      totalCount,
      pagination: {
        first: linkOf(paged, 0),
        last: linkOf(paged, lastOffset),
        next: offset + limit < totalCount ? linkOf(paged, offset + limit) : null,
        prev: offset > 0 ? linkOf(paged, Math.max(0, offset - limit)) : null,
        self: linkOf(paged, offset),
      },
      results: accounts,
    },
    results: accounts.map(communityItem),
  };
}

// ------------------------------------------------------------------ one account

type Held = Subscription & { entitlement: Entitlement };

const METHOD_DESCRIPTION: Record<string, (charge?: Charge, code?: AccessCode) => string> = {
  purchase: (charge) => (charge ? `Purchased with ${charge.paymentMethod}` : 'Purchased'),
  accessCode: (_charge, code) => (code ? `Access code ${code.accessCode}` : 'Access code'),
  invite: () => 'Invite (magic link)',
  admin: () => 'Granted by an admin',
};

const day = (date: Date) => date.toISOString().slice(0, 10);

/** One held entitlement in the seed's ticket shape, with the actions the admin may take on it. */
export function ticketOf(held: Held, charge: Charge | undefined, code: AccessCode | undefined, now = Date.now()) {
  const status = statusOf(held, now);
  const listed = priceIn(held.entitlement, held.presentmentCurrency);
  const price = charge
    ? {
        currency: charge.currency,
        default: listed?.default ?? true,
        paymentPriceId: listed?.paymentPriceId ?? null,
        value: toMajor(charge.priceMinor / charge.quantity, charge.currency),
      }
    : listed;
  const refundedMinor = charge?.refundedMinor ?? 0;
  const tooltips: string[] = [];
  if (status === 'active') tooltips.push(held.cancelAt ? `Active; cancels on ${day(held.cancelAt)}` : 'Active');
  else if (status === 'canceled') tooltips.push(`Canceled on ${day(held.canceledAt ?? held.cancelAt ?? held.updatedAt)}`);
  else if (status === 'expired') tooltips.push(`Expired on ${day(held.currentPeriodEnd ?? held.updatedAt)}`);
  else tooltips.push(status === 'removed' ? 'Removed by an admin' : status);
  if (charge && refundedMinor > 0)
    tooltips.push(`refunded ${formatMoney(refundedMinor, charge.currency)} of ${formatMoney(charge.amountMinor, charge.currency)}`);
  return {
    id: held.id,
    accessCode: code?.accessCode ?? null,
    actions: { canCancel: status === 'active', canRefund: Boolean(charge && charge.amountMinor > refundedMinor), canRemove: status !== 'removed' },
    currentPeriodEnd: held.currentPeriodEnd?.getTime() ?? null,
    date: held.dateGranted.getTime(),
    dateCanceled: (held.canceledAt ?? (status === 'canceled' ? held.cancelAt : null))?.getTime() ?? null,
    dateRefunded: held.refundedAt?.getTime() ?? null,
    formattedPrice: charge
      ? formatMoney(charge.amountMinor, charge.currency)
      : price
        ? formatMoney(toMinor(price.value, price.currency, 'price'), price.currency)
        : '',
    grantedMethod: held.grantedMethod,
    methodDescription: (METHOD_DESCRIPTION[held.grantedMethod] ?? (() => held.grantedMethod))(charge, code),
    name: held.entitlement.name,
    price: price ?? null,
    sku: held.entitlement.sku,
    status,
    statusTooltip: tooltips.join('; '),
    wasRefunded: refundedMinor > 0,
  };
}

/** One account's item, tickets and subscriptions, with their charges and access codes. */
export async function communityAccount(db: Db, siteId: string, accountId: string, now = Date.now()) {
  const account = await findAccount(db, siteId, accountId);
  const held = await db.subscription.findMany({ where: { siteId, accountId }, include: { entitlement: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const codeIds = held.filter((row) => row.grantedMethod === 'accessCode' && row.grantedById).map((row) => row.grantedById as string);
  const [charges, codes] = await Promise.all([
    db.charge.findMany({ where: { siteId, subscriptionId: { in: held.map((row) => row.id) } } }),
    codeIds.length ? db.accessCode.findMany({ where: { siteId, id: { in: codeIds } } }) : Promise.resolve([] as AccessCode[]),
  ]);
  const chargeOf = new Map(charges.map((charge) => [charge.subscriptionId, charge]));
  const codeOf = new Map(codes.map((code) => [code.id, code]));
  const tickets = held.map((row) => ({
    recurring: row.entitlement.recurrence !== 'once',
    ticket: ticketOf(row, chargeOf.get(row.id), codeOf.get(row.grantedById ?? ''), now),
  }));
  return {
    accountItem: communityItem(account),
    tickets: tickets.filter((entry) => !entry.recurring).map((entry) => entry.ticket),
    subscriptions: tickets.filter((entry) => entry.recurring).map((entry) => entry.ticket),
  };
}

// ------------------------------------------------------------------ export

/** Spreadsheet programs run cells that start like a formula: such text is quoted. */
const safeCell = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** Writes the CSV of the searched community (up to 100,000 accounts) and answers where to fetch it. */
export async function exportCommunity(context: SearchContext, siteId: string, search: CommunitySearch) {
  const where = await communityWhere(context, siteId, search);
  const accounts = await context.db.account.findMany({
    where,
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: EXPORT_MAX,
    include: { subscriptions: { where: activeAt(context.now), select: { entitlement: { select: { sku: true } } } } },
  });
  const content = stringify(
    accounts.map((account) => [
      account.id,
      safeCell(account.name),
      safeCell(account.email),
      String(account.marketingOptin),
      account.createdAt.toISOString(),
      account.lastLoginAt?.toISOString() ?? '',
      account.subscriptions.map((held) => held.entitlement.sku).join(';'),
    ]),
    { header: true, columns: ['accountId', 'name', 'email', 'marketingOptin', 'created', 'lastLogin', 'activeEntitlements'] },
  );
  const created = new Date();
  const fileName = `community-${created.toISOString().slice(0, 19).replace(/[-:T]/g, '')}.csv`;
  const row = await context.db.communityExport.create({
    data: { id: newId(), siteId, fileName, status: 'completed', rowCount: accounts.length, content, createdAt: created },
  });
  return { exportId: row.id, fileName: row.fileName, status: row.status, rowCount: row.rowCount };
}

/** The CSV of one of the site's exports. */
export async function communityExportFile(db: Db, siteId: string, exportId: string) {
  const row = await db.communityExport.findFirst({ where: { id: exportId, siteId } });
  if (!row) throw notFound(`export ${exportId}`);
  return { contentType: 'text/csv; charset=utf-8', fileName: row.fileName, content: row.content };
}

// ------------------------------------------------------------------ entitlement actions

/** Gives the account the entitlement (by ID or SKU) as an admin grant; one active grant per entitlement. */
export async function grantEntitlementToAccount(db: Db, siteId: string, accountId: string, idOrSku: string, now = Date.now()) {
  const account = await findAccount(db, siteId, accountId);
  const entitlement = await db.entitlement.findFirst({ where: { siteId, OR: [{ id: idOrSku }, { sku: idOrSku }] } });
  // A bundle (by ID or SKU) grants each of its entitlements the account does not hold yet.
  const bundle = entitlement ? null : await db.bundle.findFirst({ where: { siteId, OR: [{ id: idOrSku }, { sku: idOrSku }] } });
  if (!entitlement && !bundle?.sku) throw notFound(`entitlement ${idOrSku}`);
  const entitlements = entitlement ? [entitlement] : (await grantsOfSku(db, siteId, bundle!.sku!, 'subscriptionId')).entitlements;
  return db.$transaction(async (tx) => {
    const held = await tx.subscription.findMany({
      where: { siteId, accountId: account.id, entitlementId: { in: entitlements.map((row) => row.id) }, ...activeAt(now) },
      select: { entitlementId: true },
    });
    const holding = new Set(held.map((row) => row.entitlementId));
    const missing = entitlements.filter((row) => !holding.has(row.id));
    if (missing.length === 0) throw conflict(`the account already holds ${entitlements.map((row) => row.sku).join(', ')}`);
    await grantEach(tx, missing, { siteId, accountId: account.id, grantedMethod: 'admin', at: new Date(now) });
    return { success: true, message: `${missing.map((row) => row.sku).join(', ')} granted` };
  });
}

export interface EntitlementUpdate {
  accountId: string;
  action: 'cancel' | 'justRefund' | 'remove' | 'scheduleCancel';
  id: string;
  grantRefund: boolean;
  reason?: RefundReason | null;
  refundAmount?: number | null;
  refundDetails?: string | null;
}

/**
 * cancel: access ends now; scheduleCancel: at the end of the paid period (recurring only); remove: the
 * entitlement is taken away; justRefund: money back, access stays. With grantRefund the charge is
 * refunded (refundAmount, or all that is left) in the same transaction; a refund that cannot be made
 * changes nothing and answers success false.
 */
export async function updateAccountEntitlement(db: Db, siteId: string, update: EntitlementUpdate, clock = Date.now()) {
  const held = await db.subscription.findFirst({ where: { id: update.id, siteId, accountId: update.accountId }, include: { entitlement: true } });
  if (!held) throw notFound(`entitlement ${update.id} of account ${update.accountId}`);
  if (update.action === 'justRefund' && !update.grantRefund) throw badInput('grantRefund must be true for justRefund', 'grantRefund');
  if (update.grantRefund && !update.reason) throw badInput('reason is required when grantRefund is true', 'reason');
  if (!update.grantRefund && update.refundAmount != null) throw badInput('refundAmount needs grantRefund', 'refundAmount');
  if (update.action === 'scheduleCancel' && !held.currentPeriodEnd) throw badInput('scheduleCancel applies to recurring entitlements; use cancel', 'action');
  const charge = update.grantRefund ? await db.charge.findFirst({ where: { siteId, subscriptionId: held.id } }) : null;
  if (update.grantRefund && !charge) throw badInput('grantRefund: this entitlement was not paid for', 'grantRefund');
  return db.$transaction(async (tx) => {
    const messages: string[] = [];
    if (charge) {
      const refunded = await refundInTx(
        tx,
        charge,
        { amount: update.refundAmount, reason: update.reason as RefundReason, details: update.refundDetails },
        'refundAmount',
      );
      if (!refunded.success) return { success: false, message: refunded.errorMessage };
      messages.push(`refunded ${refunded.refund?.amount} ${charge.currency}`);
    }
    const now = new Date(clock);
    // Active as it reads now: a pass whose period has ended is expired, and cannot be canceled.
    const active = { id: held.id, ...activeAt(clock) };
    if (update.action === 'cancel' || update.action === 'scheduleCancel') {
      const data =
        update.action === 'cancel'
          ? { status: 'canceled', canceledAt: now, cancelAt: null, updatedAt: now }
          : { cancelAt: held.currentPeriodEnd, updatedAt: now };
      const changed = await tx.subscription.updateMany({ where: active, data });
      if (changed.count !== 1) throw conflict(`only an active entitlement can be canceled (it is ${statusOf(held, clock)})`);
      messages.unshift(update.action === 'cancel' ? 'canceled' : `cancels on ${day(held.currentPeriodEnd as Date)}`);
    } else if (update.action === 'remove') {
      const changed = await tx.subscription.updateMany({
        where: { id: held.id, status: { not: 'removed' } },
        data: { status: 'removed', canceledAt: held.canceledAt ?? now, updatedAt: now },
      });
      if (changed.count !== 1) throw conflict('this entitlement was already removed');
      messages.unshift('removed');
    }
    return { success: true, message: messages.join('; ') };
  });
}
