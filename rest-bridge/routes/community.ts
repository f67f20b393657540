/**
 * Community (seed 001): the account listing, exports and actions on many accounts' entitlements; answered by the
 * community subgraph.
 */
import { ADMIN, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { ACCOUNT, FILE, ROLE, boolean, nullableString, object, priceSchema, query, refundReason, string } from './shared';

const PRICE = /* GraphQL */ `currency default paymentPriceId value`;
const TICKET = /* GraphQL */ `id accessCode actions { canCancel canRefund canRemove } currentPeriodEnd date dateCanceled dateRefunded formattedPrice
  grantedMethod methodDescription name price { ${PRICE} } sku status statusTooltip wasRefunded`;
const COMMUNITY_ITEM = /* GraphQL */ `accountId userId created lastLogin marketingOptin name email service siteId thumbnail roles { ${ROLE} }`;

/** Components of the OpenAPI document these routes refer to. */
export const communitySchemas: Record<string, JsonSchema> = {
  CommunityAccountItem: object({
    accountId: string,
    userId: nullableString,
    created: epochMs,
    lastLogin: { type: ['number', 'null'] },
    marketingOptin: boolean,
    name: string,
    email: string,
    service: string,
    siteId: string,
    thumbnail: nullableString,
    roles: arrayOf(ref('AccountRole')),
  }),
  Ticket: object({
    id: { type: 'string', description: 'the account entitlement ID update-entitlement takes' },
    accessCode: nullableString,
    actions: object({ canCancel: boolean, canRefund: boolean, canRemove: boolean }),
    currentPeriodEnd: { type: ['number', 'null'] },
    date: epochMs,
    dateCanceled: { type: ['number', 'null'] },
    dateRefunded: { type: ['number', 'null'] },
    formattedPrice: string,
    grantedMethod: string,
    methodDescription: string,
    name: string,
    price: { oneOf: [priceSchema, { type: 'null' }] },
    sku: string,
    status: string,
    statusTooltip: string,
    wasRefunded: boolean,
  }),
};

const searchParams = [
  query('searchBy', { type: 'string', enum: ['accountInfo', 'entitlements', 'paidEntitlements', 'accessCode', 'receiptNumber'] }),
  query('searchQuery', string),
  query(
    'filter',
    { type: 'object', properties: { channelId: string, timeStart: { type: 'number' }, timeEnd: { type: 'number' } } },
    false,
    'JSON: {channelId, timeStart, timeEnd}',
  ),
];
const searchVariables = { searchBy: 'query.searchBy', searchQuery: 'query.searchQuery', filter: 'query.filter' } as const;

export const communityRoutes: RouteSpec[] = [
  {
    operationId: 'listCommunity',
    method: 'get',
    path: '/community/v1/',
    summary: 'The site’s community: accounts with search, filter, sort and paging links',
    tag: 'Community',
    auth: ADMIN,
    params: [
      query('offset', { type: 'integer', minimum: 0 }, true),
      query('limit', { type: 'integer', minimum: 1, maximum: 500 }, false, 'default 50'),
      query('sortBy', { type: 'string', enum: ['name', 'created'] }, true),
      query('sortDirection', { type: 'integer', enum: [1, -1] }, true, '1 ascending, -1 descending'),
      ...searchParams,
    ],
    document: /* GraphQL */ `query ListCommunity($query: CommunityQuery!) { result: community(query: $query) {
      result { forceExport pagination { first last next prev self } results { ${ACCOUNT} } } results { ${COMMUNITY_ITEM} } } }`,
    variables: { query: { offset: 'query.offset', limit: 'query.limit', sortBy: 'query.sortBy', sortDirection: 'query.sortDirection', ...searchVariables } },
    response: object({
      result: object({
        forceExport: boolean,
        pagination: object({ first: string, last: string, next: nullableString, prev: nullableString, self: string }),
        results: arrayOf(ref('Account')),
      }),
      results: arrayOf(ref('CommunityAccountItem')),
    }),
  },
  {
    operationId: 'getCommunityAccount',
    method: 'get',
    path: '/community/v1/account/',
    summary: 'One account of the community: its item, tickets (one-time) and subscriptions (recurring)',
    tag: 'Community',
    auth: ADMIN,
    params: [query('accountId', string, true)],
    document: /* GraphQL */ `query CommunityAccount($accountId: ID!) { result: communityAccount(accountId: $accountId) {
      accountItem { ${COMMUNITY_ITEM} } tickets { ${TICKET} } subscriptions { ${TICKET} } } }`,
    variables: { accountId: 'query.accountId' },
    response: object({ accountItem: ref('CommunityAccountItem'), tickets: arrayOf(ref('Ticket')), subscriptions: arrayOf(ref('Ticket')) }),
  },
  {
    operationId: 'exportCommunity',
    method: 'get',
    path: '/community/v1/export/',
    summary: 'Export the community (as searched and filtered) to a CSV, fetched with GET /community/v1/export/{exportId}',
    tag: 'Community',
    auth: ADMIN,
    params: searchParams,
    document: /* GraphQL */ `mutation ExportCommunity($input: CommunityExportInput) { result: exportCommunity(input: $input) { exportId fileName status } }`,
    variables: { input: searchVariables },
    response: object({ exportId: string, fileName: string, status: { type: 'string', description: 'completed' } }),
  },
  {
    operationId: 'getCommunityExport',
    method: 'get',
    path: '/community/v1/export/{exportId}',
    summary: 'The CSV file of a community export',
    tag: 'Community',
    auth: ADMIN,
    params: [id('exportId', 'export ID')],
    document: /* GraphQL */ `query CommunityExportFile($exportId: ID!) { result: communityExportFile(exportId: $exportId) { ${FILE} } }`,
    variables: { exportId: 'path.exportId' },
    file: { contentTypes: ['text/csv'] },
    response: string,
  },
  {
    operationId: 'grantEntitlement',
    method: 'post',
    path: '/community/v1/grant-entitlement/',
    summary: 'Give an account an entitlement (subscriptionId: the entitlement’s ID or SKU)',
    tag: 'Community',
    auth: ADMIN,
    params: [query('accountId', string, true), query('subscriptionId', string, true, 'the entitlement ID (or SKU)')],
    document: /* GraphQL */ `mutation GrantEntitlement($accountId: ID!, $entitlementId: ID!) { result: grantEntitlement(accountId: $accountId, entitlementId: $entitlementId) { success message } }`,
    variables: { accountId: 'query.accountId', entitlementId: 'query.subscriptionId' },
    response: object({ success: boolean, message: nullableString }, ['success']),
  },
  {
    operationId: 'updateAccountEntitlement',
    method: 'patch',
    path: '/community/v1/update-entitlement/',
    summary: 'Cancel, schedule the cancellation of, remove or refund an account’s entitlement',
    tag: 'Community',
    auth: ADMIN,
    params: [
      query('accountId', string, true),
      query('action', { type: 'string', enum: ['cancel', 'justRefund', 'remove', 'scheduleCancel'] }, true),
      query('id', string, true, 'the account entitlement ID (a ticket’s id)'),
      query('grantRefund', boolean, true),
      query('reason', refundReason),
      query('refundAmount', { type: 'number', minimum: 0 }),
      query('refundDetails', string),
    ],
    document: /* GraphQL */ `mutation UpdateAccountEntitlement($input: UpdateAccountEntitlementInput!) { result: updateAccountEntitlement(input: $input) { success message } }`,
    variables: {
      input: {
        accountId: 'query.accountId',
        action: 'query.action',
        id: 'query.id',
        grantRefund: 'query.grantRefund',
        reason: 'query.reason',
        refundAmount: 'query.refundAmount',
        refundDetails: 'query.refundDetails',
      },
    },
    response: object({ success: boolean, message: nullableString }, ['success']),
  },
];
