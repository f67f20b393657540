/**
 * Every query and mutation root field of the supergraph, asked with the full selection a client generated
 * from the schema asks (test/helpers/fullSelection.ts) and sample arguments of their types, as the site's
 * developer key and as a viewer: never a 5xx or an internal error, and whatever data comes back fits the
 * selection's types (a non-null field never missing or null outside an error's path, every value of its
 * type). The site holds one of most things first, so the listings answer with items, not only empty lists.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isRequiredInputField,
  parse,
  type GraphQLInputType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import type { Stack } from '../../stack';
import { createChatPanel } from '../helpers/chat';
import { fullOperation, problemsOf } from '../helpers/fullSelection';
import { graphql, rest } from '../helpers/http';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let schema: GraphQLSchema;

beforeAll(async () => {
  stack = await startTestStack();
  const reply = await graphql(stack, getIntrospectionQuery(), {}, (await createTestSite(stack, 'Introspection')).admin);
  schema = buildClientSchema(reply.body.data as IntrospectionQuery);
});
afterAll(stopAll);

/** A value of an input type: required fields only, each scalar a plain sample. */
function sample(type: GraphQLInputType, depth = 0): unknown {
  if (isNonNullType(type)) return sample(type.ofType, depth);
  if (isListType(type)) return [sample(type.ofType, depth)];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0].value;
  if (isInputObjectType(named)) {
    const value: Record<string, unknown> = {};
    if (depth < 4) for (const field of Object.values(named.getFields())) if (isRequiredInputField(field)) value[field.name] = sample(field.type, depth + 1);
    return value;
  }
  switch (named.name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    case 'ID':
      return 'sample-id';
    case 'String':
      return 'sample';
    default:
      return {};
  }
}

const rootFields = (operation: 'query' | 'mutation') => () => Object.keys(schema.getRootType(operation as never)!.getFields()).sort();

/** A site of its own for a caller (a mutation of one walk, such as signing every session out, never reaches another), holding one of most things. */
async function walkedSite(): Promise<{ site: TestSite; member: { accountId: string; token: string } }> {
  const site = await createTestSite(stack, 'Root field walk');
  const member = await site.signIn([]);
  await createChannel(stack, site.siteId);
  await createChatPanel(stack, site);
  await rest(stack, 'POST', '/poll/v3/', { headers: site.admin, body: { type: 'poll', name: 'Walk', question: 'Sure?', answers: [{ id: 'y', text: 'Yes' }] } });
  await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'Walk', type: 'instance', contents: { text: 'hi' }, duration: 5 } });
  await rest(stack, 'POST', '/quest/v2', {
    headers: site.admin,
    body: { title: 'Walk', description: 'Walk', rewardDescription: 'A badge', rewardType: 'prize', claimedMessage: 'Yours!', siteId: site.siteId },
  });
  await rest(stack, 'POST', '/playlist/v1', { headers: site.admin, body: { title: 'Walk', members: [] } });
  return { site, member };
}

describe.each([
  ['the developer key', (walked: Awaited<ReturnType<typeof walkedSite>>) => walked.site.admin],
  [
    'a viewer',
    (walked: Awaited<ReturnType<typeof walkedSite>>) => ({ 'x-service-client-id': walked.site.siteId, authorization: `Bearer ${walked.member.token}` }),
  ],
])('as %s', (_caller, headersFor) => {
  let headersOf: () => Record<string, string>;
  beforeAll(async () => {
    const walked = await walkedSite();
    headersOf = () => headersFor(walked);
  });
  it.each(['query', 'mutation'] as const)('every %s root field answers without a 5xx and with data that fits its full selection', async (operation) => {
    const fields = rootFields(operation)();
    expect(fields.length).toBeGreaterThan(50);
    const problems: string[] = [];
    let withData = 0;
    for (const name of fields) {
      const field = schema.getRootType(operation as never)!.getFields()[name];
      const query = fullOperation(schema, operation, name);
      const variables: Record<string, unknown> = {};
      for (const argument of field.args) if (isNonNullType(argument.type)) variables[argument.name] = sample(argument.type);
      const reply = await graphql(stack, query, variables, headersOf());
      if (reply.status >= 500) problems.push(`${name}: HTTP ${reply.status}`);
      const errors: { message: string; path?: (string | number)[]; extensions?: { code?: string } }[] = reply.body?.errors ?? [];
      for (const error of errors) if (error.extensions?.code === 'INTERNAL_SERVER_ERROR') problems.push(`${name}: internal error ${error.message}`);
      if (reply.body?.data?.[name] != null) withData += 1;
      if (reply.body?.data !== undefined) for (const problem of problemsOf(schema, parse(query), reply.body.data, errors)) problems.push(`${name}: ${problem}`);
    }
    expect(problems).toEqual([]);
    // The walk reaches real data, not only refusals.
    expect(withData).toBeGreaterThan(0);
  });
});
