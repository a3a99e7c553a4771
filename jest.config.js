// ts-jest only transpiles (isolatedModules in tsconfig.json); `npm run typecheck` type-checks in its own step.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  // Jest's default leaves one core idle; the suite is mostly CPU-bound test files that run well side by side.
  maxWorkers: '100%',
};
