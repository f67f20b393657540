/** jest: test/ holds one folder per capability (chat/, polls/, show/, …) and helpers/; *.test.ts run in-process, *.e2e.ts start real servers on free ports. */

/**
 * What depends on neither the database nor the bus runs once: CI's second pass (PostgreSQL + Redis,
 * `STAGEGRAPH_TEST_PASS=storage` in .ci/run) leaves these out, and its first pass (SQLite, in-process bus)
 * runs them with everything else. In-process tests of cores against their seams, the browser pages (the
 * storage under them is what the other suites test on both), the partner and CLI-free contracts (OpenAPI,
 * GraphQL lint, alert rules, auditors, document limits), the reference provider's own tests, and the README's
 * quick-start (the embedded defaults by definition). Everything that touches storage or the bus runs twice.
 */
const RUNS_ONCE = [
  '.*\\.test\\.ts',
  'overlays/embed\\.e2e\\.ts',
  'chat/embed-chat\\.e2e\\.ts',
  'polls/embed-polls\\.e2e\\.ts',
  'qa/watch-qa\\.e2e\\.ts',
  'live/subscriptions-http-embed\\.e2e\\.ts',
  'show/watch-page\\.e2e\\.ts',
  'gateway/graphql-surface\\.e2e\\.ts',
  'rest/legacy-clients\\.e2e\\.ts',
  'show/provider\\.e2e\\.ts',
  'operations/readme-quickstart\\.e2e\\.ts',
  // SQLite whatever DATABASE_URL says: files of their own.
  'operations/sqlite-adapter\\.e2e\\.ts',
  'operations/runtime\\.e2e\\.ts',
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts', '**/*.e2e.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.STAGEGRAPH_TEST_PASS === 'storage' ? RUNS_ONCE.map((file) => `/test/${file}$`) : [])],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  // Waits inside tests have deadlines of their own (30 s, test/helpers/wait.ts): a test's own limit is well past them,
  // so on a loaded machine the wait that failed says what it waited for, instead of jest's bare timeout.
  testTimeout: 120_000,
  maxWorkers: 2,
  // Every REST answer through test/helpers/http.ts is checked against the OpenAPI document; the teardown prints how many.
  globalSetup: '<rootDir>/test/helpers/globalSetup.ts',
  // graphql-js in production mode, as every entry point of the server runs it (main.ts, gateway/index.ts, …).
  setupFiles: ['<rootDir>/shared/graphqlProduction.ts'],
  globalTeardown: '<rootDir>/test/helpers/globalTeardown.ts',
};
