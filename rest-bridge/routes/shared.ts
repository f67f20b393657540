/**
 * What route families share: GraphQL selections, OpenAPI components, parameters and schema helpers used by more
 * than one file of this folder. Whatever one family alone uses lives in that family's file.
 */
import { arrayOf, epochMs } from '../table';
import type { JsonSchema, ParamSpec } from '../table';

export const VIDEO = /* GraphQL */ `_id: id siteId title description type url durationSeconds player thumbnail uploadStatus subscriptions: requiredEntitlements { sku } tags created modified`;
export const THEME = /* GraphQL */ `_id: id name type mode button { borderRadius textCapitalization } colors typography { body headline } creator owner tags created modified`;

export const LIST_PAGINATION = /* GraphQL */ `pagination { limit offset searchFields sortDirection totalCount }`;

export const REFERENCE = /* GraphQL */ `_id: id collection name`;

export const str: JsonSchema = { type: 'string' };
export const nullableStr: JsonSchema = { type: ['string', 'null'] };
export const nullableNum: JsonSchema = { type: ['number', 'null'] };
export const obj = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  required,
  properties,
});
/** A required JSON body of exactly these properties (`required` among them). */
export const strictBody = (required: string[], properties: Record<string, JsonSchema>) => ({
  schema: { type: 'object', ...(required.length > 0 && { required }), additionalProperties: false, properties },
  required: true,
});
export const freeObject = (description: string): JsonSchema => ({ type: ['object', 'null'], description });
export const tags = arrayOf(str);
export const pagination = obj({
  limit: { type: 'integer' },
  offset: { type: 'integer' },
  searchFields: arrayOf(str),
  sortDirection: { type: 'integer' },
  totalCount: { type: 'integer' },
});

export const strings = (maxItems: number): JsonSchema => ({ type: 'array', maxItems, items: { type: 'string' } });

export const limit: ParamSpec = { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } };
export const offset: ParamSpec = { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } };
export const sortDirection: ParamSpec = {
  name: 'sortDirection',
  in: 'query',
  schema: { type: 'integer', enum: [1, -1] },
  description: '1 ascending, -1 descending',
};
export const sortBy = (names: string[], fallback: string): ParamSpec => ({
  name: 'sortBy',
  in: 'query',
  schema: { type: 'string', enum: names, default: fallback },
});
export const property = (example: string): ParamSpec => ({
  name: 'property',
  in: 'query',
  schema: { type: 'string', maxLength: 300 },
  description: `a filter written name=value, e.g. ${example}`,
});
export const search = (what: string): ParamSpec => ({
  name: 'search',
  in: 'query',
  schema: { type: 'string', maxLength: 200 },
  description: `part of the ${what}, any case`,
});
export const listVariables = { limit: 'query.limit', offset: 'query.offset', sortBy: 'query.sortBy', sortDirection: 'query.sortDirection' } as const;

// GraphQL selections in the seed's field names.
export const ROLE = /* GraphQL */ `pageId scope write`;
export const ENTITLEMENT = /* GraphQL */ `_id: id name prices { currency default paymentPriceId value } recurrence siteId sku subscriptionProvider created modified tags`;
export const SUBSCRIPTION = /* GraphQL */ `_id: id accountId dateGranted entitlement { ${ENTITLEMENT} } grantedMethod presentmentCurrency siteId status created modified`;
export const ACCOUNT = /* GraphQL */ `_id: id siteId globalAccountID: globalAccountId uid email name normalizedName marketingOptin lastLogin
  thirdPartyAuthProviders { accountId provider } roles { ${ROLE} } subscriptions { ${SUBSCRIPTION} } created modified tags`;

export const SESSION = /* GraphQL */ `jwt refreshToken service`;
export const RESULT = /* GraphQL */ `success message`;

export const FILE = /* GraphQL */ `contentType fileName content`;

export const string: JsonSchema = { type: 'string' };
export const nullableString: JsonSchema = { type: ['string', 'null'] };
export const boolean: JsonSchema = { type: 'boolean' };
export const object = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  required,
  properties,
});

export const priceSchema = object({ currency: string, default: boolean, paymentPriceId: nullableString, value: { type: 'number' } });

export const email: JsonSchema = { type: 'string', minLength: 3, maxLength: 254 };

export const roleInput: JsonSchema = {
  type: 'object',
  required: ['scope', 'write'],
  additionalProperties: false,
  properties: { pageId: arrayOf(string), scope: { type: 'string', minLength: 1 }, write: boolean },
};

export const refundReason: JsonSchema = { type: 'string', enum: ['duplicate', 'fraudulent', 'requested_by_customer'] };
export const query = (name: string, schema: JsonSchema, required = false, description?: string): ParamSpec => ({
  name,
  in: 'query',
  schema,
  required,
  description,
});

export const bearer: ParamSpec = {
  name: 'Authorization',
  in: 'header',
  credential: true,
  schema: { type: 'string' },
  description: 'Bearer <authorization> from registration',
};

export const STATE = /* GraphQL */ `state { ingestEnabled ingestConnected playbackLive recording ingestChangedAt playbackChangedAt }`;
export const STREAM = /* GraphQL */ `_id: id siteId pageId contractId title fallbackImageUrl ingestUrl streamKey playbackUrl providerStreamId liveBroadcastId ${STATE}
  broadcasts { liveBroadcastId started stopped vodId vodUrl durationSeconds videoId vodDeleted } created modified
  simulcastTargets { name url state reason stateChanged }`;

export const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };

export const httpUrl: JsonSchema = { type: 'string', minLength: 1, description: 'http(s) URL' };

/** Components of the OpenAPI document that routes of several families refer to. */
export const sharedSchemas: Record<string, JsonSchema> = {
  Video: obj({
    _id: str,
    siteId: str,
    title: str,
    description: str,
    type: str,
    url: { type: ['string', 'null'], description: 'where it plays; null when the caller may not play it (a paywall shows the rest)' },
    durationSeconds: nullableNum,
    player: str,
    thumbnail: nullableStr,
    uploadStatus: str,
    subscriptions: arrayOf(obj({ sku: str })),
    tags,
    created: epochMs,
    modified: epochMs,
  }),
  Theme: obj({
    _id: str,
    name: str,
    type: str,
    mode: str,
    button: obj({ borderRadius: str, textCapitalization: str }),
    colors: { type: 'object', additionalProperties: str },
    typography: obj({ body: str, headline: str }),
    creator: nullableStr,
    owner: nullableStr,
    tags,
    created: nullableNum,
    modified: nullableNum,
  }),
  ContentReference: obj({ _id: str, collection: str, name: str }),
  Deleted: obj({ success: { type: 'boolean' }, _id: str }),
  AccountRole: object({ pageId: arrayOf(string), scope: { type: 'string', description: 'Overlays, Accounts, …; * = all' }, write: boolean }),
  Entitlement: object({
    _id: string,
    name: string,
    prices: arrayOf(priceSchema),
    recurrence: { type: 'string', description: 'once, week, month, year' },
    siteId: string,
    sku: string,
    subscriptionProvider: string,
    created: epochMs,
    modified: epochMs,
    tags: arrayOf(string),
  }),
  Session: object({
    jwt: { type: 'string', description: 'short-lived; Authorization: Bearer <jwt>' },
    refreshToken: { type: 'string', description: 'single use; POST /auth/v2/refresh' },
    service: string,
  }),
  OperationResult: object({ success: boolean, message: string }),
};
