/** Billing: charges, refunds (seed 001) and wallet payments; answered by the community subgraph. */
import { ADMIN, epochMs, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { SUBSCRIPTION, boolean, nullableString, object, refundReason, string } from './shared';

const CHARGE = /* GraphQL */ `_id: id chargeId accountId subscriptionId receiptNumber currency quantity amount refunded refundable paymentMethod created`;

/** Components of the OpenAPI document these routes refer to. */
export const billingSchemas: Record<string, JsonSchema> = {
  Charge: object({
    _id: string,
    chargeId: { type: 'string', description: 'the payment processor’s charge ID' },
    accountId: string,
    subscriptionId: nullableString,
    receiptNumber: string,
    currency: string,
    quantity: { type: 'integer' },
    amount: { type: 'number' },
    refunded: { type: 'number' },
    refundable: { type: 'number' },
    paymentMethod: string,
    created: epochMs,
  }),
};

export const billingRoutes: RouteSpec[] = [
  {
    operationId: 'verifyWalletPay',
    method: 'post',
    path: '/billing/v1/status/wallet-pay-verify',
    summary: 'Verify the site’s domain (Site settings.domain) for wallet payment methods',
    tag: 'Billing',
    auth: ADMIN,
    document: /* GraphQL */ `mutation VerifyWalletPay { result: verifyWalletPay }`,
    response: { type: 'boolean', enum: [true] },
  },
  {
    operationId: 'refundCharge',
    method: 'post',
    path: '/billing/v1/refund',
    summary: 'Refund a charge (amount omitted = what is left of it); {success: false, errorMessage} when it cannot be refunded',
    tag: 'Billing',
    auth: ADMIN,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['accountId', 'chargeId', 'reason'],
        additionalProperties: false,
        properties: { accountId: string, chargeId: string, amount: { type: 'number', minimum: 0 }, reason: refundReason, details: string },
      },
    },
    document: /* GraphQL */ `mutation RefundCharge($input: RefundInput!) { result: refundCharge(input: $input) {
      success errorMessage refund { _id: id amount currency reason created } charge { ${CHARGE} } } }`,
    variables: { input: 'body' },
    response: object(
      { success: boolean, errorMessage: nullableString, refund: { type: ['object', 'null'] }, charge: { oneOf: [ref('Charge'), { type: 'null' }] } },
      ['success'],
    ),
  },
  {
    operationId: 'recordPurchase',
    method: 'post',
    path: '/billing/v1/purchase',
    summary: 'Record a paid purchase (from the payment integration): the charge, the entitlement granted, the receipt e-mailed',
    tag: 'Billing',
    auth: ADMIN,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['accountId', 'sku', 'paymentMethod'],
        additionalProperties: false,
        properties: {
          accountId: string,
          sku: string,
          currency: string,
          quantity: { type: 'integer', minimum: 1, maximum: 1000 },
          paymentMethod: string,
          chargeId: string,
          serviceCharge: { type: 'number', minimum: 0 },
          tax: { type: 'number', minimum: 0 },
          eventUrl: string,
        },
      },
    },
    document: /* GraphQL */ `mutation RecordPurchase($input: RecordPurchaseInput!) { result: recordPurchase(input: $input) { subscription { ${SUBSCRIPTION} } charge { ${CHARGE} } } }`,
    variables: { input: 'body' },
    status: 201,
    response: object({ subscription: ref('Subscription'), charge: ref('Charge') }),
  },
];
