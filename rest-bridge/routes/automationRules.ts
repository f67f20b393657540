/**
 * Automation rules (seed 001, /personalization): triggers on data provider events that broadcast an overlay;
 * answered by the overlays subgraph.
 */
import { ADMIN, READ_ONLY, arrayOf, epochMs, pathId as id, ref } from '../table';
import type { JsonSchema, RouteSpec } from '../table';
import { TRIGGER_OPERATORS } from '../../subgraphs/overlays/triggers';

const RULE = /* GraphQL */ `_id: id name dataSourceId siteId jsonRule isActive channelId clientRule created modified`;

/** Components of the OpenAPI document these routes refer to. */
export const automationRuleSchemas: Record<string, JsonSchema> = {
  AutomationRule: {
    type: 'object',
    required: ['_id', 'name', 'dataSourceId', 'siteId', 'jsonRule', 'isActive', 'clientRule', 'created', 'modified'],
    properties: {
      _id: { type: 'string' },
      name: { type: 'string' },
      dataSourceId: { type: 'string', description: 'the data provider of jsonRule.trigger' },
      siteId: { type: 'string' },
      jsonRule: ref('JsonRule'),
      isActive: { type: 'boolean' },
      channelId: { type: ['string', 'null'] },
      clientRule: { type: 'boolean' },
      created: epochMs,
      modified: epochMs,
    },
  },
  JsonRule: {
    type: 'object',
    required: ['trigger', 'action'],
    properties: {
      trigger: {
        type: 'object',
        required: ['dataProviderId', 'fact', 'operator', 'value'],
        properties: {
          dataProviderId: { type: 'string' },
          fact: { type: 'string', description: 'a fact of the data provider, e.g. data.score' },
          operator: { type: 'string', enum: [...TRIGGER_OPERATORS] },
          value: {
            description: 'string (numbers compare as numbers); a list or comma-separated string for in / not_in',
            oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { type: ['string', 'number', 'boolean'] } }],
          },
          behavior: { type: 'string', enum: ['immediate'] },
        },
      },
      action: {
        type: 'object',
        required: ['type', 'targeting', 'templateId'],
        properties: {
          type: { type: 'string', enum: ['SEND_OVERLAY'] },
          targeting: {
            type: 'object',
            required: ['scope'],
            properties: {
              scope: { type: 'string', enum: ['all_channels', 'specific_channels'] },
              target: arrayOf({ type: 'string', description: 'channel ID' }),
              segment: { type: 'string', enum: ['all_viewers', 'viewers_with_tags'] },
              tags: arrayOf({ type: 'string' }),
              priority: { type: 'number' },
            },
          },
          templateId: { type: 'string', description: 'the overlay to broadcast' },
          dataMap: { type: 'object', additionalProperties: { type: 'string' }, description: 'template variable -> dotted path in the event' },
          broadcastPayload: { type: 'object', description: 'duration (seconds), variables (constants), …' },
        },
      },
    },
  },
};

const ruleFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  jsonRule: { type: 'object', description: 'see the JsonRule schema' },
  channelId: { type: ['string', 'null'] },
  active: { type: 'boolean', description: 'default true' },
  isActive: { type: 'boolean', description: 'the same as active' },
  clientRule: { type: 'boolean' },
};

const ruleVariables = {
  name: 'body.name',
  jsonRule: 'body.jsonRule',
  channelId: 'body.channelId',
  active: ['body.active', 'body.isActive'],
  clientRule: 'body.clientRule',
} as const;

const successMessage: JsonSchema = {
  type: 'object',
  required: ['success', 'message'],
  properties: { success: { type: 'boolean' }, message: { type: 'string' } },
};

export const automationRuleRoutes: RouteSpec[] = [
  {
    operationId: 'listAutomationRules',
    method: 'get',
    path: '/personalization/v1/',
    summary: 'List the automation rules of the site',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [{ name: 'clientRule', in: 'query', schema: { type: 'boolean' }, description: 'only rules with this clientRule value; absent = all' }],
    document: /* GraphQL */ `query ListAutomationRules($clientRule: Boolean) { result: automationRules(clientRule: $clientRule) { results { ${RULE} } message } }`,
    variables: { clientRule: 'query.clientRule' },
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'results', 'message'],
      properties: { success: { type: 'boolean' }, results: arrayOf(ref('AutomationRule')), message: { type: 'string' } },
    },
  },
  {
    operationId: 'createAutomationRule',
    method: 'post',
    path: '/personalization/v1/',
    summary: 'Create an automation rule',
    tag: 'Automation rules',
    auth: ADMIN,
    body: { schema: { type: 'object', required: ['name', 'jsonRule'], additionalProperties: false, properties: ruleFields }, required: true },
    document: /* GraphQL */ `mutation CreateAutomationRule($input: CreateAutomationRuleInput!) { result: createAutomationRule(input: $input) { id get } }`,
    variables: { input: ruleVariables },
    status: 201,
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'id', 'get'],
      properties: { success: { type: 'boolean' }, id: { type: 'string' }, get: { type: 'string', description: 'the path that reads the rule' } },
    },
  },
  {
    operationId: 'deleteAutomationRules',
    method: 'put',
    path: '/personalization/v1/automation-rule',
    summary: 'Delete the automation rules named in ids',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [{ name: 'ids', in: 'query', required: true, schema: { type: 'string' }, description: 'rule IDs, comma-separated' }],
    document: /* GraphQL */ `mutation DeleteAutomationRules($ids: [ID!]!) { result: deleteAutomationRules(ids: $ids) { total removed message } }`,
    variables: { ids: 'query.ids' },
    envelope: 'success',
    response: {
      type: 'object',
      required: ['success', 'total', 'removed', 'message'],
      properties: { success: { type: 'boolean' }, total: { type: 'integer' }, removed: { type: 'integer' }, message: { type: 'string' } },
    },
  },
  {
    operationId: 'updateAutomationRule',
    method: 'put',
    path: '/personalization/v1/{id}',
    summary: 'Update what is given of an automation rule’s fields (absent fields keep their value)',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [id('id', 'rule ID')],
    body: {
      schema: { type: 'object', additionalProperties: false, properties: ruleFields },
      required: true,
      readOnly: [...READ_ONLY, 'success', 'dataSourceId', 'siteId'],
    },
    document: /* GraphQL */ `mutation UpdateAutomationRule($id: ID!, $input: UpdateAutomationRuleInput!) { result: updateAutomationRule(id: $id, input: $input) { message } }`,
    variables: { id: 'path.id', input: ruleVariables },
    envelope: 'success',
    response: successMessage,
  },
  {
    operationId: 'getAutomationRule',
    method: 'get',
    path: '/personalization/v1/{id}',
    summary: 'Get one automation rule',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [id('id', 'rule ID')],
    document: /* GraphQL */ `query GetAutomationRule($id: ID!) { result: automationRule(id: $id) { ${RULE} } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: { allOf: [ref('AutomationRule'), { type: 'object', properties: { success: { type: 'boolean' } } }] },
  },
  {
    operationId: 'deleteAutomationRule',
    method: 'delete',
    path: '/personalization/v1/automation-rule/{id}',
    summary: 'Delete one automation rule',
    tag: 'Automation rules',
    auth: ADMIN,
    params: [id('id', 'rule ID')],
    document: /* GraphQL */ `mutation DeleteAutomationRule($id: ID!) { result: deleteAutomationRule(id: $id) { message } }`,
    variables: { id: 'path.id' },
    envelope: 'success',
    response: successMessage,
  },
];
