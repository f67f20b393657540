/** Custom receipt e-mail (seed 001); answered by the community subgraph. */
import { ADMIN, arrayOf, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { boolean, email, nullableNum, nullableString, object, string } from './shared';

const CHECK = /* GraphQL */ `status checkedAt problem`;
const SENDER = /* GraphQL */ `domain fromEmail fromName replyToEmail ${CHECK} dnsRecords { purpose type name value }`;
/** The sender as GET /customemail/v1/sender answers it: the records to publish as `records`. */
const SENDER_CHECK = /* GraphQL */ `domain fromEmail fromName replyToEmail ${CHECK} records: dnsRecords { type name value }`;

const NO_SENDER_YET = 'no sender was added yet (PUT /customemail/v1/add-sender-email/)';
const senderStatus: JsonSchema = { type: 'string', enum: ['pending', 'verified', 'failed'], description: 'receipts go from the domain only while verified' };
const checkFields = {
  status: senderStatus,
  checkedAt: { ...nullableNum, description: 'Unix time in milliseconds; null before the first check' },
  problem: nullableString,
};
const TEMPLATE = /* GraphQL */ `subject template custom variables`;

/** Components of the OpenAPI document these routes refer to. */
export const customEmailSchemas: Record<string, JsonSchema> = {
  ReceiptSender: object({
    success: boolean,
    domain: string,
    fromEmail: string,
    fromName: string,
    replyToEmail: string,
    ...checkFields,
    dnsRecords: arrayOf(object({ purpose: { type: 'string', enum: ['dkim', 'spf'] }, type: string, name: string, value: string })),
  }),
  SenderCheck: object({
    domain: string,
    fromEmail: string,
    fromName: string,
    replyToEmail: string,
    ...checkFields,
    records: arrayOf(object({ type: { type: 'string', enum: ['TXT'] }, name: string, value: string })),
  }),
  ReceiptTemplate: object({ success: boolean, subject: string, template: string, custom: boolean, variables: arrayOf(string) }),
};

export const customEmailRoutes: RouteSpec[] = [
  {
    operationId: 'getReceiptEmail',
    method: 'get',
    path: '/customemail/v1/',
    summary: 'The site’s receipt sender (with the DNS records to publish) and template',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    document: /* GraphQL */ `query ReceiptEmail { result: receiptEmail { sender { ${SENDER} } template { ${TEMPLATE} } } }`,
    response: object({ sender: { type: ['object', 'null'] }, template: { type: 'object' } }),
  },
  {
    operationId: 'setReceiptSender',
    method: 'put',
    path: '/customemail/v1/add-sender-email/',
    summary: 'Send receipts as the site’s domain; answers the DKIM and SPF records the domain must publish',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['domain', 'fromEmail', 'fromName', 'replyToEmail'],
        additionalProperties: false,
        properties: { domain: string, fromEmail: email, fromName: string, replyToEmail: email },
      },
    },
    document: /* GraphQL */ `mutation SetReceiptSender($input: ReceiptSenderInput!) { result: setReceiptSender(input: $input) { ${SENDER} } }`,
    variables: { input: 'body' },
    envelope: 'success',
    response: ref('ReceiptSender'),
  },
  {
    operationId: 'getReceiptSender',
    method: 'get',
    path: '/customemail/v1/sender',
    summary: 'The site’s sender: whether its DNS lets receipts go from its domain (pending, verified, failed), and the TXT records to publish',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    document: /* GraphQL */ `query ReceiptSender { result: receiptSender { ${SENDER_CHECK} } }`,
    notFoundWhen: NO_SENDER_YET,
    response: ref('SenderCheck'),
  },
  {
    operationId: 'verifyReceiptSender',
    method: 'post',
    path: '/customemail/v1/sender/verify',
    summary: 'Checks the sender’s domain in DNS now; a DNS timeout is a failed check with its reason, not an error',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    document: /* GraphQL */ `mutation VerifyReceiptSender { result: verifyReceiptSender { ${SENDER_CHECK} } }`,
    notFoundWhen: NO_SENDER_YET,
    response: ref('SenderCheck'),
  },
  {
    operationId: 'setReceiptTemplate',
    method: 'put',
    path: '/customemail/v1/receipt/',
    summary: 'A custom Handlebars HTML receipt template (and subject); variables are listed in the answer',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['subject', 'template'],
        additionalProperties: false,
        properties: { subject: { type: 'string', minLength: 1 }, template: { type: 'string', minLength: 1 } },
      },
    },
    document: /* GraphQL */ `mutation SetReceiptTemplate($subject: String!, $template: String!) { result: setReceiptTemplate(subject: $subject, template: $template) { ${TEMPLATE} } }`,
    variables: { subject: 'body.subject', template: 'body.template' },
    envelope: 'success',
    response: ref('ReceiptTemplate'),
  },
  {
    operationId: 'deleteReceiptTemplate',
    method: 'delete',
    path: '/customemail/v1/receipt/',
    summary: 'Remove the custom template: receipts use the default one again',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    document: /* GraphQL */ `mutation DeleteReceiptTemplate { result: deleteReceiptTemplate { ${TEMPLATE} } }`,
    envelope: 'success',
    response: ref('ReceiptTemplate'),
  },
];
