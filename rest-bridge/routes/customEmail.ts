/** Custom receipt e-mail (seed 001); answered by the community subgraph. */
import { ADMIN, arrayOf, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { boolean, email, object, string } from './shared';

const SENDER = /* GraphQL */ `domain fromEmail fromName replyToEmail dnsRecords { purpose type name value }`;
const TEMPLATE = /* GraphQL */ `subject template custom variables`;

/** Components of the OpenAPI document these routes refer to. */
export const customEmailSchemas: Record<string, JsonSchema> = {
  ReceiptSender: object({
    success: boolean,
    domain: string,
    fromEmail: string,
    fromName: string,
    replyToEmail: string,
    dnsRecords: arrayOf(object({ purpose: { type: 'string', enum: ['dkim', 'spf'] }, type: string, name: string, value: string })),
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
    operationId: 'setReceiptTemplate',
    method: 'put',
    path: '/customemail/v1/receipt/',
    summary: 'A custom Handlebars HTML receipt template (and subject); variables are listed in the answer',
    tag: 'Custom receipt e-mail',
    auth: ADMIN,
    body: {
      required: true,
      schema: { type: 'object', required: ['subject', 'template'], additionalProperties: false, properties: { subject: { type: 'string', minLength: 1 }, template: { type: 'string', minLength: 1 } } },
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
