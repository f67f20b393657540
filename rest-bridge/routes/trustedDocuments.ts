/** Trusted documents (ours): a site's persisted query manifest and its trusted-documents-only setting; answered by the content subgraph. */
import { ADMIN, SITE_ADMIN, arrayOf, epochMs, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { boolean, nullableStr, obj, str } from './shared';

/** Components of the OpenAPI document these routes refer to. */
export const trustedDocumentSchemas: Record<string, JsonSchema> = {
  TrustedDocument: obj({ id: str, name: nullableStr, type: str, body: str, created: epochMs }),
  TrustedDocumentRegistration: obj({
    operations: { type: 'integer' },
    added: { type: 'integer', description: 'operations the site did not have yet' },
    ids: arrayOf(str),
  }),
  TrustedDocumentSettings: obj({ trustedDocumentsOnly: boolean, documents: { type: 'integer' } }),
};

const MANIFEST: JsonSchema = {
  type: 'object',
  description: 'Apollo’s persisted query manifest, as @apollo/generate-persisted-query-manifest writes it',
  required: ['format', 'version', 'operations'],
  properties: {
    format: { type: 'string', enum: ['apollo-persisted-query-manifest'] },
    version: { type: 'integer', enum: [1] },
    // Entries are checked by the operation, so REST, GraphQL and the CLI name a wrong one alike (operations[2].id).
    operations: { type: 'array', description: '[{id: sha256 hex of body, name, type: query | mutation | subscription, body}]', items: {} },
  },
};

export const trustedDocumentRoutes: RouteSpec[] = [
  {
    operationId: 'registerTrustedDocuments',
    method: 'post',
    path: '/graphql/documents',
    summary:
      'Register a persisted query manifest: requests may then send an operation’s id (extensions.persistedQuery.sha256Hash or documentId) instead of its body',
    tag: 'Trusted documents',
    auth: SITE_ADMIN,
    body: { schema: MANIFEST, required: true },
    document: /* GraphQL */ `mutation RegisterTrustedDocuments($manifest: JSON!) { result: registerTrustedDocuments(manifest: $manifest) { operations added ids } }`,
    variables: { manifest: 'body' },
    status: 201,
    response: ref('TrustedDocumentRegistration'),
  },
  {
    operationId: 'listTrustedDocuments',
    method: 'get',
    path: '/graphql/documents',
    summary: 'The site’s trusted documents, oldest first',
    tag: 'Trusted documents',
    auth: ADMIN,
    document: /* GraphQL */ `query TrustedDocuments { result: trustedDocuments { id name type body created } }`,
    response: arrayOf(ref('TrustedDocument')),
  },
  {
    operationId: 'setTrustedDocumentsOnly',
    method: 'put',
    path: '/graphql/documents/settings',
    summary: 'Turn trusted documents only on or off: on, callers without a developer key run only the site’s trusted documents over /graphql',
    tag: 'Trusted documents',
    auth: ADMIN,
    body: {
      schema: { type: 'object', additionalProperties: false, required: ['trustedDocumentsOnly'], properties: { trustedDocumentsOnly: boolean } },
      required: true,
    },
    document: /* GraphQL */ `mutation SetTrustedDocumentsOnly($enabled: Boolean!) { result: setTrustedDocumentsOnly(enabled: $enabled) { trustedDocumentsOnly documents } }`,
    variables: { enabled: 'body.trustedDocumentsOnly' },
    response: ref('TrustedDocumentSettings'),
  },
];
