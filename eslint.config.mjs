// ESLint lints the GraphQL schema clients see: the supergraph's API schema, composed from the four
// subgraph SDLs (so every description written there is checked as it survives composition). `npm run
// generate` writes gateway/api-schema.generated.graphql; test/graphql-lint.test.ts runs this config and
// fails on any problem. Run by hand: `npx eslint gateway/api-schema.generated.graphql`.
import graphqlPlugin from '@graphql-eslint/eslint-plugin';

const schema = 'gateway/api-schema.generated.graphql';

function namingWithSeedVocabulary() {
  const { EnumValueDefinition, ...recommended } = graphqlPlugin.configs['flat/schema-recommended'].rules['@graphql-eslint/naming-convention'][1];
  return {
    ...recommended,
    FieldDefinition: { style: 'camelCase', ignorePattern: '^site_id$' },
    InputValueDefinition: { style: 'camelCase', ignorePattern: '^site_id$' },
  };
}

export default [
  {
    files: [schema],
    languageOptions: { parser: graphqlPlugin.parser, parserOptions: { graphQLConfig: { schema } } },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      // Every type, field, argument, input field, enum value and root field says what it is.
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
          DirectiveDefinition: true,
        },
      ],
      // Names follow GraphQL's conventions, except the enum values and the `site_id` field that carry
      // the seeds' own REST vocabulary (`template`, `requested_by_customer`, …): legacy clients send and
      // receive exactly those strings, and the REST bridge passes them through unchanged.
      '@graphql-eslint/naming-convention': ['error', namingWithSeedVocabulary()],
      // Off, with reasons. strict-id-in-types wants an `id: ID!` on every object type; value objects
      // (a role, a call to action, a page of a list, a mutation's result) have none by nature, and the
      // entities that do are checked by composition through their @key. no-typename-prefix flags four
      // fields named by the seeds (AccessCode.accessCode, Charge.chargeId, LiveBroadcast.liveBroadcastId,
      // Stream.streamKey), which admin front ends already use.
      '@graphql-eslint/strict-id-in-types': 'off',
      '@graphql-eslint/no-typename-prefix': 'off',
      '@graphql-eslint/require-deprecation-date': 'error',
    },
  },
];
