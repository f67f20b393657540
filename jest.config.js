/** jest: one test/ tree; *.test.ts run in-process, *.e2e.ts start real servers on free ports. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts', '**/*.e2e.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 30000,
  maxWorkers: 2,
  // Every REST answer through test/helpers/http.ts is checked against the OpenAPI document; the teardown prints how many.
  globalSetup: '<rootDir>/test/helpers/globalSetup.ts',
  globalTeardown: '<rootDir>/test/helpers/globalTeardown.ts',
};
