// ESLint lints two things.
// - Every TypeScript file, with type information (typescript-eslint's recommendedTypeChecked): a promise
//   nobody awaits or handles, or one passed where a plain callback is expected, is an error. `npm run lint`
//   (run once by .ci/run). Generated files are left out: they are rebuilt, never edited.
// - The GraphQL schema clients see: the supergraph's API schema, composed from the four subgraph SDLs (so
//   every description written there is checked as it survives composition). `npm run generate` writes
//   gateway/api-schema.generated.graphql; test/gateway/graphql-lint.unit.ts runs this config and fails on any
//   problem. Run by hand: `npx eslint gateway/api-schema.generated.graphql`.
// - Imports run one way: import-x's no-cycle refuses an import circle between our modules (it reads imports through
//   TypeScript's resolution; type-only imports it leaves out, and test/operations/imports.unit.ts, which counts them
//   too, keeps those out), and no-restricted-paths keeps every subgraph off the gateway's code.
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const schema = 'gateway/api-schema.generated.graphql';

function namingWithSeedVocabulary() {
  const { EnumValueDefinition, ...recommended } = graphqlPlugin.configs['flat/schema-recommended'].rules['@graphql-eslint/naming-convention'][1];
  return {
    ...recommended,
    FieldDefinition: { style: 'camelCase', ignorePattern: '^site_id$' },
    InputValueDefinition: { style: 'camelCase', ignorePattern: '^site_id$' },
  };
}

export default defineConfig([
  { ignores: ['dist/**', 'node_modules/**', '**/*.generated.ts', 'shared/db/generated/**', 'test/generated/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // Each file is checked with the tsconfig.json nearest to it (embed/ has its own, for the browser).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Our own modules are TypeScript: read them with TypeScript's parser and resolution.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        { zones: [{ target: './subgraphs', from: './gateway', message: 'a subgraph never imports the gateway: shapes both use live in shared/' }] },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Off: the compiler reports unused names (noUnusedLocals, noUnusedParameters), and it alone knows a
      // name used only in a type position of another module's namespace (Prisma.InputJsonValue).
      '@typescript-eslint/no-unused-vars': 'off',
      // Off: `async` without `await` is how a hook that must answer a promise is written (Apollo plugins,
      // the bus's handlers, jest's callbacks); what matters about promises is the two rules above.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests and the bench read the JSON a server answered as `any` (test/helpers/http.ts, bench/harness.ts)
    // and assert on it: typing each answer would restate the OpenAPI document that already validates
    // every REST reply of the tests. Their promises are checked like everyone else's.
    // The same for the scripts that drive a page through puppeteer: the functions they hand to the page run
    // in the browser, whose types (the DOM) the Node program does not have.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/contrast.ts', 'scripts/screenshot-demo.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // A browser test waits on a page by checking on a timer (waitInPage, waitShown in test/helpers/browser.ts):
    // puppeteer's own waits check on animation frames, which a page not in front never draws.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'waitForFunction', message: 'use waitInPage (test/helpers/browser.ts): a page not in front draws no frames' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='waitForSelector'] Property[key.name=/^(visible|hidden)$/]",
          message: 'use waitShown (test/helpers/browser.ts): a page not in front draws no frames',
        },
      ],
    },
  },
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
]);
